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

# phc_minus_realtime DEV: PHC minus CLOCK_REALTIME in ns, as `phc_ctl DEV
# cmp` measures it (phc_ctl prints CLOCK_REALTIME minus PHC).
phc_minus_realtime() {
        local v
        v=$(phc_ctl "$1" cmp | awk '/offset from CLOCK_REALTIME is/ { v = $NF; sub(/ns$/, "", v); print v }')
        [[ "$v" =~ ^-?[0-9]+$ ]] || fail "phc_ctl $1 cmp gave no offset"
        echo $(( -v ))
}

# port_state [SOCKET]: ptp4l's port state as pmc reads it.
port_state() {
        pmc -u -b 0 ${1:+-s "$1"} 'GET PORT_DATA_SET' | awk '$1 == "portState" { print $2 }'
}

# NIC_EXTRA: the first NIC of another model (qemu-run --nic MODEL), if any.
NIC_EXTRA=${TBS_NIC_EXTRA%% *}
