/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-util.h"
#include "utf8.h"

struct json_object *json_get(struct json_object *o, const char *key) {
        struct json_object *v = NULL;

        if (!o || !json_object_is_type(o, json_type_object))
                return NULL;
        if (!json_object_object_get_ex(o, key, &v))
                return NULL;
        return v;
}

const char *json_get_string(struct json_object *o, const char *key) {
        struct json_object *v = json_get(o, key);

        if (!v || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

int64_t json_get_int(struct json_object *o, const char *key, int64_t def) {
        struct json_object *v = json_get(o, key);

        if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
                return def;
        return json_object_get_int64(v);
}

int json_get_bool(struct json_object *o, const char *key, int def) {
        struct json_object *v = json_get(o, key);

        if (!v || !json_object_is_type(v, json_type_boolean))
                return def;
        return json_object_get_boolean(v);
}

int json_add(struct json_object *o, const char *key, struct json_object *value) {
        if (json_object_object_add(o, key, value) < 0) {
                json_object_put(value);
                return -ENOMEM;
        }
        return 0;
}

int json_add_made(struct json_object *o, const char *key, struct json_object *value) {
        if (!value)
                return -ENOMEM;
        return json_add(o, key, value);
}

int json_add_string(struct json_object *o, const char *key, const char *value) {
        return json_add(o, key, value ? json_object_new_string(value) : NULL);
}

int json_escape_strings(struct json_object *o) {
        int r = 0;

        switch (json_object_get_type(o)) {
        case json_type_string: {
                _cleanup_free_ char *e = NULL;
                const char *s = json_object_get_string(o);

                /* A NUL inside would hide the rest from text_escape(). */
                if (text_is_safe(s) && strlen(s) == (size_t) json_object_get_string_len(o))
                        return 0;
                e = text_escape(s);
                if (!e || json_object_set_string(o, e) == 0)
                        return -ENOMEM;
                return 0;
        }
        case json_type_array:
                for (size_t i = 0; i < json_object_array_length(o); i++)
                        if (json_escape_strings(json_object_array_get_idx(o, i)) < 0)
                                r = -ENOMEM;
                return r;
        case json_type_object: {
                json_object_object_foreach(o, key, val) {
                        (void) key;
                        if (json_escape_strings(val) < 0)
                                r = -ENOMEM;
                }
                return r;
        }
        default:
                return 0;
        }
}

struct json_object *json_new_double_ms(double v) {
        char buf[64];

        snprintf(buf, sizeof(buf), "%.3f", v);
        return json_object_new_double_s(strtod(buf, NULL), buf);
}
