#!/usr/bin/env python3
"""Compare the D-Bus contract (dbus/org.tsn.Tbs.xml) with what a running tbsd
introspects as (busctl introspect --xml-interface output), interface by
interface: every method with its in/out signatures, every property with its
type and access, every signal with its signature. Prints the differences and
exits 1 when there are any."""
import sys
import xml.etree.ElementTree as ET


def members(root, iface_name):
    out = set()
    for iface in root.iter("interface"):
        if iface.get("name") != iface_name:
            continue
        for m in iface.findall("method"):
            ins = "".join(a.get("type") for a in m.findall("arg") if a.get("direction", "in") == "in")
            outs = "".join(a.get("type") for a in m.findall("arg") if a.get("direction") == "out")
            out.add(f"method {m.get('name')} in={ins} out={outs}")
        for p in iface.findall("property"):
            out.add(f"property {p.get('name')} type={p.get('type')} access={p.get('access')}")
        for s in iface.findall("signal"):
            sig = "".join(a.get("type") for a in s.findall("arg"))
            out.add(f"signal {s.get('name')} sig={sig}")
    return out


def main():
    contract = ET.parse(sys.argv[1]).getroot()
    live = ET.parse(sys.argv[2]).getroot()
    iface = sys.argv[3]
    want, got = members(contract, iface), members(live, iface)
    if not want:
        print(f"contract has no interface {iface}")
        return 1
    missing, extra = sorted(want - got), sorted(got - want)
    for m in missing:
        print(f"{iface}: missing from the daemon: {m}")
    for m in extra:
        print(f"{iface}: not in the contract: {m}")
    if not missing and not extra:
        print(f"{iface}: {len(want)} members match the contract")
    return 1 if missing or extra else 0


if __name__ == "__main__":
    sys.exit(main())
