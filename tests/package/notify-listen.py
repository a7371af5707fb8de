#!/usr/bin/env python3
"""Stand in for systemd's notification socket: bind an AF_UNIX datagram
socket at PATH and append every message received to LOG, one line per
assignment, until killed."""
import os
import socket
import sys

path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(log, "a", buffering=1) as f:
    print("listening", file=f)
    while True:
        data = s.recv(4096).decode("utf-8", "replace")
        for line in data.splitlines():
            f.write(line + "\n")
