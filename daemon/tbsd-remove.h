/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd --remove IFACE. With a tbsd daemon on the system bus the request
 * goes to it (Link.Remove(), as `tbsctl remove IFACE`): removing behind its
 * back would be undone by its drift enforcement moments later. Without
 * one, the root is removed here, and only when it is tbsd's: the tree that
 * the folder's schedule for IFACE declares (qdisc-owner.h). */
#pragma once

/** Remove IFACE's tbsd tree, through the running daemon when there is one,
 *  else directly, judging ownership with the schedules of config_dir.
 *  Prints one line on stdout: "IFACE: removed", "IFACE: unchanged",
 *  "IFACE: removed by the running tbsd" or "IFACE: failed: REASON".
 *  Returns the exit code: 0 on success, 1 otherwise (also when IFACE's
 *  root is not tbsd's and stays). */
int tbsd_remove(const char *ifname, const char *config_dir);
