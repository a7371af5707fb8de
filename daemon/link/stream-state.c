/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json-strict.h"
#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-parse.h"
#include "schedule-streams.h"
#include "stream-state.h"

static char *state_path(const char *dir, const char *ifname, const char *suffix) {
        char *p;

        if (asprintf(&p, "%s/streams/%s.json%s", dir, ifname, suffix) < 0)
                return NULL;
        return p;
}

int stream_state_merge(const char *dir, Schedule *s, char **ret_error) {
        _cleanup_free_ char *path = state_path(dir, s->ifname, ""), *text = NULL;
        _cleanup_json_tree_ JsonTree *tree = NULL;
        const JsonNode *a = NULL;
        char why[JSON_STRICT_ERROR_MAX];
        DiagList diags = {};
        StreamSpec *items;
        size_t len, at, n, added = 0;
        int r;

        *ret_error = NULL;
        if (!path)
                return -ENOMEM;
        if (s->streams.n == 0)
                return 0;       /* the file gives entries: no stream can be added to it */
        if (access(path, F_OK) < 0)
                return errno == ENOENT ? 0 : -errno;
        r = schedule_read_file(path, NULL, &diags, &text, &len);
        if (r < 0)
                goto bad;
        r = json_strict_parse(text, len, &tree, &a, &at, why);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || !json_is(a, JSON_ARRAY)) {
                r = asprintf(ret_error, "%s: %s", path, r < 0 ? why : "must hold a JSON array of streams");
                return r < 0 ? -ENOMEM : -EINVAL;
        }
        n = a->len;
        if (n == 0)
                return 0;
        items = reallocarray(s->streams.items, s->streams.n + n, sizeof(StreamSpec));
        if (!items)
                return -ENOMEM;
        s->streams.items = items;
        for (size_t i = 0; i < n; i++) {
                char p[32];
                StreamSpec st;
                bool dup = false;

                snprintf(p, sizeof(p), "[%zu]", i);
                r = stream_parse_node(path, p, json_index(a, i), &s->root, &diags, &st);
                if (r < 0) {
                        /* Nothing of a damaged file is taken. */
                        for (size_t k = 0; k < added; k++)
                                free(s->streams.items[s->streams.n - 1 - k].name);
                        s->streams.n -= added;
                        goto bad;
                }
                for (size_t k = 0; k < s->streams.n && !dup; k++)
                        dup = strcmp(s->streams.items[k].name, st.name) == 0;
                if (dup) {
                        free(st.name);
                        continue;
                }
                st.from_bus = true;
                s->streams.items[s->streams.n++] = st;
                added++;
        }
        /* The gate list must be computed again with them. */
        s->streams.resolved_speed_mbps = 0;
        root_drop_gate_list(&s->root);
        diag_list_clear(&diags);
        return (int) added;
bad:
        if (r == -ENOMEM)
                return r;
        for (size_t i = 0; i < diags.n && !*ret_error; i++)
                *ret_error = diag_format(&diags.items[i]);
        diag_list_clear(&diags);
        return r < 0 && r != -EINVAL ? r : -EINVAL;
}

int stream_state_save(const char *dir, const Schedule *s) {
        _cleanup_free_ char *sub = NULL, *path = state_path(dir, s->ifname, ""),
                            *tmp = state_path(dir, s->ifname, ".new");
        _cleanup_json_ json_object *a = streams_spec_to_json(&s->streams, true);
        const char *text;
        FILE *f;

        if (!path || !tmp || !a || asprintf(&sub, "%s/streams", dir) < 0)
                return -ENOMEM;
        if (json_object_array_length(a) == 0)
                return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (mkdir(sub, 0755) < 0 && errno != EEXIST)
                return -errno;
        text = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
        f = fopen(tmp, "we");
        if (!f)
                return -errno;
        if (fprintf(f, "%s\n", text) < 0 || fflush(f) != 0 || fsync(fileno(f)) < 0) {
                int e = errno ? -errno : -EIO;

                fclose(f);
                unlink(tmp);
                return e;
        }
        if (fclose(f) != 0 || rename(tmp, path) < 0) {
                int e = -errno;

                unlink(tmp);
                return e;
        }
        return 0;
}

int stream_state_drop(const char *dir, const char *ifname) {
        _cleanup_free_ char *path = state_path(dir, ifname, "");

        if (!path)
                return -ENOMEM;
        if (unlink(path) < 0)
                return errno == ENOENT ? 0 : -errno;
        return 1;
}
