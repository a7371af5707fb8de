#!/usr/bin/python3
# The timed part of bench/netconf-64.sh (issue 40): one way of giving N
# interfaces their schedules, and taking them away, timed from the request
# to its answer (the trees in place: tbsd answers once applied).
#   netconf-apply.py netconf KEY N ROUNDS   one edit-config of N interfaces + commit, then a
#                                           delete of the N entries + commit, ROUNDS times (one
#                                           NETCONF session over SSH, opened before the clock runs)
#   netconf-apply.py netconf-std KEY N ROUNDS   the same with standard-only entries (issue 48:
#                                           802.1DC's gate-parameter-table, no tbsd node; tbsd
#                                           derives a taprio root), the edit-config and the commit
#                                           timed apart, and each process' CPU time over the commit
#   netconf-apply.py dbus DIR N ROUNDS      ApplySchedule x N (DIR/bI.json), then RemoveSchedule x N
#                                           (python3-dbus, one connection)
#   netconf-apply.py batch DIR N ROUNDS     one ApplySchedules of the N documents, then one of the N
#                                           removals (python3-dbus)
# Prints "R WAY apply|remove N ROUND MICROSECONDS" per measurement; netconf-std
# also "P WAY apply|remove N ROUND edit|commit MICROSECONDS" and
# "C WAY apply|remove N ROUND PROCESS CPU_MS" (user + system, the guest's
# accounting: 10 ms ticks).
import sys
import time

way, arg, n, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
IF_NS = "urn:ietf:params:xml:ns:yang:ietf-interfaces"
TYPE = ('<type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">'
        'ianaift:ethernetCsmacd</type>')


def entry(i):
    # bench/schedule.sh's tree: mqprio, four classes, an etf per queue.
    pm = "".join("<priority-map><priority>%d</priority><traffic-class>%d</traffic-class></priority-map>"
                 % (p, min(p, 3)) for p in range(1, 16))
    qs = "".join("<queues><traffic-class>%d</traffic-class><count>1</count><offset>%d</offset></queues>"
                 % (c, c) for c in range(4))
    tx = "".join("<txqueues><queue>%d</queue><delta-ns>%d</delta-ns><offload>false</offload></txqueues>"
                 % (q, 200000 + 100000 * q) for q in range(4))
    return ('<interface><name>b%d</name>%s<schedule xmlns="urn:tsn:tbsd"><root><handle>100:</handle>'
            '<num-tc>4</num-tc>%s%s</root>%s<allow>ptp-etf</allow></schedule></interface>'
            % (i, TYPE, pm, qs, tx))


DC_NS = "urn:ieee:std:802.1Q:yang:ieee802-dot1dc-sched-if"
SCHED_NS = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched"


def std_entry(i, cycle=(1, 1000)):
    # A controller that knows only the published modules (tests/kernel/test-netconf-standard.sh's
    # XML): two gate entries, 300 us class 0 and 700 us classes 1 and 2, cycle 1 ms; tbsd derives
    # a taprio root of 3 classes.
    gce = "".join("<gate-control-entry><index>%d</index><operation-name>q-sched:set-gate-states</operation-name>"
                  "<gate-states-value>%d</gate-states-value><time-interval-value>%d</time-interval-value>"
                  "</gate-control-entry>" % (k, g, t) for k, (g, t) in enumerate(((1, 300000), (6, 700000))))
    return ('<interface><name>b%d</name>%s<gate-parameter-table xmlns="%s" xmlns:q-sched="%s">'
            '<gate-enabled>true</gate-enabled><admin-control-list>%s</admin-control-list>'
            '<admin-cycle-time><numerator>%d</numerator><denominator>%d</denominator></admin-cycle-time>'
            '<admin-base-time><seconds>0</seconds><nanoseconds>0</nanoseconds></admin-base-time>'
            '</gate-parameter-table></interface>' % ((i, TYPE, DC_NS, SCHED_NS, gce) + cycle))


ROOT_KIND = "taprio" if way == "netconf-std" else "mqprio"
CPU_OF = ("tbsd", "netconfd", "dbus-daemon", "sshd", "tbsd-netconf-su")


def cpu_ticks():
    # user + system clock ticks of the processes named CPU_OF (by comm, every process of a
    # name added up), and this client's own.
    import os
    t = dict.fromkeys(CPU_OF + ("client",), 0)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                st = f.read()
        except OSError:
            continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        if comm in t:
            f = st[st.rindex(")") + 2:].split()
            t[comm] += int(f[11]) + int(f[12])
    own = os.times()
    t["client"] = round((own.user + own.system) * os.sysconf("SC_CLK_TCK"))
    return t


def report_cpu(what, r, before):
    import os
    after = cpu_ticks()
    ms = 1000 / os.sysconf("SC_CLK_TCK")
    for k in after:
        print("C %s %s %d %d %s %.0f" % (way, what, n, r, k, (after[k] - before[k]) * ms), flush=True)


def report(what, r, t0):
    print("R %s %s %d %d %d" % (way, what, n, r, (time.monotonic() - t0) * 1e6), flush=True)
    check(what)


def check(what):
    # Not timed: tc sees every tree (apply) or none (remove).
    import json
    import subprocess
    # iproute2 6.1 leaves taprio's pending admin schedule without its key (tests/kernel/lib.sh's tc_j).
    out = subprocess.run(["tc", "-j", "qdisc", "show"], capture_output=True, check=True, text=True).stdout
    q = json.loads(out.replace(',{"base_time":', ',"admin":{"base_time":'))
    roots = sum(1 for x in q if x.get("root") and x.get("kind") == ROOT_KIND and x["dev"].startswith("b"))
    want = n if what == "apply" else 0
    if roots != want:
        sys.exit("%s %s: %d mqprio roots, not %d" % (way, what, roots, want))


def tbsd_and_documents():
    # tbsd's Manager (python3-dbus, one connection) and the N documents DIR/bI.json.
    import dbus
    bus = dbus.SystemBus()
    mgr = dbus.Interface(bus.get_object("org.tsn.Tbs", "/org/tsn/Tbs"), "org.tsn.Tbs.Manager")
    docs = []
    for i in range(n):
        with open("%s/b%d.json" % (arg, i)) as f:
            docs.append(f.read())
    return mgr, docs


if way in ("netconf", "netconf-std"):
    from ncclient import manager
    one = std_entry if way == "netconf-std" else entry
    add = ('<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces xmlns="%s">%s</interfaces></config>'
           % (IF_NS, "".join(one(i) for i in range(n))))
    dels = "".join('<interface nc:operation="delete"><name>b%d</name></interface>' % i for i in range(n))
    delete = ('<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" '
              'xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces xmlns="%s">%s</interfaces></config>'
              % (IF_NS, dels))
    # netconf-std also commits a change of one interface's cycle (to 6/5000 s) while the N are
    # kept: "change", between the apply and the removal.
    change = ('<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces xmlns="%s">%s</interfaces>'
              '</config>' % (IF_NS, std_entry(0, (6, 5000))))
    commits = (("apply", add), ("change", change), ("remove", delete)) if way == "netconf-std" else \
        (("apply", add), ("remove", delete))
    with manager.connect(host="127.0.0.1", port=8830, username="root", key_filename=arg, hostkey_verify=False,
                         look_for_keys=False, allow_agent=False, timeout=600) as m:
        for r in range(rounds):
            for what, config in commits:
                t0 = time.monotonic()
                m.edit_config(target="candidate", config=config)
                t1 = time.monotonic()
                before = cpu_ticks() if way == "netconf-std" else None
                t2 = time.monotonic()
                m.commit()
                t3 = time.monotonic()
                if before:
                    report_cpu(what, r, before)
                    print("P %s %s %d %d edit %d" % (way, what, n, r, (t1 - t0) * 1e6))
                    print("P %s %s %d %d commit %d" % (way, what, n, r, (t3 - t2) * 1e6), flush=True)
                print("R %s %s %d %d %d" % (way, what, n, r, ((t3 - t2) + (t1 - t0)) * 1e6), flush=True)
                check("remove" if what == "remove" else "apply")
elif way == "batch":
    import dbus
    mgr, texts = tbsd_and_documents()
    names = ["b%d" % i for i in range(n)]
    docs = list(zip(names, texts))
    for r in range(rounds):
        t0 = time.monotonic()
        mgr.ApplySchedules(dbus.Array(docs, signature="(ss)"), dbus.Array([], signature="s"), "bench", timeout=600)
        report("apply", r, t0)
        t0 = time.monotonic()
        mgr.ApplySchedules(dbus.Array([], signature="(ss)"), dbus.Array(names, signature="s"), "bench", timeout=600)
        report("remove", r, t0)
elif way == "dbus":
    mgr, docs = tbsd_and_documents()
    for r in range(rounds):
        t0 = time.monotonic()
        for i in range(n):
            mgr.ApplySchedule("b%d" % i, docs[i], "bench", timeout=600)
        report("apply", r, t0)
        t0 = time.monotonic()
        for i in range(n):
            mgr.RemoveSchedule("b%d" % i, "bench", timeout=600)
        report("remove", r, t0)
else:
    sys.exit("unknown way " + way)
