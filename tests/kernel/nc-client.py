#!/usr/bin/python3
# A NETCONF client for the kernel tests (python3-ncclient), over SSH to
# 127.0.0.1:8830 (or the port NC_PORT names) as root (or the user NC_USER
# names) with the key given.
#   nc-client.py KEY edit FILE     edit-config of FILE's <config> on candidate, then commit;
#                                  prints "ok", or "rpc-error: MESSAGE" (and discards the candidate)
#   nc-client.py KEY confirmed FILE [TIMEOUT THEN ARG]  the same with <commit><confirmed/></commit>
#                                  (and <confirm-timeout>TIMEOUT); after "ok" (flushed), THEN:
#                                  "hold SECONDS" keeps the session (netconfd rolls back at the
#                                  timeout), "cancel WAITFILE" or "confirm WAITFILE" waits for
#                                  WAITFILE to exist, then <cancel-commit> or a confirming
#                                  <commit>, printing "ok" or "rpc-error: ..." again
#   nc-client.py KEY validate FILE  edit-config of FILE's <config> on candidate, <validate> of the
#                                  candidate: "ok" or "rpc-error: MESSAGE | path: PATH" per error;
#                                  the candidate is discarded after
#   nc-client.py KEY editconfig FILE  edit-config of FILE's <config> on candidate only: "ok" or "rpc-error: ..."
#   nc-client.py KEY running       the running datastore's interfaces, as XML
#   nc-client.py KEY hello         connect (hello exchanged) and print "session ID"
#   nc-client.py KEY notify SECONDS  create-subscription, print "subscribed", then one line per
#                                  notification of tbsd's module: "NAME leaf=value ..." (flushed),
#                                  for SECONDS at most
#   nc-client.py KEY oper IFACE    <get> of IFACE's gate parameter table: "path value" per leaf,
#                                  the path from the table down, e.g. "oper-gate-states 1",
#                                  "oper-control-list/gate-control-entry[0]/gate-states-value 1"
#   nc-client.py KEY rpc XML       the operation XML (e.g. '<lock><target><running/></target></lock>'):
#                                  "ok", "rpc-error: TAG MESSAGE", or "closed" when the session ended
#   nc-client.py KEY hold SECONDS  open a session, print its session-id, keep it SECONDS
#   nc-client.py KEY candidate     the candidate datastore's interfaces, as XML
#   nc-client.py KEY state IFACE   <get> of IFACE's tbsd state container: "path value" per leaf,
#                                  the path from the container down, e.g. "txqueue[2]/sent-packets 0"
#   nc-client.py KEY cbsa IFACE    <get> of IFACE's 802.1DC cbsa container: "path value" per leaf,
#                                  e.g. "cbsa-parameter-table[2]/oper-idle-slope 30000000"
#   nc-client.py KEY links         <get> of tbsd:links (every link of tbsd): "NAME path value" per
#                                  leaf, e.g. "vf0 origin file"
import os
import sys
import time

from lxml import etree

from ncclient import manager
from ncclient.operations import RPCError


def connect(key):
    return manager.connect(host="127.0.0.1", port=int(os.environ.get("NC_PORT", "8830")), username=os.environ.get("NC_USER", "root"), key_filename=key,
                           hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=120)


def print_errors(e):
    # several rpc-errors come as one RPCError with .errors (and no path of its own)
    for x in getattr(e, "errors", None) or [e]:
        try:
            path = x.path
        except AttributeError:
            path = None
        print("rpc-error:", " ".join((x.message or "").split()), "| path:", path or "", flush=True)


def wait_for(path):
    end = time.monotonic() + 600
    while not os.path.exists(path):
        if time.monotonic() > end:
            sys.exit("%s did not appear within 600 s" % path)
        time.sleep(0.1)


def then(m, action, arg):
    """What the session does after a confirmed commit."""
    if action == "hold":
        time.sleep(float(arg))
        return
    wait_for(arg)
    try:
        if action == "cancel":
            m.cancel_commit()
        else:
            m.commit()
        print("ok", flush=True)
    except RPCError as e:
        print_errors(e)


def main():
    key, verb = sys.argv[1], sys.argv[2]
    with connect(key) as m:
        if verb in ("edit", "confirmed"):
            with open(sys.argv[3]) as f:
                config = f.read()
            timeout = sys.argv[4] if verb == "confirmed" and len(sys.argv) > 4 else None
            try:
                m.edit_config(target="candidate", config=config)
                m.commit(confirmed=verb == "confirmed", timeout=timeout)
                print("ok", flush=True)
            except RPCError as e:
                print_errors(e)
                try:
                    m.discard_changes()
                except RPCError:
                    pass  # a user NACM does not let discard has changed nothing
                return
            if timeout is not None:
                then(m, sys.argv[5], sys.argv[6])
        elif verb == "validate":
            with open(sys.argv[3]) as f:
                config = f.read()
            try:
                m.edit_config(target="candidate", config=config)
                m.validate(source="candidate")
                print("ok")
            except RPCError as e:
                print_errors(e)
            m.discard_changes()
        elif verb == "editconfig":
            with open(sys.argv[3]) as f:
                config = f.read()
            try:
                m.edit_config(target="candidate", config=config)
                print("ok")
            except RPCError as e:
                print("rpc-error:", e.tag, " ".join((e.message or "").split()))
        elif verb == "hello":
            print("session", m.session_id)
        elif verb == "caps":
            for c in m.server_capabilities:
                print("cap", c)
        elif verb == "rpc":
            try:
                m.dispatch(etree.fromstring(sys.argv[3]))
                print("ok")
            except RPCError as e:
                print("rpc-error:", e.tag, " ".join((e.message or "").split()))
            except Exception as e:  # the server ended the session (restart, shutdown)
                print("closed", type(e).__name__)
        elif verb == "hold":
            print(m.session_id, flush=True)
            time.sleep(float(sys.argv[3]))
        elif verb == "candidate":
            filt = '<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"/>'
            print(m.get_config(source="candidate", filter=("subtree", filt)).data_xml)
        elif verb == "running":
            filt = '<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"/>'
            print(m.get_config(source="running", filter=("subtree", filt)).data_xml)
        elif verb == "oper":
            # oper IFACE [NAMESPACE]: the gate table of tbsd's module, or of
            # NAMESPACE (802.1DC's ieee802-dot1dc-sched-if).
            ns = sys.argv[4] if len(sys.argv) > 4 else "urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched"
            filt = ('<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface>'
                    '<name>%s</name><gate-parameter-table xmlns="%s"/>'
                    '</interface></interfaces>' % (sys.argv[3], ns))
            data = m.get(filter=("subtree", filt)).data_ele
            sched = "{%s}" % ns

            def walk_table(node, path):
                for c in node:
                    name = c.tag.split("}")[1]
                    if name == "gate-control-entry":
                        name = "gate-control-entry[%s]" % c.findtext(sched + "index")
                    elif name == "queue-max-sdu-table":
                        name = "queue-max-sdu-table[%s]" % c.findtext(sched + "traffic-class")
                    if len(c) == 0:
                        print(path + name, " ".join((c.text or "").split()))
                    else:
                        walk_table(c, path + name + "/")
            for t in data.iter(sched + "gate-parameter-table"):
                walk_table(t, "")
        elif verb == "state":
            filt = ('<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface>'
                    '<name>%s</name><state xmlns="urn:tsn:tbsd"/></interface></interfaces>' % sys.argv[3])
            data = m.get(filter=("subtree", filt)).data_ele

            def walk(node, path):
                for c in node:
                    name = c.tag.split("}")[1]
                    if name == "txqueue":
                        name = "txqueue[%s]" % c.findtext("{urn:tsn:tbsd}queue")
                    if len(c) == 0:
                        print(path + name, " ".join((c.text or "").split()))
                    else:
                        walk(c, path + name + "/")
            for t in data.iter("{urn:tsn:tbsd}state"):
                walk(t, "")
        elif verb == "cbsa":
            ns = "urn:ieee:std:802.1Q:yang:ieee802-dot1dc-cbsa-if"
            filt = ('<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface>'
                    '<name>%s</name><cbsa xmlns="%s"/></interface></interfaces>' % (sys.argv[3], ns))
            for e in m.get(filter=("subtree", filt)).data_ele.iter("{%s}cbsa-parameter-table" % ns):
                for c in e:
                    print("cbsa-parameter-table[%s]/%s" % (e.findtext("{%s}traffic-class" % ns), c.tag.split("}")[1]),
                          " ".join((c.text or "").split()))
        elif verb == "links":
            data = m.get(filter=("subtree", '<links xmlns="urn:tsn:tbsd"/>')).data_ele
            tbsd = "{urn:tsn:tbsd}"

            def leaves(node, path):
                for c in node:
                    name = c.tag.split("}")[1]
                    if name == "txqueue":
                        name = "txqueue[%s]" % c.findtext(tbsd + "queue")
                    if len(c) == 0:
                        yield path + name, " ".join((c.text or "").split())
                    else:
                        yield from leaves(c, path + name + "/")
            for link in data.iter(tbsd + "link"):
                name = link.findtext(tbsd + "name")
                for path, value in leaves(link, ""):
                    if path != "name":
                        print(name, path, value)
        elif verb == "tree":
            # tree FILTER: <get> with the subtree FILTER; each leaf as
            # "a/b/leaf value", local names.
            def leaves(node, path):
                for c in node:
                    name = path + c.tag.split("}")[1]
                    if len(c) == 0:
                        print(name, " ".join((c.text or "").split()))
                    else:
                        leaves(c, name + "/")
            leaves(m.get(filter=("subtree", sys.argv[3])).data_ele, "")
        elif verb == "notify":
            end = time.monotonic() + float(sys.argv[3])
            m.create_subscription()
            print("subscribed", flush=True)
            while time.monotonic() < end:
                n = m.take_notification(block=True, timeout=max(0.1, end - time.monotonic()))
                if n is None:
                    continue
                for ev in n.notification_ele:
                    if not ev.tag.startswith("{urn:tsn:tbsd}"):
                        continue
                    leaves = ["%s=%s" % (x.tag.split("}")[1], " ".join((x.text or "").split())) for x in ev]
                    print(ev.tag.split("}")[1], " ".join(leaves), flush=True)
        else:
            sys.exit("unknown verb " + verb)


try:
    main()
except Exception as e:  # noqa: BLE001
    if len(sys.argv) > 2 and sys.argv[2] == "rpc":
        print("closed", type(e).__name__)  # the session ended at close (restart, shutdown)
    else:
        raise
