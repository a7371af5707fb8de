/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether a TX queue's qdisc (etf, cbs) is asked to run in the NIC: the
 * schedule's offload setting, and for "auto" what the kind says of the
 * device (QDiscVTable.offload_available). */
#include "qdisc.h"

EtfOffloadPlan etf_offload_plan(const EtfSpec *e, const DeviceFacts *f, const char **ret_reason) {
        const QDiscVTable *vt = qdisc_vtable_for_child(e->kind);
        const char *reason;
        EtfOffloadPlan p;

        if (!vt)
                return _ETF_PLAN_INVALID;
        switch (e->offload) {
        case OFFLOAD_ON:
                p = ETF_PLAN_HARDWARE;
                reason = "offload requested";
                break;
        case OFFLOAD_OFF:
                p = ETF_PLAN_SOFTWARE;
                reason = "software mode requested";
                break;
        case OFFLOAD_AUTO:
                if (f && f->offload_known)
                        p = vt->offload_available(f, e->queue, &reason) ? ETF_PLAN_HARDWARE : ETF_PLAN_SOFTWARE;
                else {
                        p = ETF_PLAN_TRY_HARDWARE;
                        reason = "device capabilities unknown: offload tried first";
                }
                break;
        default:
                return _ETF_PLAN_INVALID;
        }

        if (ret_reason)
                *ret_reason = reason;
        return p;
}

bool etf_matches_plan(const EtfSpec *installed, const EtfSpec *e, EtfOffloadPlan p) {
        const QDiscVTable *vt = qdisc_vtable_for_child(e->kind);
        EtfSpec want = *e;

        if (!vt || installed->kind != e->kind)
                return false;
        switch (p) {
        case ETF_PLAN_SOFTWARE:
                want.offload = OFFLOAD_OFF;
                break;
        case ETF_PLAN_HARDWARE:
                want.offload = OFFLOAD_ON;
                break;
        case ETF_PLAN_TRY_HARDWARE:
                want.offload = installed->offload;
                break;
        default:
                return false;
        }
        return vt->equal(installed, &want);
}
