/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "cpu-budget.h"

void cpu_budget_init(CpuBudget *b) {
        memset(b, 0, sizeof(*b));
        b->all.level_usec = CPU_BUDGET_ALL_BURST_USEC;
        b->ready = true;
}

static void refill(CpuBucket *k, uint64_t now_usec, uint64_t rate_per_s, int64_t burst) {
        uint64_t dt, add;

        if (now_usec <= k->at_usec)
                return;
        dt = now_usec - k->at_usec;
        if (dt >= 3600ULL * 1000000) {          /* long idle: full (and no overflow below) */
                k->level_usec = burst;
                k->at_usec = now_usec;
                return;
        }
        add = dt * rate_per_s / 1000000;
        if (add == 0)
                return;                         /* keep the start: short steps add up */
        k->level_usec = k->level_usec + (int64_t) add > burst ? burst : k->level_usec + (int64_t) add;
        k->at_usec = now_usec;
}

/* How long until k holds time again at rate_per_s. */
static uint64_t wait_for(const CpuBucket *k, uint64_t rate_per_s) {
        return k->level_usec > 0 ? 0 : ((uint64_t) (1 - k->level_usec) * 1000000 + rate_per_s - 1) / rate_per_s;
}

static CpuBucket *user_bucket(CpuBudget *b, uid_t uid, uint64_t now_usec) {
        CpuBudgetUser *free_slot = NULL, *idle = NULL;

        for (size_t i = 0; i < CPU_BUDGET_USERS; i++) {
                CpuBudgetUser *u = &b->users[i];

                if (u->used && u->uid == uid) {
                        refill(&u->bucket, now_usec, CPU_BUDGET_USER_RATE_USEC_PER_S, CPU_BUDGET_USER_BURST_USEC);
                        return &u->bucket;
                }
                if (!u->used && !free_slot)
                        free_slot = u;
                if (u->used && (!idle || u->bucket.at_usec < idle->bucket.at_usec))
                        idle = u;
        }
        if (!free_slot)
                free_slot = idle;
        *free_slot = (CpuBudgetUser) { .used = true, .uid = uid,
                                       .bucket = { .level_usec = CPU_BUDGET_USER_BURST_USEC, .at_usec = now_usec } };
        return &free_slot->bucket;
}

bool cpu_budget_admit(CpuBudget *b, uid_t uid, uint64_t now_usec, uint64_t *ret_wait_usec, bool *ret_all) {
        CpuBucket *u;
        uint64_t wu, wa;

        if (!b->ready)
                cpu_budget_init(b);
        u = user_bucket(b, uid, now_usec);
        refill(&b->all, now_usec, CPU_BUDGET_ALL_RATE_USEC_PER_S, CPU_BUDGET_ALL_BURST_USEC);
        wu = wait_for(u, CPU_BUDGET_USER_RATE_USEC_PER_S);
        wa = wait_for(&b->all, CPU_BUDGET_ALL_RATE_USEC_PER_S);
        if (ret_wait_usec)
                *ret_wait_usec = wu > wa ? wu : wa;
        if (ret_all)
                *ret_all = wa > wu;
        return wu == 0 && wa == 0;
}

void cpu_budget_charge(CpuBudget *b, uid_t uid, uint64_t now_usec, uint64_t cost_usec) {
        CpuBucket *u;
        int64_t c = cost_usec > INT32_MAX ? INT32_MAX : (int64_t) cost_usec;

        if (!b->ready)
                cpu_budget_init(b);
        u = user_bucket(b, uid, now_usec);
        refill(&b->all, now_usec, CPU_BUDGET_ALL_RATE_USEC_PER_S, CPU_BUDGET_ALL_BURST_USEC);
        u->level_usec -= c;
        b->all.level_usec -= c;
}

bool cpu_budget_sender_find(const CpuBudget *b, const char *name, uint64_t now_usec, uid_t *ret_uid,
                            bool *ret_trusted) {
        if (!name)
                return false;
        for (size_t i = 0; i < CPU_BUDGET_SENDERS; i++) {
                const CpuBudgetSender *c = &b->senders[i];

                if (c->name[0] && strcmp(c->name, name) == 0 && now_usec - c->at_usec < CPU_BUDGET_SENDER_USEC) {
                        *ret_uid = c->uid;
                        *ret_trusted = c->trusted;
                        return true;
                }
        }
        return false;
}

void cpu_budget_sender_remember(CpuBudget *b, const char *name, uint64_t now_usec, uid_t uid, bool trusted) {
        CpuBudgetSender *slot = &b->senders[0];

        if (!name || strlen(name) >= CPU_BUDGET_SENDER_NAME_MAX)
                return;
        for (size_t i = 0; i < CPU_BUDGET_SENDERS; i++) {
                CpuBudgetSender *c = &b->senders[i];

                if (strcmp(c->name, name) == 0 || !c->name[0]) {
                        slot = c;
                        break;
                }
                if (c->at_usec < slot->at_usec)
                        slot = c;
        }
        *slot = (CpuBudgetSender) { .uid = uid, .trusted = trusted, .at_usec = now_usec };
        strcpy(slot->name, name);
}
