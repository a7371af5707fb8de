#!/usr/bin/python3
# Turn the guest's measurement lines (bench/guest.sh) into the Markdown
# section of BENCHMARKS.md: medians, ratios against the tc baselines of the
# same boot, and which goals are met. Part of bench/run.
#
#   report.py GUEST_LOG MACHINE_FACTS_FILE
import statistics
import sys
from collections import defaultdict

SIZES = [1, 16, 64, 256]


def load(path):
    runs = defaultdict(list)      # (metric, n, tool) -> [values]
    info = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            p = line.split()
            if len(p) >= 6 and p[0] == "R":
                runs[(p[1], int(p[2]), p[3])].append(float(p[5]))
            elif len(p) >= 2 and p[0] == "I":
                info[p[1]] = " ".join(p[2:])
    return runs, info


def med(runs, metric, n, tool):
    v = runs.get((metric, n, tool))
    return statistics.median(v) if v else None


def ms(us):
    return "–" if us is None else f"{us / 1000:.1f}"


def count(v):
    """A count, or a count per interface: whole above 100, one decimal below."""
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}"


def ratio(a, b):
    """How many times b takes a's time (b / a)."""
    if a is None or b is None or a == 0:
        return "–"
    return f"{b / a:.1f}×"


def monitor_table(runs, hz, w):
    """The launch-time monitor's cost: the daemon's CPU with 16 monitored
    queues (1 s, 4 frames) against none, the same daemon and windows."""
    def pct(prefix):
        t = med(runs, f"{prefix}_cpu_ticks", 16, "tbsd")
        wall = med(runs, f"{prefix}_wall_us", 16, "tbsd")
        return None if t is None or not wall else 100.0 * (t / hz) / (wall / 1e6)
    none, mon = pct("monitor_none"), pct("monitor_16")
    if none is None or mon is None:
        return
    rate = med(runs, "monitor_probes_per_s", 16, "tbsd")
    ticks = [int(v) for v in runs.get(("monitor_16_cpu_ticks", 16, "tbsd"), [])]
    ticks0 = [int(v) for v in runs.get(("monitor_none_cpu_ticks", 16, "tbsd"), [])]
    w("### The launch-time monitor (16 queues, every 1 s, 4 frames)")
    w("")
    w("| what | value |")
    w("|---|---:|")
    w(f"| daemon CPU without monitors, % of one CPU (ticks per 10 s window: {', '.join(map(str, ticks0))}) "
      f"| {none:.3f} |")
    w(f"| daemon CPU with 16 monitored queues, % (ticks: {', '.join(map(str, ticks))}) | {mon:.3f} |")
    w(f"| per monitored queue, % of one CPU | {(mon - none) / 16:.4f} |")
    wk0 = med(runs, "monitor_none_wakeups", 16, "tbsd")
    wk = med(runs, "monitor_16_wakeups", 16, "tbsd")
    wall = med(runs, "monitor_16_wall_us", 16, "tbsd")
    if wk0 is not None and wk is not None and wall:
        w(f"| daemon wakeups per second without / with the monitors | {wk0 / (wall / 1e6):.1f} / "
          f"{wk / (wall / 1e6):.1f} |")
    if rate is not None:
        w(f"| probe frames sent per second (16 queues × 4 per second: 64 expected) | {rate:.0f} |")
    rss = med(runs, "vmrss_monitor_kib", 16, "tbsd")
    if rss is not None:
        w(f"| resident memory with the monitors, KiB | {rss:.0f} |")
    w("")


def main():
    runs, info = load(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        machine = [l.rstrip("\n") for l in f if l.strip()]
    out = []
    w = out.append
    n_runs = info.get("runs", "?")

    w("### Machine")
    w("")
    for m in machine:
        w(f"- {m}")
    w(f"- guest: Linux {info.get('kernel', '?')} (user-mode-linux), "
      f"{info.get('guest_nproc', '?')} CPU, {int(info.get('guest_mem_kib', '0')) // 1024} MiB")
    w(f"- {info.get('tc_version', 'tc ?')}; {info.get('interfaces', '')}")
    counts = {n: len(runs.get(("full", n, "tbsd"), [])) for n in SIZES}
    w(f"- medians of {n_runs} runs per cell; tbsd and tc -batch "
      + ", ".join(f"{counts[n]} at N = {n}" for n in SIZES)
      + f" (status: {n_runs} runs × several calls); the tc-per-qdisc script once per cell at N ≥ 64 "
      "(it starts 5 N processes)")
    su = info.get("startup_us", "").split()
    if len(su) == 6:
        w(f"- starting a program in the guest (median of 5, each after the 0.2 s pause every timed "
          f"command gets): `tbsd --help` {int(su[1]) / 1000:.0f} ms, "
          f"`tc -V` {int(su[3]) / 1000:.0f} ms, `/bin/true` {int(su[5]) / 1000:.0f} ms")
    pc = info.get("path_cost", "").split()
    if len(pc) >= 3 and len(pc) % 3 == 0:
        rows = [pc[i:i + 3] for i in range(0, len(pc), 3)]
        w("- one system call in the guest as N interfaces are visited in turn (`bench/path-cost`, "
          "median of 7 rounds): opening an interface's sysfs folder (a path lookup, as tbsd's probe "
          "does once per interface) " + ", ".join(f"{r[1]} µs at N = {r[0]}" for r in rows) +
          "; an ioctl naming the interface " + ", ".join(f"{r[2]} µs" for r in rows))
    if info.get("daemon_env"):
        w(f"- the daemon runs with its unit's environment: `{info['daemon_env']}`")
    w("")

    w("### Full apply (mqprio root + 4 etf children per interface), ms")
    w("")
    w("| N | tbsd --once | tc per qdisc (script) | tc -batch | script / tbsd | tc -batch / tbsd "
      "| tbsd per interface, ms | tbsd per added interface, ms | tc -batch per added interface, ms |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    per_iface = {}
    t1 = med(runs, "full", 1, "tbsd")
    b1 = med(runs, "full", 1, "tc-batch")
    for n in SIZES:
        t, s, b = (med(runs, "full", n, x) for x in ("tbsd", "tc-script", "tc-batch"))
        marg = mb = None
        if n > 1 and t is not None and t1 is not None:
            marg = (t - t1) / (n - 1)
            per_iface[n] = marg
        if n > 1 and b is not None and b1 is not None:
            mb = (b - b1) / (n - 1)
        w(f"| {n} | {ms(t)} | {ms(s)} | {ms(b)} | {ratio(t, s)} | {ratio(t, b)} | "
          f"{'–' if t is None else f'{t / n / 1000:.2f}'} | {'–' if marg is None else f'{marg / 1000:.2f}'} | "
          f"{'–' if mb is None else f'{mb / 1000:.2f}'} |")
    w("")
    w("Ratios above 1× mean tbsd is faster (the tool's time divided by tbsd's). "
      "\"Per added interface\" is (T(N) − T(1)) / (N − 1): the cost of one more interface "
      "without the fixed cost of starting the program, reading its folder and dumping once.")
    w("")

    w("### Re-apply of an unchanged configuration, ms")
    w("")
    w("tbsd dumps, compares and sends nothing. `tc qdisc replace` cannot re-apply "
      "this tree on Linux 6.1 (mqprio and etf have no change operation; measured: "
      f"`{info.get('replace_rerun_exit', '?')}` = exit status and first error of the "
      "script run a second time), so the tc baselines re-run as `tc qdisc del` of the "
      "root followed by the same adds.")
    w("")
    w("| N | tbsd --once | % of tbsd's full apply | tc script (del + add) | tc -batch (del + add) | script / tbsd | tc -batch / tbsd |")
    w("|---:|---:|---:|---:|---:|---:|---:|")
    reapply_pct = {}
    for n in SIZES:
        t, s, b = (med(runs, "reapply", n, x) for x in ("tbsd", "tc-script", "tc-batch"))
        f = med(runs, "full", n, "tbsd")
        pct = None if t is None or not f else 100.0 * t / f
        reapply_pct[n] = pct
        w(f"| {n} | {ms(t)} | {'–' if pct is None else f'{pct:.0f} %'} | {ms(s)} | {ms(b)} | "
          f"{ratio(t, s)} | {ratio(t, b)} |")
    w("")
    dfull = med(runs, "daemon_reload_full", 256, "tbsd")
    dre = med(runs, "daemon_reload", 256, "tbsd")
    dpct = None if dfull is None or dre is None or not dfull else 100.0 * dre / dfull
    oncef = med(runs, "full", 256, "tbsd")
    opct = None if oncef is None or dre is None or not oncef else 100.0 * dre / oncef
    w("The running daemon re-applies without starting, probing or reading unchanged files "
      "(a reload compares each file's stat with the version it read) and without a dump "
      "(rtnetlink notifications keep its view of the trees current), timed in a bus client:")
    w("")
    w("| the daemon, 256 interfaces | ms | unchanged re-apply, % of it |")
    w("|---|---:|---:|")
    w(f"| `Reload()` that applies 255 new schedules (its full apply) | {ms(dfull)} | "
      f"{'–' if dpct is None else f'{dpct:.1f} %'} |")
    w(f"| `tbsd --once` full apply at 256 | {ms(oncef)} | {'–' if opct is None else f'{opct:.1f} %'} |")
    w(f"| `Reload()` with nothing changed | {ms(dre)} | |")
    w("")

    w("### One etf delta changed on every interface, ms")
    w("")
    w("| N | tbsd --once | tc script (1 replace per interface) | tc -batch | script / tbsd | tc -batch / tbsd |")
    w("|---:|---:|---:|---:|---:|---:|")
    for n in SIZES:
        t, s, b = (med(runs, "delta", n, x) for x in ("tbsd", "tc-script", "tc-batch"))
        w(f"| {n} | {ms(t)} | {ms(s)} | {ms(b)} | {ratio(t, s)} | {ratio(t, b)} |")
    w("")

    if runs.get(("full_syscalls", 16, "tbsd")):
        w("### What each tool asks of the kernel at N = 16 (strace -f -c; independent of load)")
        w("")
        w("| case | tool | system calls | netlink sends | processes started |")
        w("|---|---|---:|---:|---:|")
        for case, label in (("full", "full apply"), ("reapply", "unchanged re-apply"), ("delta", "one delta")):
            for tool in ("tbsd", "tc-script", "tc-batch"):
                sc = med(runs, case + "_syscalls", 16, tool)
                ns = med(runs, case + "_nlsends", 16, tool)
                ex = med(runs, case + "_execs", 16, tool)
                if sc is None:
                    continue
                w(f"| {label} | {tool} | {sc:.0f} | {ns:.0f} | {ex:.0f} |")
        w("")
        w("The script's counts include bash's. One netlink send of tbsd carries up to 128 "
          "requests of any interfaces (one ACK per send); tc sends one request per send.")
        w("")

    # tbsd's own work, counted: per added interface, (W(N) - W(1)) / (N - 1).
    work_flat = {}
    if runs.get(("work_instr_full", 1, "tbsd")):
        w("### tbsd's own work per interface, counted (callgrind, strace -f -c; independent of load)")
        w("")
        w("The instructions executed in user space (callgrind's Ir, the program and its libraries, "
          "start-up included) and the system calls of one run at each size, and per added interface "
          "(W(N) − W(1)) / (N − 1) in parentheses. The time a system call takes is the kernel's and "
          "the host's part; these counts are the part tbsd decides.")
        w("")
        w("| N | tbsd full apply: instructions | system calls | tbsd unchanged re-apply: instructions "
          "| system calls | tc -batch full apply: instructions | system calls |")
        w("|---:|---:|---:|---:|---:|---:|---:|")
        cols = (("work_instr_full", "tbsd"), ("work_syscalls_full", "tbsd"),
                ("work_instr_reapply", "tbsd"), ("work_syscalls_reapply", "tbsd"),
                ("work_instr_full", "tc-batch"), ("work_syscalls_full", "tc-batch"))
        for n in SIZES:
            cells = []
            for metric, tool in cols:
                v, v1 = med(runs, metric, n, tool), med(runs, metric, 1, tool)
                if v is None:
                    cells.append("–")
                    continue
                text = f"{v:,.0f}"
                if n > 1 and v1 is not None:
                    per = (v - v1) / (n - 1)
                    work_flat.setdefault((metric, tool), []).append(per)
                    text += f" ({count(per)})"
                cells.append(text)
            w(f"| {n} | " + " | ".join(cells) + " |")
        w("")

    nd = 256
    st = med(runs, "status", nd, "tbsctl")
    man = med(runs, "status", nd, "tc+pmc")
    dps = med(runs, "describe_per_s", nd, "tbsd")
    dfull = med(runs, "daemon_reload_full", nd, "tbsd")
    rss = med(runs, "vmrss_kib", nd, "tbsd")
    hwm = med(runs, "vmhwm_kib", nd, "tbsd")
    rss2 = med(runs, "vmrss_after_idle_kib", nd, "tbsd")
    ticks = med(runs, "idle_cpu_ticks", nd, "tbsd")
    wall = med(runs, "idle_wall_us", nd, "tbsd")
    hz = float(info.get("clk_tck", "100"))
    idle = None if ticks is None or not wall else 100.0 * (ticks / hz) / (wall / 1e6)
    dre = med(runs, "daemon_reload", nd, "tbsd")
    dpct = None if dfull is None or dre is None or not dfull else 100.0 * dre / dfull
    oncef = med(runs, "full", nd, "tbsd")
    opct = None if oncef is None or dre is None or not oncef else 100.0 * dre / oncef

    w(f"### The daemon with {nd} configured interfaces")
    w("")
    w("| what | tbsd | manual way | manual / tbsd |")
    w("|---|---:|---:|---:|")
    w(f"| one interface's facts: `tbsctl status b0` vs `tc -s qdisc show dev b0` + "
      f"`pmc -u -b 0 'GET TIME_STATUS_NP'`, ms | {ms(st)} | {ms(man)} | {ratio(st, man)} |")
    man_rate = None if not man else 1e6 / man
    w(f"| `Describe()` calls per second (one after the other, sd-bus) vs manual looks per second | "
      f"{'–' if dps is None else f'{dps:.0f}'} | {'–' if man_rate is None else f'{man_rate:.0f}'} | "
      f"{'–' if not dps or not man_rate else f'{dps / man_rate:.1f}× more'} |")
    w(f"| `Reload()` that applies {nd - 1} new schedules, ms | {ms(dfull)} | | |")
    w(f"| `Reload()` with nothing changed ({nd} links), ms | {ms(med(runs, 'daemon_reload', nd, 'tbsd'))} | | |")
    w(f"| `Apply()` of one unchanged link, ms | {ms(med(runs, 'daemon_apply_one', nd, 'tbsd'))} | | |")
    w(f"| resident memory VmRSS / VmHWM, KiB | {'–' if rss is None else f'{rss:.0f}'} / "
      f"{'–' if hwm is None else f'{hwm:.0f}'} (after idle: {'–' if rss2 is None else f'{rss2:.0f}'}) | | |")
    ra = med(runs, "rssanon_kib", nd, "tbsd")
    rf = med(runs, "rssfile_kib", nd, "tbsd")
    w(f"| of which anonymous (heap, stacks) / file-backed (the program and its shared libraries), KiB | "
      f"{'–' if ra is None else f'{ra:.0f}'} / {'–' if rf is None else f'{rf:.0f}'} | | |")
    uss = med(runs, "uss_kib", nd, "tbsd")
    pss = med(runs, "pss_kib", nd, "tbsd")
    w(f"| pages only the daemon maps (USS) / its proportional share of all it maps (PSS), KiB | "
      f"{'–' if uss is None else f'{uss:.0f}'} / {'–' if pss is None else f'{pss:.0f}'} | | |")
    w(f"| CPU while idle with the defaults (nobody reads statistics, so none are sampled; "
      f"b0's clock checked every 2 s), % of one CPU, median of windows of "
      f"{'–' if wall is None else f'{wall / 1e6:.0f}'} s | {'–' if idle is None else f'{idle:.3f}'} | | |")
    t2 = med(runs, "idle_metrics_cpu_ticks", nd, "tbsd")
    w2 = med(runs, "idle_metrics_wall_us", nd, "tbsd")
    idle2 = None if t2 is None or not w2 else 100.0 * (t2 / hz) / (w2 / 1e6)
    w(f"| the same with `--metrics-file` (then statistics are sampled every 1 s), % | "
      f"{'–' if idle2 is None else f'{idle2:.3f}'} | | |")
    rss3 = med(runs, "vmrss_metrics_kib", nd, "tbsd")
    w(f"| resident memory with `--metrics-file` (it renders every link's typed samples each second), KiB | "
      f"{'–' if rss3 is None else f'{rss3:.0f}'} | | |")
    w("")
    idle_ticks = runs.get(("idle_cpu_ticks", nd, "tbsd")) or []
    w(f"CPU time is counted in ticks of 1/{hz:.0f} s, so over "
      f"{'–' if wall is None else f'{wall / 1e6:.0f}'} s one tick is "
      f"{'–' if not wall else f'{100.0 / hz / (wall / 1e6):.3f}'} %. Idle CPU is the median of "
      f"{len(idle_ticks)} windows of that length (ticks per window with the defaults: "
      f"{', '.join(str(int(t)) for t in idle_ticks) or '–'}).")
    idle_wakes = runs.get(("idle_wakeups", nd, "tbsd")) or []
    if idle_wakes:
        w(f"The daemon woke up {', '.join(str(int(v)) for v in idle_wakes)} times in those windows "
          "(voluntary context switches: each is a sleep that something ended, a timer or a message).")
    w("")

    monitor_table(runs, hz, w)

    dc = info.get("dump_count", "").split()
    if len(dc) == 6:
        w(f"One RTM_GETQDISC dump with `tcm_ifindex` of one interface set, {nd} interfaces "
          f"configured: {dc[1]} messages ({dc[2]} of other interfaces) plain, {dc[4]} "
          f"({dc[5]} of other interfaces) with NETLINK_GET_STRICT_CHK: the kernel does not "
          "filter qdisc dumps by interface.")
        w("")

    w("### Goals")
    w("")
    w("| goal | measured | met |")
    w("|---|---|---|")

    def goal(text, value, ok):
        w(f"| {text} | {value} | {'yes' if ok else 'no' if ok is not None else '–'} |")

    for n in (64, 256):
        t, s, b = (med(runs, "full", n, x) for x in ("tbsd", "tc-script", "tc-batch"))
        ok = None if None in (t, b) else t <= b
        goal(f"full apply at {n} no slower than tc -batch", f"tbsd {ms(t)} ms, tc -batch {ms(b)} ms", ok)
        ok = None if None in (t, s) else s / t >= 20
        goal(f"full apply at {n} ≥ 20× faster than the tc script", ratio(t, s), ok)
    worst = max((p for p in reapply_pct.values() if p is not None), default=None)
    goal("unchanged re-apply < 5 % of tbsd's full apply: the daemon (`Reload()`, 256 interfaces)",
         "–" if dpct is None else f"{ms(dre)} ms = {dpct:.1f} % of its full apply" +
         ("" if opct is None else f" ({opct:.1f} % of `tbsd --once`'s)"), None if dpct is None else dpct < 5)
    floor = ""
    if len(su) == 6 and oncef:
        floor = (f"; starting the program alone (`tbsd --help`, {int(su[1]) / 1000:.0f} ms) is "
                 f"{100.0 * int(su[1]) / oncef:.0f} % of its full apply at 256")
    goal("unchanged re-apply < 5 % of tbsd's full apply: `tbsd --once` (every N)",
         "; ".join(f"N={n}: {p:.0f} %" for n, p in reapply_pct.items() if p is not None) + floor,
         None if worst is None else worst < 5)
    flat = [per_iface[n] for n in (16, 64, 256) if n in per_iface]
    if len(flat) == 3 and min(flat) <= 0:
        goal("cost per added interface flat from 16 to 256 (within 30 %)",
             ", ".join(f"{v / 1000:.2f}" for v in flat) + " ms at 16, 64, 256: below the run-to-run "
             "noise, not measurable", None)
    elif len(flat) == 3:
        spread = max(flat) / min(flat)
        goal("cost per added interface flat from 16 to 256 (within 30 %): wall clock in this guest",
             ", ".join(f"{v / 1000:.2f}" for v in flat) + f" ms at 16, 64, 256 (max/min {spread:.2f})",
             spread <= 1.3)
    counted = [(label, work_flat.get((metric, "tbsd")))
               for label, metric in (("instructions", "work_instr_full"), ("system calls", "work_syscalls_full"))]
    if all(v is not None and len(v) == 3 and min(v) > 0 for _, v in counted):
        spreads = [max(v) / min(v) for _, v in counted]
        goal("cost per added interface flat from 16 to 256 (within 30 %): tbsd's own work, counted",
             "; ".join(f"{label} {', '.join(count(x) for x in v)} at 16, 64, 256 (max/min {sp:.2f})"
                       for (label, v), sp in zip(counted, spreads)),
             max(spreads) <= 1.3)
    # Judged on the larger of the two readings: right after the last call
    # and after the idle window.
    rss_max = None if rss is None else max(rss, rss2 or 0)
    goal(f"resident memory < 4 MiB at {nd} interfaces",
         "–" if rss is None else f"{rss / 1024:.2f} MiB after the calls, "
         f"{'–' if rss2 is None else f'{rss2 / 1024:.2f}'} MiB after idle (peak {hwm / 1024:.2f} MiB)",
         None if rss_max is None else rss_max < 4096)
    goal("idle CPU < 0.1 %", "–" if idle is None else f"{idle:.3f} %", None if idle is None else idle < 0.1)
    print("\n".join(out))


if __name__ == "__main__":
    main()
