/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <linux/pkt_sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json-util.h"
#include "qdisc-import.h"
#include "qdisc-kind.h"
#include "qdisc.h"
#include "schedule-json.h"
#include "schedule-parse.h"
#include "schedule-safety.h"
#include "schedule-verify.h"
#include "utf8.h"

/* Set *ret_reason to a formatted one-line text; returns -EOPNOTSUPP, or
 * -ENOMEM when the text cannot be made. */
_printf_(2, 3)
static int refuse(char **ret_reason, const char *format, ...) {
        va_list ap;
        int k;

        va_start(ap, format);
        k = vasprintf(ret_reason, format, ap);
        va_end(ap);
        if (k < 0) {
                *ret_reason = NULL;
                return -ENOMEM;
        }
        return -EOPNOTSUPP;
}

static int copy_root(const RootSpec *from, RootSpec *to) {
        int k;

        /* The running schedule of a pending change is not the file's. */
        k = root_spec_copy(to, from, false);
        if (k < 0)
                return k;
        root_dump_as_file(to, false);
        return 0;
}

int qdisc_tree_to_schedule(const QDiscTree *t, const char *ifname, const char *default_kind,
                           Schedule **ret, char **ret_reason) {
        _cleanup_schedule_ Schedule *s = NULL;
        const QDiscVTable *vt;
        _cleanup_free_ char *kb = NULL;
        const char *what, *child_kind;
        char hb[16], pb[16], names[96];
        int k;

        *ret_reason = NULL;
        if (!t || !t->has_root)
                return refuse(ret_reason, "no root qdisc in the kernel's dump (is the interface up?)");
        if (t->root.handle == 0)
                return refuse(ret_reason, "the root is the kernel's default qdisc (%s), not an %s tree: "
                              "nothing to import", text_safe(t->root.kind, &kb),
                              qdisc_kind_names(names, true, false, " or "));
        if (!t->root_known)
                return refuse(ret_reason, "root qdisc %s %s is none of %s, the roots a schedule declares",
                              text_safe(t->root.kind, &kb), tc_handle_to_string(t->root.handle, hb),
                              qdisc_kind_names(names, true, false, " and "));
        k = installed_qdisc_unexpressed(&t->root, &what);
        if (k < 0)
                return k;
        if (!what)
                what = stab_unexpressed(&t->root.stab);
        if (what)
                return refuse(ret_reason, "root %s %s has %s, which a schedule cannot express", t->root.kind,
                              tc_handle_to_string(t->root.handle, hb), what);

        vt = qdisc_vtable_for_root(t->root_spec.kind);
        child_kind = vt && vt->default_child ? vt->default_child : default_kind;

        s = calloc(1, sizeof(Schedule));
        if (!s)
                return -ENOMEM;
        if (strlen(ifname) >= sizeof(s->ifname))
                return -EINVAL;
        strcpy(s->ifname, ifname);
        s->drift = DRIFT_ENFORCE;
        k = copy_root(&t->root_spec, &s->root);
        if (k < 0)
                return k;

        for (size_t i = 0; i < t->n_queues; i++) {
                const InstalledQueue *iq = &t->queues[i];

                if (!installed_queue_is_declarable(iq)) {
                        /* A cbs root's etf, read into its leaf. */
                        if (root_is_leaf(&t->root_spec) && t->root_spec.leaf.etf_child && iq->queue == 0 &&
                            strcmp(iq->qdisc.kind, "etf") == 0) {
                                if (iq->qdisc.stab.given)
                                        return refuse(ret_reason, "the etf %s under the root has a size table "
                                                      "(stab), which a schedule gives only the root",
                                                      tc_handle_to_string(iq->qdisc.handle, hb));
                                continue;
                        }
                        if (strcmp(iq->qdisc.kind, child_kind) == 0)
                                continue;       /* the root's own default child */
                        return refuse(ret_reason, "txqueue %u: %s %s on %s: a schedule puts %s or the "
                                      "root's default (%s) on a TX queue", iq->queue, text_safe(iq->qdisc.kind, &kb),
                                      tc_handle_to_string(iq->qdisc.handle, hb),
                                      tc_handle_to_string(iq->qdisc.parent, pb),
                                      qdisc_kind_names(names, false, false, ", "), child_kind);
                }
                k = installed_qdisc_unexpressed(&iq->qdisc, &what);
                if (k < 0)
                        return k;
                if (what)
                        return refuse(ret_reason, "txqueue %u: %s, which a schedule cannot express", iq->queue, what);
                what = stab_unexpressed(&iq->qdisc.stab);
                if (what)
                        return refuse(ret_reason, "txqueue %u: %s %s has %s, which a schedule cannot express",
                                      iq->queue, iq->qdisc.kind, tc_handle_to_string(iq->qdisc.handle, hb), what);
                if (iq->child.stab.given)
                        return refuse(ret_reason, "txqueue %u: %s %s has a size table (stab), which a schedule "
                                      "gives only the root", iq->queue, iq->child.kind,
                                      tc_handle_to_string(iq->child.handle, hb));
        }

        /* Every named qdisc of the device must be the root or a TX queue's
         * child: one inside a child (cbs's inner qdisc replaced) has no key.
         * The kernel's own defaults have handle 0 and are not listed;
         * ingress and clsact (ffff:) are no part of the egress tree. */
        for (size_t i = 0; i < t->n_handles; i++) {
                uint32_t h = t->handles[i];
                bool known = h == t->root.handle || TC_H_MAJ(h) == TC_H_MAJ(TC_H_INGRESS);

                for (size_t j = 0; !known && j < t->n_queues; j++)
                        known = t->queues[j].qdisc.handle == h || t->queues[j].child.handle == h;
                if (!known)
                        return refuse(ret_reason, "qdisc %s is neither the root nor on a TX queue of it "
                                      "(a qdisc inside a TX queue's qdisc, such as cbs's), which a schedule "
                                      "cannot express", tc_handle_to_string(h, hb));
        }

        for (size_t i = 0; i < t->n_queues; i++)
                if (installed_queue_is_declarable(&t->queues[i]))
                        s->n_txqueues++;
        if (s->n_txqueues > 0) {
                size_t j = 0;

                s->txqueues = calloc(s->n_txqueues, sizeof(EtfSpec));
                if (!s->txqueues)
                        return -ENOMEM;
                /* cbs: the four kernel values as they are (raw keys, not a bandwidth) */
                for (size_t i = 0; i < t->n_queues; i++)
                        if (installed_queue_is_declarable(&t->queues[i])) {
                                s->txqueues[j] = t->queues[i].etf;
                                s->txqueues[j].queue = t->queues[i].queue;
                                s->txqueues[j].spelled_tbs = false;
                                j++;
                        }
        }
        *ret = TAKE_PTR(s);
        return 0;
}

/* Whether the schedule read back declares the tree the kernel has. */
static const char *roundtrip_differs(const Schedule *want, const Schedule *got) {
        const QDiscVTable *vt = qdisc_vtable_for_root(want->root.kind);

        if (!vt || !vt->equal(&want->root, &got->root))
                return "root";
        if (want->n_txqueues != got->n_txqueues)
                return "txqueues";
        for (size_t i = 0; i < want->n_txqueues; i++)
                if (!etf_spec_equal(&want->txqueues[i], &got->txqueues[i]))
                        return "txqueues";
        return NULL;
}

int qdisc_tree_import(const QDiscTree *t, const char *ifname, const char *default_kind,
                      char **ret_text, char **ret_reason) {
        _cleanup_schedule_ Schedule *s = NULL, *back = NULL;
        _cleanup_json_ json_object *o = NULL;
        _cleanup_(diag_list_clear) DiagList diags = {};
        _cleanup_free_ char *text = NULL;
        const char *j, *what;
        uint32_t failed = 0;
        int k;

        *ret_reason = NULL;
        k = qdisc_tree_to_schedule(t, ifname, default_kind, &s, ret_reason);
        if (k < 0)
                return k;
        /* The file declares what is installed, even a tree that breaks time
         * sync: it says so with the safety checks it fails in "allow". */
        k = schedule_safety_check_now(s, NULL, &diags, &failed);
        if (k < 0)
                return k;
        s->allow |= failed;
        diag_list_clear(&diags);
        o = schedule_to_json(s);
        if (!o)
                return -ENOMEM;
        j = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                           JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!j || asprintf(&text, "%s\n", j) < 0)
                return -ENOMEM;

        /* The proof: the text validates and declares this very tree. */
        k = schedule_parse_json(NULL, text, strlen(text), &diags, &back);
        if (k == -ENOMEM)
                return k;
        if (k >= 0) {
                k = schedule_verify(back, NULL, &diags);
                if (k == -ENOMEM)
                        return k;
        }
        for (size_t i = 0; i < diags.n; i++)
                if (diags.items[i].severity == DIAG_ERROR) {
                        _cleanup_free_ char *line = diag_format(&diags.items[i]);

                        if (!line)
                                return -ENOMEM;
                        return refuse(ret_reason, "the installed tree is not a valid schedule: %s", line);
                }
        what = roundtrip_differs(s, back);
        if (what)
                return refuse(ret_reason, "the schedule file cannot express the installed %s exactly", what);

        *ret_text = TAKE_PTR(text);
        return 0;
}
