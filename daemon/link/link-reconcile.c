/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A link after a change notification: an interface that went, came back
 * or was renamed, and an installed tree (with the MAC merge layer's
 * settings the schedule gives) that drifted from its schedule (restored
 * or reported, by the schedule's drift policy). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "drift.h"
#include "link-internal.h"
#include "log.h"
#include "nl-qdisc.h"

void link_vanished(Link *l) {
        bool checked = l->rt->clock;

        if (l->ifindex == 0 && l->state == LINK_STATE_ABSENT)
                return;
        link_set_ifindex(l, 0);
        l->rt->applied = false;
        link_end_ptp_relock(l);
        l->rt->drift = mfree(l->rt->drift);
        link_emit_changed(l, "Index", NULL);
        if (checked) {
                /* Nothing installed, nothing to check: the clock is "not
                 * checked while the schedule is not installed (absent)"
                 * until the apply on its return starts the check again (it
                 * went on reporting ptp4l's state for an interface that was
                 * gone). ClockState comes with State and StateReason. */
                link_hold_changes(l);
                l->rt->clock = clock_check_free(l->rt->clock);
                link_emit_changed(l, "ClockState", NULL);
        }
        link_emit_event(l, "vanished", "interface %s is gone", l->name);
        link_set_state(l, LINK_STATE_ABSENT, "interface %s is gone; waiting for it to return", l->name);
        if (checked)
                link_release_changes(l);
}

/* The installed tree of a configured link against its schedule, then the
 * MAC merge layer's settings against its "mac_merge". */
static void link_check_drift(Link *l, const QDiscTreeSet *set, int ifindex) {
        _cleanup_free_ char *what = NULL;
        const QDiscTree *tree;
        int r;

        if (!set) {
                log_link_debug(l->name, "no qdisc dump for the drift check");
                return;
        }
        tree = qdisc_tree_set_find(set, ifindex);
        r = qdisc_dump_judge_ifindex(tree, ifindex);
        if (r < 0 && r != -EAGAIN)
                return;         /* gone meanwhile: the link watcher says so */
        if (r < 0) {
                /* Up, so a complete dump shows a root: this one was cut
                 * short (qdisc_dump_judge()). Judge nothing from it. */
                log_link_warning(l->name, "the kernel's qdisc dump leaves this interface out (cut short by a "
                                 "qdisc too large to dump); drift not checked%s",
                                 l->schedule->drift == DRIFT_ENFORCE ? ", checking again later" : "");
                /* The retry's apply dumps again and changes nothing while
                 * the dump stays incomplete (backing off up to 60 s). */
                if (l->schedule->drift == DRIFT_ENFORCE && !link_retry_pending(l))
                        link_schedule_retry(l);
                return;
        }
        if (tree)
                link_take_gates(l, tree);       /* what the kernel runs now, for the monitors */
        r = drift_describe(tree ?: &(QDiscTree) { .ifindex = ifindex }, l->schedule,
                           l->rt->caps ? &l->rt->facts : NULL, &what);
        /* The tree as declared: the MAC merge layer's settings the file
         * gives, where it has "mac_merge" (no question otherwise). */
        if (r == 0)
                r = link_mac_merge_drift(l, &what);
        /* And the socket guard's clsact filters (every managed interface). */
        if (r == 0)
                r = link_socket_guard_drift(l, &what);
        if (r < 0)
                return;
        if (r == 0) {
                if (l->rt->drift) {
                        l->rt->drift = mfree(l->rt->drift);
                        link_emit_event(l, "restored", "the tree matches the schedule again");
                        link_update_installed_state(l);
                }
                return;
        }

        if (l->schedule->drift == DRIFT_REPORT) {
                if (l->rt->drift && strcmp(l->rt->drift, what) == 0)
                        return;
                free(l->rt->drift);
                l->rt->drift = TAKE_PTR(what);
                link_emit_event(l, "drift", "%s (changed outside tbsd; policy report)", l->rt->drift);
                link_update_installed_state(l);
                return;
        }
        link_emit_event(l, "drift", "%s (changed outside tbsd; restoring)", what);
        r = link_apply_from(l, set, NULL);
        if (r >= 0)
                l->counters.drift_repairs++;
        if (r >= 0)
                link_emit_event(l, "restored", "schedule %s re-installed", l->schedule_file ?: "");
}

void link_reconcile(Link *l, const QDiscTreeSet *set) {
        int ifindex;

        if (!l->schedule || l->removed)
                return;
        ifindex = link_lookup_ifindex(l);
        if (ifindex <= 0) {
                if (l->state != LINK_STATE_ABSENT)
                        link_vanished(l);
                return;
        }
        if (ifindex != l->ifindex || !l->rt->applied) {
                /* New, back, or renamed to a configured name. A failed link is
                 * retried only by its timer: re-applying on every notification
                 * would loop on our own rollback's notifications. */
                if (l->state == LINK_STATE_FAILED && ifindex == l->ifindex)
                        return;
                if (l->state == LINK_STATE_ABSENT || ifindex != l->ifindex)
                        link_emit_event(l, "appeared", "interface %s (index %d) is here", l->name, ifindex);
                (void) link_apply_from(l, set, NULL);
                return;
        }
        link_check_drift(l, set, ifindex);
}
