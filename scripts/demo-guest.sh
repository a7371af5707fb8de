# Runs inside the test kernel for scripts/demo (with tests/kernel/lib.sh):
# one 4-queue veth per example schedule, a private system bus, tbsd with
# examples/ as its configuration folder, then tbsctl status for each.
echo "== kernel: $(uname -sr) (user-mode-linux)"
ifaces=$(jq -r .interface "$TBS_SOURCE_DIR"/examples/*.json)
for ifc in $ifaces; do
        make_veth "$ifc" "${ifc:0:10}p" 4
done
echo "== interfaces"
ip -br link show type veth

echo "== tbsctl validate examples/*.json"
"$TBSCTL" validate "$TBS_SOURCE_DIR"/examples/*.json

# A grandmaster for the i210 example's clock checks: ptp4l on enp1s0 with
# software time stamps (veth has no PHC), and the kernel's TAI offset set
# (phc2sys would do that on a gateway).
echo "== ptp4l on enp1s0 (software time stamps) as the grandmaster; TAI offset 37 s"
"$TBS_BUILD_DIR/tests/nic/tai-offset" 37 >/dev/null
ptp4l -i enp1s0 -S -2 >"$TBS_OUT/ptp4l.log" 2>&1 &
port_is_master() { pmc -u -b 0 'GET PORT_DATA_SET' 2>/dev/null | grep -q 'portState *MASTER'; }
wait_until 30 port_is_master || echo "(ptp4l is not MASTER yet)"

echo "== starting a private system bus and tbsd --config-dir examples/"
start_system_bus
# The examples belong to whoever cloned the tree, not necessarily root:
# accept them here (a gateway's /etc/tbsd/schedules.d is root's).
start_tbsd "$TBS_SOURCE_DIR/examples" --allow-unsafe-files
sleep 3   # let the first clock checks finish
for ifc in $ifaces; do
        echo
        echo "== tbsctl status $ifc"
        "$TBSCTL" status "$ifc"
done
echo
echo "== tbsctl list"
"$TBSCTL" list
echo
echo "== tc qdisc show dev veth0 (the kernel's own view)"
tc qdisc show dev veth0
echo
echo "== tbsctl txtime-params veth0 0"
"$TBSCTL" txtime-params veth0 0
kill -TERM "$TBSD_PID"
wait "$TBSD_PID"
