/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A CPU-time budget for work any bus caller can ask for (Validate()):
 * a token bucket per user id and one for all callers together, both
 * refilled at a share of one core and holding at most a burst. A call is
 * admitted while both buckets of its caller hold time; what it then took
 * (measured, CLOCK_THREAD_CPUTIME_ID) is taken from both, so one long
 * call leaves a debt the next calls wait for. Callers the daemon trusts
 * (uid 0, the admin group) are not counted at all.
 *
 * Pure (times are given) so it can be tested; manager-bus.c measures. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Each user: 50 ms of CPU a second (5 % of a core), 100 ms at once; all
 * of them: 100 ms a second, 200 ms at once. A costly 12 kB streams
 * document (bench/streams-doc.py) is 39 million instructions, 30-100 ms of
 * the daemon's CPU in the loaded test kernel: with these, four uid-65534
 * clients sending it twenty times at once got 4 answers, and root's status
 * calls meanwhile took what they take without them (BENCHMARKS.md,
 * "Bounds"). */
#define CPU_BUDGET_USER_RATE_USEC_PER_S 50000
#define CPU_BUDGET_USER_BURST_USEC 100000
#define CPU_BUDGET_ALL_RATE_USEC_PER_S 100000
#define CPU_BUDGET_ALL_BURST_USEC 200000
/* Users followed at once; beyond that the longest-idle slot is reused
 * (a full bucket: nothing is lost by forgetting it). */
#define CPU_BUDGET_USERS 32

typedef struct CpuBucket {
        int64_t level_usec;          /* CPU time left; negative: a debt */
        uint64_t at_usec;            /* CLOCK_MONOTONIC of the last refill */
} CpuBucket;

typedef struct CpuBudgetUser {
        bool used;
        uid_t uid;
        CpuBucket bucket;
} CpuBudgetUser;

/* Who a bus connection is, remembered for a while: asking the bus
 * (GetConnectionCredentials) is a round trip during which the daemon
 * waits, and a client that keeps calling would make it once per call. A
 * unique name is never given to another connection, so only the trust
 * (group membership) can go stale: CPU_BUDGET_SENDER_USEC. */
#define CPU_BUDGET_SENDERS 32
#define CPU_BUDGET_SENDER_NAME_MAX 32
#define CPU_BUDGET_SENDER_USEC (10 * 1000000ULL)

typedef struct CpuBudgetSender {
        char name[CPU_BUDGET_SENDER_NAME_MAX];   /* unique bus name; "" unused */
        uid_t uid;
        bool trusted;
        uint64_t at_usec;
} CpuBudgetSender;

typedef struct CpuBudget {
        bool ready;                  /* false (a zeroed struct): initialised at the first call */
        CpuBucket all;
        CpuBudgetUser users[CPU_BUDGET_USERS];
        CpuBudgetSender senders[CPU_BUDGET_SENDERS];
} CpuBudget;

/** A budget with every bucket full (a zeroed CpuBudget is one too). */
void cpu_budget_init(CpuBudget *b);

/** Whether uid may start a call at now_usec. When not, *ret_wait_usec (may
 *  be NULL) gets how long until it may, and *ret_all (may be NULL) whether
 *  it is the bucket of all callers that is empty. */
bool cpu_budget_admit(CpuBudget *b, uid_t uid, uint64_t now_usec, uint64_t *ret_wait_usec, bool *ret_all);

/** Take cost_usec of CPU time used by a call of uid from its buckets. */
void cpu_budget_charge(CpuBudget *b, uid_t uid, uint64_t now_usec, uint64_t cost_usec);

/** The uid and trust remembered for the unique bus name within
 *  CPU_BUDGET_SENDER_USEC of now_usec; false when there is none. */
bool cpu_budget_sender_find(const CpuBudget *b, const char *name, uint64_t now_usec, uid_t *ret_uid,
                            bool *ret_trusted);

/** Remember the uid and trust of a unique bus name (the oldest entry
 *  makes room; a name too long is not remembered). */
void cpu_budget_sender_remember(CpuBudget *b, const char *name, uint64_t now_usec, uid_t uid, bool trusted);
