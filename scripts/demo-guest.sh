# Runs inside the test kernel for scripts/demo (with tests/kernel/lib.sh):
# one 4-queue veth per example schedule, a ptp4l for each clock profile the
# examples ask for, a private system bus, tbsd with the examples as its
# configuration folder; every link healthy first, then one fault on purpose
# (a ptp4l stopped) that tbsctl monitor reports.
echo "== kernel: $(uname -sr) (user-mode-linux)"
ifaces=$(jq -r .interface "$TBS_SOURCE_DIR"/examples/*.json)
for ifc in $ifaces; do
        make_veth "$ifc" "${ifc:0:10}p" 4
done
echo "== interfaces"
ip -br link show type veth

echo "== tbsctl validate examples/*.json"
"$TBSCTL" validate "$TBS_SOURCE_DIR"/examples/*.json

# Each clock profile (socket, domain, transportSpecific) an example declares
# needs its own ptp4l, as on a gateway that runs 1588 and 802.1AS side by
# side. ptp4l 3.1 has one management socket per instance, so the examples
# that ask for transportSpecific 1 (802.1AS) get a socket of their own here:
# the copies in $TBS_OUT/examples differ from examples/ in that key only.
conf=$TBS_OUT/examples
mkdir -p "$conf"
for f in "$TBS_SOURCE_DIR"/examples/*.json; do
        if [ "$(jq -r '.clock.transport_specific // 0' "$f")" = 1 ]; then
                jq '.clock.ptp4l_socket = "/var/run/ptp4l-gptp"' "$f" > "$conf/${f##*/}"
                echo "(${f##*/}: 802.1AS profile, ptp4l socket /var/run/ptp4l-gptp)"
        else
                cp "$f" "$conf/"
        fi
done

# Grandmasters for the clock checks, software time stamps (veth has no PHC),
# and the kernel's TAI offset set (phc2sys would do that on a gateway).
gm_1588=$(jq -r 'select(.clock and (.clock.transport_specific // 0) == 0) | .interface' "$conf"/*.json | head -1)
gm_gptp=$(jq -r 'select(.clock and .clock.transport_specific == 1) | .interface' "$conf"/*.json | head -1)
echo "== ptp4l on $gm_1588 (1588, transportSpecific 0) and on $gm_gptp (802.1AS, transportSpecific 1);" \
     "software time stamps; TAI offset 37 s"
"$TBS_BUILD_DIR/tests/nic/tai-offset" 37 >/dev/null
# As on a systemd gateway (its sysctl.d/50-default.conf): the kernel's
# default of 10 queued datagrams per Unix socket is too few for the requests
# of three links to one software-time-stamping ptp4l (sendto: EAGAIN).
sysctl -qw net.unix.max_dgram_qlen=512
ptp4l -i "$gm_1588" -S -2 >"$TBS_OUT/ptp4l.log" 2>&1 &
ptp4l -i "$gm_gptp" -S -2 --transportSpecific 1 --uds_address /var/run/ptp4l-gptp \
        >"$TBS_OUT/ptp4l-gptp.log" 2>&1 &
gptp_pid=$!
port_is_master() { pmc -u -b 0 -s "$1" -t "$2" 'GET PORT_DATA_SET' 2>/dev/null | grep -q 'portState *MASTER'; }
wait_until 30 port_is_master /var/run/ptp4l 0 || echo "(ptp4l on $gm_1588 is not MASTER yet)"
wait_until 30 port_is_master /var/run/ptp4l-gptp 1 || echo "(ptp4l on $gm_gptp is not MASTER yet)"

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
echo
echo "== tbsctl list (a healthy gateway)"
"$TBSCTL" list
for ifc in $ifaces; do
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

echo
echo "== a fault on purpose: the 802.1AS ptp4l stops; tbsctl monitor prints the change"
"$TBSCTL" monitor > "$TBS_OUT/monitor.log" 2>&1 &
mon=$!
wait_until 5 grep -q Watching "$TBS_OUT/monitor.log"
kill -TERM "$gptp_pid"
wait "$gptp_pid" 2>/dev/null || true
degraded() { [ "$("$TBSCTL" --json status "$gm_gptp" | jq -r .state)" = degraded ]; }
wait_until 40 degraded || echo "($gm_gptp is not degraded yet)"
wait_until 5 grep -q "$gm_gptp .*State=degraded" "$TBS_OUT/monitor.log" || true
kill "$mon"
cat "$TBS_OUT/monitor.log"
echo
echo "== tbsctl list"
"$TBSCTL" list
kill -TERM "$TBSD_PID"
wait "$TBSD_PID"
