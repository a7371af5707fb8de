#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Record raw PTP management datagrams for the unit test fixtures.

  record-ptp-replies.py reply SOCKET OUTDIR NAME=ID[,DOMAIN[,TS]] ...
      Send a GET without data for managementId ID (hex) to ptp4l's Unix
      socket SOCKET and store every datagram that answers it, byte for byte,
      as OUTDIR/NAME.bin (a second answer as NAME-2.bin ...).
  record-ptp-replies.py request SOCKET OUTFILE -- PMC-COMMAND...
      Stand in for ptp4l on SOCKET, run PMC-COMMAND (pmc -u -s SOCKET ...)
      and store the first request datagram it sends as OUTFILE.

The GET is built here with struct.pack, independently of tbsd's encoder,
so the recordings are an oracle for daemon/clock/ptp-mgmt.c rather than its echo.
"""
import os
import socket
import struct
import subprocess
import sys


def build_get(mid, seq, domain=0, ts=0):
    hdr = struct.pack(">BBHBB2sqI8sHHBb",
                      (ts << 4) | 0xD, 2, 54, domain, 0, b"\0\0", 0, 0,
                      b"\0" * 8, os.getpid() & 0xffff, seq, 0x04, 0x7f)
    mgmt = struct.pack(">8sHBBBB", b"\xff" * 8, 0xffff, 0, 0, 0, 0)
    tlv = struct.pack(">HHH", 0x0001, 2, mid)
    msg = hdr + mgmt + tlv
    assert len(msg) == 54
    return msg


def record_replies(path, outdir, specs):
    local = "/run/tbs-record.%d" % os.getpid()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(local)
    try:
        for seq, spec in enumerate(specs, start=1):
            name, args = spec.split("=", 1)
            parts = [int(x, 0) for x in args.split(",")]
            mid = parts[0]
            domain = parts[1] if len(parts) > 1 else 0
            ts = parts[2] if len(parts) > 2 else 0
            s.sendto(build_get(mid, seq, domain, ts), path)
            s.settimeout(1.0)
            n = 0
            while True:
                try:
                    data = s.recv(2048)
                except socket.timeout:
                    break
                seq_got = struct.unpack_from(">H", data, 30)[0]
                if seq_got != seq:
                    continue
                n += 1
                fn = name + (".bin" if n == 1 else "-%d.bin" % n)
                with open(os.path.join(outdir, fn), "wb") as f:
                    f.write(data)
                print("%s: %d bytes %s" % (fn, len(data), data.hex()))
            if n == 0:
                print("%s: no answer" % name)
    finally:
        os.unlink(local)


def record_request(path, outfile, cmd):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if os.path.exists(path):
        os.unlink(path)
    s.bind(path)
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    s.settimeout(5.0)
    data = s.recv(2048)
    with open(outfile, "wb") as f:
        f.write(data)
    print("%s: %d bytes %s" % (outfile, len(data), data.hex()))
    p.wait()
    os.unlink(path)


if __name__ == "__main__":
    if sys.argv[1] == "reply":
        record_replies(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == "request":
        i = sys.argv.index("--")
        record_request(sys.argv[2], sys.argv[3], sys.argv[i + 1:])
    else:
        sys.exit("usage: see the file's doc string")
