# Helpers for NIC test scripts, sourced after tests/kernel/lib.sh inside
# the QEMU guest (see qemu-run): two Intel 82576 ports driven by igb, each
# with its PTP hardware clock, joined to each other by QEMU's hub.

# NIC0 NIC1: the two igb ports, in PCI order.
read -r NIC0 NIC1 <<<"${TBS_NIC_PORTS:-}"
[ -n "${NIC0:-}" ] && [ -n "${NIC1:-}" ] || fail "two igb ports expected, found '${TBS_NIC_PORTS:-}'"

# ethtool_field DEV KEY: the value after "KEY:" in `ethtool -i DEV`.
ethtool_field() {
        ethtool -i "$1" | awk -F': ' -v k="$2" '$1 == k { print $2 }'
}

# phc_index DEV: the PTP Hardware Clock index `ethtool -T DEV` reports.
phc_index() {
        ethtool -T "$1" | awk -F': ' '/PTP Hardware Clock/ { print $2 }'
}

# phc_seconds DEV: the PHC's time in seconds, as `phc_ctl DEV get` reads it.
phc_seconds() {
        phc_ctl "$1" get | awk '/clock time is/ { print $5 }'
}

# tx_queues DEV: the number of TX queues the kernel shows in sysfs (the
# real number once the device is up; igb shows all 8 while it is down).
tx_queues() {
        find "/sys/class/net/$1/queues" -maxdepth 1 -name 'tx-*' | wc -l
}

# combined_channels DEV: the current "Combined" count of `ethtool -l DEV`.
combined_channels() {
        ethtool -l "$1" | awk '/^Current hardware settings/ { cur = 1 } cur && $1 == "Combined:" { print $2 }'
}
