/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "json-util.h"

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

int json_add_string(struct json_object *o, const char *key, const char *value) {
        return json_add(o, key, value ? json_object_new_string(value) : NULL);
}
