/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The journal's native protocol (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/)
 * for lib/log.c: structured fields such as TBS_LINK= without linking
 * libsystemd. One datagram per entry to journald's socket. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define JOURNAL_SOCKET_DEFAULT "/run/systemd/journal/socket"

typedef struct JournalField {
        const char *name;   /* upper case, digits and '_', not starting with '_' */
        const char *value;  /* any bytes but NUL */
} JournalField;

/** Whether fd is the stream systemd connected to journald for us:
 *  journal_stream ("DEV:INODE", both decimal, as systemd puts it in
 *  $JOURNAL_STREAM) names fd's device and inode. false when journal_stream
 *  is NULL or malformed or fd cannot be stat'ed. */
bool journal_stream_is(int fd, const char *journal_stream);

/** Encode n fields as one native-protocol datagram in a new buffer: a value
 *  without a newline as "NAME=VALUE\n", one with a newline as "NAME\n", its
 *  length as 64-bit little-endian, the bytes and "\n". Returns 0 and sets
 *  *ret_buf (free() it) and *ret_size, or -EINVAL (NULL name or value,
 *  n == 0) or -ENOMEM; the ret_* are untouched on failure. */
int journal_encode(const JournalField *fields, size_t n, char **ret_buf, size_t *ret_size);

/** Send the n fields as one entry to the journal socket at path (NULL:
 *  JOURNAL_SOCKET_DEFAULT). Returns 0, or -errno: -ENOENT or -ECONNREFUSED
 *  when no journald listens, -EMSGSIZE when the entry is too large for one
 *  datagram. Logs nothing. */
int journal_send(const char *path, const JournalField *fields, size_t n);
