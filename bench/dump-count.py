#!/usr/bin/python3
# How many RTM_NEWQDISC messages one RTM_GETQDISC dump with tcm_ifindex set
# returns, without and with NETLINK_GET_STRICT_CHK: whether the kernel
# filters qdisc dumps by interface (Linux 6.1 does not). Part of bench/run.
#   dump-count.py IFACE  ->  "plain TOTAL OTHER strict TOTAL OTHER"
import socket, struct, sys
NETLINK_GET_STRICT_CHK = 12
RTM_GETQDISC = 38; RTM_NEWQDISC = 36
def dump(ifindex, strict):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
    if strict: s.setsockopt(270, NETLINK_GET_STRICT_CHK, 1)
    s.bind((0, 0))
    tcm = struct.pack("BxxxiIII", 0, ifindex, 0, 0, 0)
    hdr = struct.pack("IHHII", 16 + len(tcm), RTM_GETQDISC, 0x301, 1, 0)
    s.send(hdr + tcm)
    n = 0; other = 0
    while True:
        d = s.recv(65536)
        off = 0; done = False
        while off < len(d):
            l, t, f, seq, pid = struct.unpack_from("IHHII", d, off)
            if t == 3: done = True; break
            if t == 2: print("error", struct.unpack_from("i", d, off+16)); done = True; break
            if t == RTM_NEWQDISC:
                idx = struct.unpack_from("i", d, off + 20)[0]
                n += 1
                if idx != ifindex: other += 1
            off += (l + 3) & ~3
        if done: break
    return n, other
idx = socket.if_nametoindex(sys.argv[1])
print("plain %d %d strict %d %d" % (dump(idx, False) + dump(idx, True)))
