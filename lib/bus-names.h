/* SPDX-License-Identifier: GPL-2.0-or-later */
/* D-Bus names of tbsd: a public contract (dbus/org.tsn.Tbs.xml). */
#pragma once

#define TBS_BUS_NAME         "org.tsn.Tbs"
#define TBS_MANAGER_PATH     "/org/tsn/Tbs"
#define TBS_MANAGER_IFACE    "org.tsn.Tbs.Manager"
#define TBS_LINK_IFACE       "org.tsn.Tbs.Link"
#define TBS_LINK_PATH_PREFIX "/org/tsn/Tbs/link"

/* The members the NETCONF server module (netconf/) calls and listens to,
 * named once for it and the daemon's vtables. */
#define TBS_METHOD_APPLY_SCHEDULES_BEFORE "ApplySchedulesBefore"
#define TBS_METHOD_LIST_SCHEDULES         "ListSchedules"
#define TBS_METHOD_LIST_SCHEDULES_GENERATION "ListSchedulesGeneration"
#define TBS_METHOD_APPLY_SCHEDULES_IF_GENERATION "ApplySchedulesIfGeneration"
#define TBS_METHOD_VALIDATE_SCHEDULES     "ValidateSchedules"
#define TBS_METHOD_GET_CAPABILITIES       "GetCapabilities"
#define TBS_METHOD_LIST_LINKS             "ListLinks"
#define TBS_METHOD_DESCRIBE               "Describe"
#define TBS_SIGNAL_EVENT                  "Event"
#define TBS_PROPERTY_STATE                "State"
#define TBS_PROPERTY_STATE_REASON         "StateReason"

#define TBS_ERROR_NO_SUCH_LINK      "org.tsn.Tbs.Error.NoSuchLink"
#define TBS_ERROR_INVALID_SCHEDULE  "org.tsn.Tbs.Error.InvalidSchedule"
#define TBS_ERROR_APPLY_FAILED      "org.tsn.Tbs.Error.ApplyFailed"
#define TBS_ERROR_ACCESS_DENIED     "org.tsn.Tbs.Error.AccessDenied"
/* Remove(): the root qdisc is not tbsd's and was left in place. */
#define TBS_ERROR_NOT_OWNED         "org.tsn.Tbs.Error.NotOwned"
#define TBS_ERROR_INVALID_QUEUE     "org.tsn.Tbs.Error.InvalidQueue"
#define TBS_ERROR_INVALID_ARGUMENTS "org.tsn.Tbs.Error.InvalidArguments"
#define TBS_ERROR_FAILED            "org.tsn.Tbs.Error.Failed"
/* OpenTxtimeSocket(), GetTxtimeWindow() */
#define TBS_ERROR_NOT_CONFIGURED    "org.tsn.Tbs.Error.NotConfigured"
#define TBS_ERROR_NO_ETF            "org.tsn.Tbs.Error.NoEtf"
#define TBS_ERROR_UNKNOWN_KIND      "org.tsn.Tbs.Error.UnknownKind"
#define TBS_ERROR_PROTOCOL_MISSING  "org.tsn.Tbs.Error.ProtocolMissing"
#define TBS_ERROR_INVALID_OPTION    "org.tsn.Tbs.Error.InvalidOption"
#define TBS_ERROR_NOT_SUPPORTED     "org.tsn.Tbs.Error.NotSupported"
#define TBS_ERROR_LIMIT_EXCEEDED    "org.tsn.Tbs.Error.LimitExceeded"
/* ApplySchedulesBefore(): the caller's deadline passed, nothing applied. */
#define TBS_ERROR_DEADLINE_PASSED   "org.tsn.Tbs.Error.DeadlinePassed"
/* ApplySchedulesIfGeneration(): the kept documents changed since the
 * generation the caller gave, nothing applied: list them again. */
#define TBS_ERROR_GENERATION_CHANGED "org.tsn.Tbs.Error.GenerationChanged"
