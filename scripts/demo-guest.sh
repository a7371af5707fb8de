# Runs inside the test kernel for scripts/demo (with tests/kernel/lib.sh):
# one 4-queue veth per example schedule; the examples that need hardware a
# veth lacks validated and set aside; a ptp4l for the 1588 clock the others
# declare, a private system bus, tbsd with those examples as its
# configuration folder; every link configured first, then one fault on
# purpose (the ptp4l stopped) that tbsctl monitor reports, on exactly the
# links whose clock it served.
#
# What the demo claims is also left as JSON in $TBS_OUT/demo/ for
# tests/kernel/test-demo.sh, which runs this script and checks each claim
# (tests/kernel/demo-claims.txt):
#   not-applied.json  [{file, interface, device, needs, valid}] set aside;
#                     valid: tbsctl validate --device-caps passed
#   fault.json        {ptp4l_socket, links: the links whose clock it served}
#   list-before.json  tbsctl --json list before the fault
#   list-after.json   tbsctl --json list once the fault's links changed
echo "== kernel: $(uname -sr) (user-mode-linux)"
demo=$TBS_OUT/demo
mkdir -p "$demo"
ifaces=$(jq -r .interface "$TBS_SOURCE_DIR"/examples/*.json)
for ifc in $ifaces; do
        make_veth "$ifc" "${ifc:0:10}p" 4
done
echo "== interfaces"
ip -br link show type veth

echo "== tbsctl validate examples/*.json (each file alone)"
"$TBSCTL" validate "$TBS_SOURCE_DIR"/examples/*.json

# Which examples a veth can run, decided by each example against its veth's
# capabilities (tbsctl validate --device ., the daemon's own device check):
# an example needs hardware when that check refuses it (taprio full offload:
# "taprio_full_offload": false), or when it declares an 802.1AS clock
# ("transport_specific": 1) and the veth has no hardware time stamps
# ("hw_timestamping": false): an 802.1AS time-aware system stamps in the
# PHY/MAC (ptp4l's gPTP.cfg: time_stamping hardware). Those examples are
# set aside and validated against the NIC they are written for instead:
# examples/ names it (DEVICE-*.json) and examples/devices/DEVICE.json is its
# profile (tbsctl validate --device-caps).
conf=$TBS_OUT/examples
mkdir -p "$conf"
echo '[]' > "$demo/not-applied.json"
echo
echo "== the examples against their veth (tbsctl validate --device .)"
for f in "$TBS_SOURCE_DIR"/examples/*.json; do
        name=${f##*/}
        j=$("$TBSCTL" --json validate --device . "$f" || true)
        needs=$(jq -r '[.[0].diagnostics[] | select(.severity == "error") | "\(.path): \(.reason)"] | join("; ")' <<<"$j")
        if [ "$(jq -r '.clock.transport_specific // 0' "$f")" = 1 ] &&
           [ "$(jq -r '.[0].capabilities.hw_timestamping' <<<"$j")" = false ]; then
                needs="${needs:+$needs; }clock.transport_specific: 802.1AS, with hardware time stamps (the veth has software ones only)"
        fi
        if [ -z "$needs" ]; then
                cp "$f" "$conf/"
                echo "$name: applied on $(jq -r .interface "$f") (a veth)"
                continue
        fi
        device=${name%%-*}
        valid=$("$TBSCTL" validate --device-caps "$TBS_SOURCE_DIR/examples/devices/$device.json" "$f" \
                >"$TBS_OUT/validate-$device.log" 2>&1 && echo true || echo false)
        jq --arg file "$name" --arg ifc "$(jq -r .interface "$f")" --arg device "$device" \
           --arg needs "$needs" --argjson valid "$valid" \
           '. + [{file: $file, interface: $ifc, device: $device, needs: $needs, valid: $valid}]' \
           "$demo/not-applied.json" > "$demo/not-applied.json.new"
        mv "$demo/not-applied.json.new" "$demo/not-applied.json"
        if [ "$valid" = true ]; then
                echo "$name: validated for $device, not applied (needs $needs)"
        else
                echo "$name: not applied (needs $needs), and NOT valid for $device: $(cat "$TBS_OUT/validate-$device.log")"
        fi
done

# The grandmaster for the clock checks, with software time stamps (veth has
# no PHC), and the kernel's TAI offset set (phc2sys would do that on a
# gateway).
sock=/var/run/ptp4l
gm=$(jq -r --arg s "$sock" 'select(.clock.ptp4l_socket == $s) | .interface' "$conf"/*.json | head -1)
echo
echo "== ptp4l on $gm (1588), software time stamps; TAI offset 37 s"
"$TBS_BUILD_DIR/tests/nic/tai-offset" 37 >/dev/null
# As on a systemd gateway (its sysctl.d/50-default.conf): the kernel's
# default of 10 queued datagrams per Unix socket is too few for the requests
# of several links to one software-time-stamping ptp4l (sendto: EAGAIN).
sysctl -qw net.unix.max_dgram_qlen=512
ptp4l -i "$gm" -S -2 >"$TBS_OUT/ptp4l.log" 2>&1 &
ptp4l_pid=$!
port_is_master() { pmc -u -b 0 -s "$1" 'GET PORT_DATA_SET' 2>/dev/null | grep -q 'portState *MASTER'; }
wait_until 30 port_is_master "$sock" || echo "(ptp4l on $gm is not MASTER yet)"

echo "== starting a private system bus and tbsd --config-dir $conf"
start_system_bus
# The examples belong to whoever cloned the tree, not necessarily root:
# accept them here (a gateway's /etc/tbsd/schedules.d is root's).
start_tbsd "$conf" --allow-unsafe-files
# The first clock checks settle every link with a clock section.
all_configured() {
        [ "$("$TBSCTL" --json list | jq '[.[] | select(.state != "configured")] | length')" = 0 ]
}
wait_until 30 all_configured || echo "(not every link is configured yet)"
"$TBSCTL" --json list > "$demo/list-before.json"
echo
echo "== tbsctl list (every link configured; clock no-phc: as good as software time stamps allow)"
"$TBSCTL" list
for ifc in $(jq -r '.[].interface' "$demo/list-before.json"); do
        echo
        echo "== tbsctl status $ifc"
        "$TBSCTL" status "$ifc"
done
echo
echo "== tc qdisc show dev veth0 (the kernel's own view)"
tc qdisc show dev veth0
echo
echo "== tbsctl txtime-params veth0 0"
"$TBSCTL" txtime-params veth0 0

# The links whose clock the ptp4l serves: the ones the fault touches.
jq -s --arg s "$sock" '{ptp4l_socket: $s, links: [.[] | select(.clock.ptp4l_socket == $s) | .interface] | sort}' \
        "$conf"/*.json > "$demo/fault.json"
faulted=$(jq -r '.links[]' "$demo/fault.json")
echo
echo "== a fault on purpose: the ptp4l at $sock stops; tbsctl monitor prints the change of the links" \
     "whose clock it served ($(echo $faulted))"
"$TBSCTL" monitor > "$TBS_OUT/monitor.log" 2>&1 &
mon=$!
wait_until 5 grep -q Watching "$TBS_OUT/monitor.log"
kill -TERM "$ptp4l_pid"
wait "$ptp4l_pid" 2>/dev/null || true
faulted_degraded() {
        "$TBSCTL" --json list | jq -e --argjson f "$(jq .links "$demo/fault.json")" \
                '[.[] | select(.interface as $n | $f | index($n)) | select(.state == "degraded")] | length == ($f | length)'
}
wait_until 40 faulted_degraded || echo "(not every link of that ptp4l is degraded yet)"
for ifc in $faulted; do
        wait_until 5 grep -q "$ifc .*State=degraded" "$TBS_OUT/monitor.log" || true
done
kill "$mon"
cat "$TBS_OUT/monitor.log"
"$TBSCTL" --json list > "$demo/list-after.json"
echo
echo "== tbsctl list (the links of the stopped ptp4l degraded, every other link as it was)"
"$TBSCTL" list
kill -TERM "$TBSD_PID"
wait "$TBSD_PID"
