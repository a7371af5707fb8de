#!/usr/bin/python3
# A NETCONF client for the kernel tests (python3-ncclient), over SSH to
# 127.0.0.1:8830 as root with the key given.
#   nc-client.py KEY edit FILE     edit-config of FILE's <config> on candidate, then commit;
#                                  prints "ok", or "rpc-error: MESSAGE" (and discards the candidate)
#   nc-client.py KEY running       the running datastore's interfaces, as XML
#   nc-client.py KEY oper IFACE    <get> of IFACE's gate parameter table: "leaf value" per leaf
import sys

from ncclient import manager
from ncclient.operations import RPCError


def connect(key):
    return manager.connect(host="127.0.0.1", port=8830, username="root", key_filename=key,
                           hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=120)


def main():
    key, verb = sys.argv[1], sys.argv[2]
    with connect(key) as m:
        if verb == "edit":
            with open(sys.argv[3]) as f:
                config = f.read()
            try:
                m.edit_config(target="candidate", config=config)
                m.commit()
                print("ok")
            except RPCError as e:
                print("rpc-error:", " ".join((e.message or "").split()), "| path:", e.path or "")
                m.discard_changes()
        elif verb == "running":
            filt = '<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"/>'
            print(m.get_config(source="running", filter=("subtree", filt)).data_xml)
        elif verb == "oper":
            filt = ('<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface>'
                    '<name>%s</name><gate-parameter-table xmlns="urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched"/>'
                    '</interface></interfaces>' % sys.argv[3])
            data = m.get(filter=("subtree", filt)).data_ele
            for t in data.iter("{urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched}gate-parameter-table"):
                for leaf in t:
                    if len(leaf) == 0:
                        print(leaf.tag.split("}")[1], (leaf.text or "").strip())
        else:
            sys.exit("unknown verb " + verb)


main()
