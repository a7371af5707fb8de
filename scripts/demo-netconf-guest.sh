# Runs inside the test kernel for `scripts/demo --netconf` (with
# tests/kernel/lib.sh): tbsd and yuma123's netconfd with tbsd's module
# (docs/netconf.md), sshd on 127.0.0.1:8830, and python3-ncclient as the
# controller: one edit-config + commit of a taprio gate schedule, the
# kernel's tree, tbsctl's view (origin netconf), a refused edit with tbsd's
# reason that leaves the tree as it was, and the operational gate state.
# What it showed is also left in $TBS_OUT/demo-netconf/ for
# tests/kernel/test-demo-netconf.sh (tests/kernel/demo-claims.txt): the
# tree after the commit and after the refused edit (tc -j), tbsctl --json
# status gw0, and the refused edit's answer.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
echo "== kernel: $(uname -sr) (user-mode-linux)"
make_veth gw0 gw0p 4
conf=$TMPDIR/conf state=$TMPDIR/state
demo=$TBS_OUT/demo-netconf
mkdir -p "$demo"
echo "== tbsd, and netconfd (user tbsnc, no capabilities) behind sshd"
start_tbsd_netconf
nc_gates gw0 1 1000 > "$NC/gw0.xml"
echo "== ncclient: edit-config on candidate, then commit (a 1 ms cycle, two gate entries)"
cat "$NC/gw0.xml"
echo "-> $(client edit "$NC/gw0.xml")"
echo "== tc qdisc show dev gw0 (the kernel)"
tc qdisc show dev gw0 root
tc -j qdisc show dev gw0 root > "$demo/tree-committed.json"
echo "== tbsctl status gw0"
"$TBSCTL" status gw0
"$TBSCTL" --json status gw0 > "$demo/status.json"
echo "== ncclient: a cycle shorter than the gate list (0.5 ms): refused, the tree as it was"
nc_gates gw0 1 2000 > "$NC/bad.xml"
client edit "$NC/bad.xml" | tee "$demo/refused.txt"
tc -j qdisc show dev gw0 root > "$demo/tree-after-refusal.json"
if cmp -s "$demo/tree-committed.json" "$demo/tree-after-refusal.json"; then
        echo "tc qdisc show dev gw0 root: unchanged"
else
        echo "tc qdisc show dev gw0 root: CHANGED"
        tc qdisc show dev gw0 root
fi
echo "== ncclient: get of gw0's gate parameter table (operational state)"
client oper gw0
stop_netconf
pass "netconf demo done"
