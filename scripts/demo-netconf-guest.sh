# Runs inside the test kernel for `scripts/demo --netconf` (with
# tests/kernel/lib.sh): tbsd and yuma123's netconfd with tbsd's module
# (docs/netconf.md), sshd on 127.0.0.1:8830, and python3-ncclient as the
# controller: one edit-config + commit of a taprio gate schedule, the
# kernel's tree, tbsctl's view (origin netconf), a refused edit with tbsd's
# reason, and the operational gate state.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
echo "== kernel: $(uname -sr) (user-mode-linux)"
make_veth gw0 gw0p 4
conf=$TMPDIR/conf state=$TMPDIR/state
echo "== tbsd, and netconfd (user tbsnc, no capabilities) behind sshd"
start_tbsd_netconf
nc_gates gw0 1 1000 > "$NC/gw0.xml"
echo "== ncclient: edit-config on candidate, then commit (a 1 ms cycle, two gate entries)"
cat "$NC/gw0.xml"
echo "-> $(client edit "$NC/gw0.xml")"
echo "== tc qdisc show dev gw0 (the kernel)"
tc qdisc show dev gw0 root
echo "== tbsctl status gw0"
"$TBSCTL" status gw0
echo "== ncclient: a cycle shorter than the gate list (0.5 ms): refused, nothing changed"
nc_gates gw0 1 2000 > "$NC/bad.xml"
client edit "$NC/bad.xml"
echo "== ncclient: get of gw0's gate parameter table (operational state)"
client oper gw0
stop_netconf
pass "netconf demo done"
