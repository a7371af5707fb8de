/* SPDX-License-Identifier: GPL-2.0-or-later */
/* caps_profile_read(): caps_to_json()'s document back into a LinkCaps, read
 * with the strict JSON reader schedule files are read with, every value
 * bounded as the probe bounds what a driver says. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "caps-profile.h"
#include "json-strict.h"
#include "json-tree.h"
#include "schedule-parse.h"
#include "show.h"

typedef struct ProfileReader {
        const char *file;
        DiagList *diags;
        int r;          /* 0, -EINVAL after a problem, -ENOMEM */
} ProfileReader;

static void problem(ProfileReader *p, const char *key, const char *reason, const JsonNode *v) {
        char buf[SHOW_MAX];
        int r;

        r = v ? diag_error(p->diags, p->file, key, "%s, got %s", reason, json_show(v, buf))
              : diag_error(p->diags, p->file, key, "%s", reason);
        if (r < 0)
                p->r = -ENOMEM;
        else if (p->r == 0)
                p->r = -EINVAL;
}

/* The member key of o; a problem when required and absent. */
static const JsonNode *member(ProfileReader *p, const JsonNode *o, const char *key, bool required) {
        const JsonNode *v = json_member(o, key);

        if (!v && required)
                problem(p, key, "required key is missing", NULL);
        return v;
}

static void read_bool(ProfileReader *p, const JsonNode *o, const char *key, bool required, bool *ret) {
        const JsonNode *v = member(p, o, key, required);

        if (!v)
                return;
        if (!json_is(v, JSON_BOOLEAN))
                return problem(p, key, "must be true or false", v);
        *ret = v->b;
}

static void read_string(ProfileReader *p, const JsonNode *o, const char *key, bool required, char *buf, size_t size) {
        const JsonNode *v = member(p, o, key, required);

        if (!v)
                return;
        if (!json_is(v, JSON_STRING) || strlen(v->text) != v->len)
                return problem(p, key, "must be a string without NUL", v);
        if (v->len >= size) {
                char reason[48];

                snprintf(reason, sizeof(reason), "must be shorter than %zu bytes", size);
                return problem(p, key, reason, v);
        }
        memcpy(buf, v->text, v->len + 1);
}

/* An integer between min and max. */
static bool read_int(ProfileReader *p, const char *key, const JsonNode *v, int64_t min, int64_t max, int64_t *ret) {
        char reason[96];

        if (!json_is(v, JSON_INTEGER) || v->above_int64 || v->i < min || v->i > max) {
                snprintf(reason, sizeof(reason), "must be an integer between %" PRId64 " and %" PRId64, min, max);
                problem(p, key, reason, v);
                return false;
        }
        *ret = v->i;
        return true;
}

/* A list of TX queue numbers (0-63), each once, as a mask. */
static void read_queues(ProfileReader *p, const JsonNode *o, const char *key, uint64_t *ret) {
        const JsonNode *v = member(p, o, key, true);
        uint64_t mask = 0;

        if (!v)
                return;
        if (!json_is(v, JSON_ARRAY))
                return problem(p, key, "must be an array of TX queue numbers", v);
        for (size_t i = 0; i < v->len; i++) {
                int64_t q;

                if (!read_int(p, key, json_index(v, i), 0, 63, &q))
                        return;
                if (mask & (UINT64_C(1) << q))
                        return problem(p, key, "names a queue twice", json_index(v, i));
                mask |= UINT64_C(1) << q;
        }
        *ret = mask;
}

int caps_profile_read(const char *path, LinkCaps *ret, DiagList *diags) {
        _cleanup_(json_tree_freep) JsonTree *tree = NULL;
        _cleanup_free_ char *text = NULL;
        ProfileReader p = { .file = path, .diags = diags };
        char error[JSON_STRICT_ERROR_MAX];
        const JsonNode *root, *v;
        LinkCaps c = { .phc_index = -1, .mac_merge = -1 };
        size_t len, at;
        int64_t n;
        int r;

        r = schedule_read_file(path, NULL, diags, &text, &len);
        if (r < 0)
                return r;
        if (len > CAPS_PROFILE_FILE_MAX) {
                problem(&p, NULL, "is larger than a device profile can be (64 KiB)", NULL);
                return p.r;
        }
        r = json_strict_parse(text, len, &tree, &root, &at, error);
        if (r == -EINVAL) {
                r = diag_error(diags, path, NULL, "not JSON at byte %zu: %s", at, error);
                return r < 0 ? r : -EINVAL;
        }
        if (r < 0)
                return r;
        if (json_is(root, JSON_ARRAY) && root->len == 1)
                root = json_index(root, 0);
        if (!json_is(root, JSON_OBJECT)) {
                problem(&p, NULL, "must be one object of `tbsctl --json caps IFACE` (or an array of one)", NULL);
                return p.r;
        }

        read_string(&p, root, "driver", true, c.driver, sizeof(c.driver));
        if ((v = member(&p, root, "tx_queues", true)) && read_int(&p, "tx_queues", v, 1, 4096, &n))
                c.tx_queues = (unsigned) n;
        read_queues(&p, root, "launch_time_queues", &c.launch_time_mask);
        read_queues(&p, root, "cbs_offload_queues", &c.cbs_offload_mask);
        read_bool(&p, root, "taprio_full_offload", true, &c.taprio_full_offload);
        read_bool(&p, root, "taprio_txtime_assist", false, &c.taprio_txtime_assist);
        read_bool(&p, root, "hw_timestamping", false, &c.hw_timestamping);
        read_bool(&p, root, "sw_timestamping", false, &c.sw_timestamping);
        if ((v = member(&p, root, "link_speed_mbps", false)) && !json_is(v, JSON_NULL) &&
            read_int(&p, "link_speed_mbps", v, 1, CAPS_MAX_LINK_SPEED_MBPS, &n))
                c.link_speed_mbps = (uint32_t) n;
        if ((v = member(&p, root, "mac_merge", false)) && !json_is(v, JSON_NULL)) {
                bool b = false;

                read_bool(&p, root, "mac_merge", false, &b);
                c.mac_merge = b;
        }
        if ((v = member(&p, root, "confidence", true))) {
                c.confidence = json_is(v, JSON_STRING) ? caps_confidence_from_string(v->text) : _CAPS_CONFIDENCE_INVALID;
                if (c.confidence < 0)
                        problem(&p, "confidence", "must be \"known\", \"unsupported\" or \"unknown\"", v);
        }
        read_string(&p, root, "reason", false, c.reason, sizeof(c.reason));
        if (p.r < 0)
                return p.r;
        *ret = c;
        return 0;
}
