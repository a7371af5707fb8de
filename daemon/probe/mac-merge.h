/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MAC merge layer (IEEE 802.3br) over ethtool generic netlink
 * (ETHTOOL_MSG_MM_GET / ETHTOOL_MSG_MM_SET, Linux 6.3+): everything tbsd
 * knows about it in one place. tbsd never runs `ethtool`; it speaks the
 * family itself, because Debian 12's ethtool 6.1 has no --show-mm/--set-mm.
 *
 * The messages are built and parsed by pure functions over byte buffers
 * (mm_msg_*(), mm_parse_*()), so the unit tests replay the kernel's
 * answers (tests/unit/test-mac-merge.c, fuzz/fuzz-mac-merge.c);
 * mac_merge_get()/mac_merge_set() add the process's one NETLINK_GENERIC
 * socket around them (opened at the first question, the family resolved
 * once). Like the rest of the probe
 * nothing here logs above debug: the callers say it, with the interface. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

/* From Linux 6.12's include/uapi/linux/ethtool_netlink.h and ethtool.h;
 * Debian 12's 6.1 headers lack them (as daemon/qdisc does for TBS_TCA_*). */
#define TBS_ETHTOOL_GENL_NAME "ethtool"
#define TBS_ETHTOOL_GENL_VERSION 1
#define TBS_ETHTOOL_MSG_MM_GET 42        /* user to kernel */
#define TBS_ETHTOOL_MSG_MM_SET 43
#define TBS_ETHTOOL_MSG_MM_GET_REPLY 43  /* kernel to user */
#define TBS_ETHTOOL_MSG_MM_NTF 44
#define TBS_ETHTOOL_A_HEADER_DEV_INDEX 1 /* u32 */
#define TBS_ETHTOOL_A_HEADER_DEV_NAME 2  /* string */
#define TBS_ETHTOOL_A_HEADER_FLAGS 3     /* u32 */
#define TBS_ETHTOOL_FLAG_STATS (1U << 2)
enum {
        TBS_ETHTOOL_A_MM_HEADER = 1,     /* nest: TBS_ETHTOOL_A_HEADER_* */
        TBS_ETHTOOL_A_MM_PMAC_ENABLED,   /* u8 */
        TBS_ETHTOOL_A_MM_TX_ENABLED,     /* u8 */
        TBS_ETHTOOL_A_MM_TX_ACTIVE,      /* u8 */
        TBS_ETHTOOL_A_MM_TX_MIN_FRAG_SIZE, /* u32 */
        TBS_ETHTOOL_A_MM_RX_MIN_FRAG_SIZE, /* u32 */
        TBS_ETHTOOL_A_MM_VERIFY_ENABLED, /* u8 */
        TBS_ETHTOOL_A_MM_VERIFY_STATUS,  /* u8: enum ethtool_mm_verify_status */
        TBS_ETHTOOL_A_MM_VERIFY_TIME,    /* u32, ms */
        TBS_ETHTOOL_A_MM_MAX_VERIFY_TIME, /* u32, ms */
        TBS_ETHTOOL_A_MM_STATS,          /* nest: TBS_ETHTOOL_A_MM_STAT_* */
};
enum {
        TBS_ETHTOOL_A_MM_STAT_PAD = 1,
        TBS_ETHTOOL_A_MM_STAT_REASSEMBLY_ERRORS, /* u64: aMACMergeFrameAssErrorCount */
        TBS_ETHTOOL_A_MM_STAT_SMD_ERRORS,        /* aMACMergeFrameSmdErrorCount */
        TBS_ETHTOOL_A_MM_STAT_REASSEMBLY_OK,     /* aMACMergeFrameAssOkCount */
        TBS_ETHTOOL_A_MM_STAT_RX_FRAG_COUNT,     /* aMACMergeFragCountRx */
        TBS_ETHTOOL_A_MM_STAT_TX_FRAG_COUNT,     /* aMACMergeFragCountTx */
        TBS_ETHTOOL_A_MM_STAT_HOLD_COUNT,        /* aMACMergeHoldCount */
};

/* The counters, in the order of their attributes (attribute - 2). */
typedef enum MacMergeStat {
        MM_STAT_REASSEMBLY_ERRORS,
        MM_STAT_SMD_ERRORS,
        MM_STAT_REASSEMBLY_OK,
        MM_STAT_RX_FRAGMENTS,
        MM_STAT_TX_FRAGMENTS,
        MM_STAT_HOLD,
        _MM_STAT_MAX,
} MacMergeStat;

/* What ETHTOOL_MSG_MM_GET answers. */
typedef struct MacMergeState {
        bool pmac_enabled, tx_enabled, tx_active, verify_enabled;
        uint8_t verify_status;                /* 0 unknown .. 5 disabled (mac_merge_verify_status_to_string) */
        uint32_t tx_min_frag_size, rx_min_frag_size;
        uint32_t verify_time_ms, max_verify_time_ms;
        uint64_t stats[_MM_STAT_MAX];
        uint8_t stats_present;                /* bit s: the driver reported stats[s] */
} MacMergeState;

/* The counters' names in the status JSON and metrics ("reassembly_errors"). */
const char *mac_merge_stat_name(MacMergeStat s);
/* "unknown", "initial", "verifying", "succeeded", "failed", "disabled". */
const char *mac_merge_verify_status_to_string(uint8_t status);

/* Requests: written into buf (size bytes, 4-aligned); return their length,
 * or -ENOBUFS. */
int mm_msg_get_family(void *buf, size_t size, uint32_t seq);
int mm_msg_get(void *buf, size_t size, uint16_t family, uint32_t seq, int ifindex);
/* MM_SET with the attributes of want that differ from have (have NULL:
 * every one want gives); pmac_enabled follows tx_enabled true when the
 * file leaves it out. Returns the length, 0 when nothing differs. */
int mm_msg_set(void *buf, size_t size, uint16_t family, uint32_t seq, int ifindex, const MacMergeSpec *want,
               const MacMergeState *have);

/* Answers: the bytes of one recv(). Each returns 1 when done (the answer
 * to seq was in it), 0 when more is to come, or the kernel's -errno for
 * seq (with its extended-ack text copied into err, when it gave one), or
 * -EBADMSG for bytes that are not such an answer. */
int mm_parse_family(const void *buf, size_t len, uint32_t seq, uint16_t *ret_family, bool *ret_has_mm_get,
                    char *err, size_t err_size);
int mm_parse_get(const void *buf, size_t len, uint32_t seq, MacMergeState *ret, char *err, size_t err_size);
int mm_parse_ack(const void *buf, size_t len, uint32_t seq, char *err, size_t err_size);

/* Whether state already has every setting want gives. */
bool mac_merge_matches(const MacMergeSpec *want, const MacMergeState *have);
/* The settings of have, all given: what puts a device back. */
void mac_merge_spec_from_state(const MacMergeState *have, MacMergeSpec *ret);

/* The device's MAC merge state with its counters. Returns 0, or -errno:
 * -EOPNOTSUPP when the device has no MAC merge layer or the kernel no
 * MM_GET (before Linux 6.3), -ENOENT when the kernel has no ethtool
 * netlink family at all. err (may be NULL) gets the kernel's text. */
int mac_merge_get(int ifindex, MacMergeState *ret, char *err, size_t err_size);
/* Sends MM_SET with what differs from have. Returns 1 when something was
 * sent, 0 when nothing differed, or -errno (err: the kernel's text). */
int mac_merge_set(int ifindex, const MacMergeSpec *want, const MacMergeState *have, char *err, size_t err_size);

struct json_object;
/* The state and counters as in Describe()'s "mac_merge" (tbsctl status
 * --json): settings, tx_active, verify_status as a word, and "counters"
 * with the ones the driver reported. NULL without memory. */
struct json_object *mac_merge_state_to_json(const MacMergeState *s);

/* The capability probe's question: 1 when the device has a MAC merge
 * layer, 0 when it has none or the kernel has no MM_GET (the family's
 * command list says so; asked once per process), or -errno. */
int mac_merge_probe(int ifindex);

/* The one line for a device that has no MAC merge layer, or a failed
 * MM_GET: "mac_merge: the device has no MAC merge layer (ethtool netlink
 * MM_GET: Operation not supported)". Without the interface's name: the
 * caller puts it first. */
int mac_merge_refusal(int r, const char *kernel_text, char **ret);
