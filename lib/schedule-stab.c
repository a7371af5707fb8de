/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <linux/pkt_sched.h>
#include <string.h>

#include "json-util.h"
#include "macro.h"
#include "schedule-fields.h"
#include "schedule-stab.h"
#include "string-table.h"

static const char *const stab_linklayer_table[_STAB_LINKLAYER_MAX] = {
        [STAB_LINKLAYER_UNSPEC] = "unspec",
        [STAB_LINKLAYER_ETHERNET] = "ethernet",
        [STAB_LINKLAYER_ATM] = "atm",
};
DEFINE_STRING_TABLE_LOOKUP(stab_linklayer, StabLinkLayer, stab_linklayer_table, _STAB_LINKLAYER_MAX)

/* An ATM cell carries 48 bytes of payload in 53 on the wire. */
#define ATM_CELL_PAYLOAD 48
#define ATM_CELL_SIZE 53

void parse_stab(Parser *p, const char *prefix, const JsonNode *e, StabSpec *ret) {
        static const KeySpec keys[] = {
                { "overhead", K_ANY },
                { "mpu", K_ANY },
                { "mtu", K_ANY },
                { "tsize", K_ANY },
                { "linklayer", K_ANY },
        };
        char path[JPATH_MAX], lpath[JPATH_MAX], sh[SHOW_MAX];
        const JsonNode *o, *v = NULL;
        const char *t;
        StabLinkLayer l;
        int64_t x;

        o = get_container(p, prefix, e, "stab", false, JSON_OBJECT);
        if (!o)
                return;
        jpath_key(path, prefix, "stab");
        *ret = (StabSpec) { .given = true };
        check_keys(p, path, o, keys, ELEMENTSOF(keys), K_ANY);
        if (get_int(p, path, o, "overhead", false, TBS_STAB_OVERHEAD_MIN, TBS_STAB_OVERHEAD_MAX, &x) > 0)
                ret->overhead = (int32_t) x;
        if (get_int(p, path, o, "mpu", false, 0, TBS_STAB_BYTES_MAX, &x) > 0)
                ret->mpu = (uint32_t) x;
        if (get_int(p, path, o, "mtu", false, 1, TBS_STAB_BYTES_MAX, &x) > 0)
                ret->mtu = (uint32_t) x;
        if (get_int(p, path, o, "tsize", false, 1, TBS_STAB_TSIZE_MAX, &x) > 0)
                ret->tsize = (uint32_t) x;
        t = get_string(p, path, o, "linklayer", false, &v);
        if (t) {
                l = stab_linklayer_from_string(t);
                if (l == _STAB_LINKLAYER_MAX || l == STAB_LINKLAYER_UNSPEC || has_nul(v))
                        perr(p, jpath_key(lpath, path, "linklayer"),
                             "unknown link layer %s; expected \"ethernet\" or \"atm\"", show(v, sh));
                else
                        ret->linklayer = l;
        }
}

const char *stab_unexpressed(const StabSpec *s) {
        StabSpec file;
        struct tc_sizespec a, b;

        if (!s->given)
                return NULL;
        if (s->linklayer >= _STAB_LINKLAYER_MAX)
                return "a size table (stab) of a link layer tbsd does not know";
        if (s->overhead < TBS_STAB_OVERHEAD_MIN || s->overhead > TBS_STAB_OVERHEAD_MAX ||
            s->mpu > TBS_STAB_BYTES_MAX || s->mtu > TBS_STAB_BYTES_MAX || s->tsize > TBS_STAB_TSIZE_MAX)
                return "a size table (stab) with values beyond the file's ranges";
        /* the file's keys rebuild the same table only if tc's rules made it */
        file = (StabSpec) { .given = true, .overhead = s->overhead, .mpu = s->mpu, .mtu = s->mtu,
                            .tsize = s->tsize, .linklayer = s->linklayer };
        stab_sizespec(&file, &a);
        stab_sizespec(s, &b);
        if (!stab_has_effect(&file) || memcmp(&a, &b, sizeof(a)) != 0)
                return "a size table (stab) that tc's rules would not build from its keys";
        return NULL;
}

bool stab_has_effect(const StabSpec *s) {
        return s->given && (s->overhead != 0 || s->mpu != 0 || s->linklayer != STAB_LINKLAYER_UNSPEC);
}

static bool needs_table(const StabSpec *s) {
        return s->linklayer == STAB_LINKLAYER_ATM || s->mpu != 0;
}

const char *stab_refusal(const StabSpec *s) {
        if (!s->given || s->dumped)
                return NULL;
        if (!stab_has_effect(s))
                return "changes nothing: give overhead, mpu or linklayer (the kernel gets no size table "
                       "without one of them)";
        if ((s->mtu != 0 || s->tsize != 0) && !needs_table(s))
                return "mtu and tsize size a table, which only mpu or linklayer \"atm\" need: with overhead "
                       "alone (or linklayer \"ethernet\") every frame counts as its length plus the "
                       "overhead, for any length";
        return NULL;
}

static unsigned counted_size(unsigned sz, const StabSpec *s) {
        if (sz < s->mpu)
                sz = s->mpu;
        if (s->linklayer == STAB_LINKLAYER_ATM)
                sz = (sz + ATM_CELL_PAYLOAD - 1) / ATM_CELL_PAYLOAD * ATM_CELL_SIZE;
        return sz;
}

void stab_sizespec(const StabSpec *s, struct tc_sizespec *ret) {
        *ret = (struct tc_sizespec) {
                .overhead = s->overhead,
                .linklayer = s->linklayer,
                .mpu = s->mpu,
        };
        if (s->dumped) {
                ret->cell_log = s->cell_log;
                ret->size_log = s->size_log;
                ret->cell_align = s->cell_align;
                ret->mtu = s->mtu;
                ret->tsize = s->tsize;
                return;
        }
        if (!needs_table(s))
                return;         /* only the overhead: no table, mtu and tsize 0 */
        ret->mtu = s->mtu ? s->mtu : 2047;
        ret->tsize = s->tsize ? s->tsize : 512;
        while ((ret->mtu >> ret->cell_log) > ret->tsize - 1)
                ret->cell_log++;
        /* the largest slot decides: sizes grow with the slot */
        while ((counted_size(ret->tsize << ret->cell_log, s) >> ret->size_log) > UINT16_MAX)
                ret->size_log++;
        ret->cell_align = -1;   /* slot i covers sizes up to (i + 1) << cell_log */
}

void stab_table(const StabSpec *s, const struct tc_sizespec *spec, uint16_t *table) {
        for (unsigned i = 0; i < spec->tsize; i++)
                table[i] = (uint16_t) (counted_size((i + 1) << spec->cell_log, s) >> spec->size_log);
}

/* Whether the kernel has (or is sent) a size table for s. */
static bool stab_in_force(const StabSpec *s) {
        return s->given && (s->dumped || stab_has_effect(s));
}

bool stab_equal(const StabSpec *a, const StabSpec *b) {
        struct tc_sizespec x, y;

        if (stab_in_force(a) != stab_in_force(b))
                return false;
        if (!stab_in_force(a))
                return true;
        stab_sizespec(a, &x);
        stab_sizespec(b, &y);
        return memcmp(&x, &y, sizeof(x)) == 0;
}

bool stab_needs_request(const StabSpec *s) {
        return stab_in_force(s);
}

void stab_from_sizespec(const struct tc_sizespec *spec, StabSpec *ret) {
        *ret = (StabSpec) {
                .given = true,
                .dumped = true,
                .overhead = spec->overhead,
                .mpu = spec->mpu,
                .mtu = spec->mtu,
                .tsize = spec->tsize,
                .linklayer = spec->linklayer < _STAB_LINKLAYER_MAX ? (StabLinkLayer) spec->linklayer
                                                                   : _STAB_LINKLAYER_MAX,
                .cell_log = (uint8_t) spec->cell_log,
                .size_log = (uint8_t) spec->size_log,
                .cell_align = (int16_t) spec->cell_align,
        };
}

struct json_object *stab_to_json(const StabSpec *s) {
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o)
                return NULL;
        if ((s->overhead != 0 && json_add_made(o, "overhead", json_object_new_int64(s->overhead)) < 0) ||
            (s->mpu != 0 && json_add_made(o, "mpu", json_object_new_int64(s->mpu)) < 0) ||
            (s->mtu != 0 && json_add_made(o, "mtu", json_object_new_int64(s->mtu)) < 0) ||
            (s->tsize != 0 && json_add_made(o, "tsize", json_object_new_int64(s->tsize)) < 0) ||
            (s->linklayer != STAB_LINKLAYER_UNSPEC && s->linklayer < _STAB_LINKLAYER_MAX &&
             json_add_made(o, "linklayer", json_object_new_string(stab_linklayer_to_string(s->linklayer))) < 0))
                return NULL;
        return TAKE_PTR(o);
}
