# tbsd's clock check against a real ptp4l slave, subscribed to its
# notifications (SUBSCRIBE_EVENTS_NP), with linuxptp from the folder given
# as the argument: / for the host's 3.1.1 (Debian 12), the unpacked 4.2 of
# tests/kernel/prepare-linuxptp4 (Debian 13). A master ptp4l in namespace m
# serves two veth pairs; on the root side a slave ptp4l per pair, each the
# clock of one tbsd link. The master is stopped and started twice: four
# state changes (port SLAVE -> LISTENING -> SLAVE, twice), which both links
# must follow as pmc sees them; after each return to SLAVE the clock stays
# there for five seconds of ptp4l's summaries. The management requests tbsd sent over the
# same span are counted twice: by strace on tbsd (the oracle: every sendto,
# its destination and its managementId; one TIME_PROPERTIES_DATA_SET per
# check, so it also counts the checks) and by Describe's
# clock.ptp4l_requests, which must agree:
# - 4.2: link a0 asks the slave's read-only socket, which refuses the
#   subscription (NOT_SUPPORTED): it polls, six requests a check. Link b0
#   asks the read-write socket: notifications; it must need far fewer.
# - 3.1.1 has no read-only socket; both links are subscribed (3.1.1 sends
#   port states, not TIME_SYNC), and each needs fewer than polling would
#   (six per check, as strace counts the checks).
root=${1:?usage: test-daemon-clock-notify.sh LINUXPTP_ROOT}
PTP4L=${root%/}/usr/sbin/ptp4l
PMC=${root%/}/usr/sbin/pmc
[ -x "$PTP4L" ] || fail "no ptp4l at $PTP4L"
version=$("$PTP4L" -v)
echo "linuxptp $version from $root"
case "$version" in
3.*) ro=0 ;;
*) ro=1 ;;
esac

"$TBS_BUILD_DIR/tests/nic/tai-offset" 37 >/dev/null || fail "cannot set the kernel TAI offset"
ip netns add m
ip -n m link set lo up
conf=$TMPDIR/conf
mkdir -p "$conf"
# fast announces and syncs: the slave notices a lost master in 1.5 s
PTP_OPTS=(-S -2 --logAnnounceInterval=-1 --announceReceiptTimeout=3 --logSyncInterval=-1)
for l in a0 b0; do
        make_veth "$l" "${l}p" 4
        ip link set "${l}p" netns m
        ip -n m link set "${l}p" up
        write_mqprio_schedule "$conf/$l.json" "$l" 200000 500000
done
sock_a=/run/ptp4l-a0
[ "$ro" = 1 ] && sock_a=/run/ptp4l-a0-ro
for l in a0 b0; do
        s=/run/ptp4l-$l
        [ "$l" = a0 ] && s=$sock_a
        jq --arg s "$s" '. + {"clock": {"ptp4l_socket": $s, "max_master_offset_ns": 1000000000}}' \
                "$conf/$l.json" > "$conf/$l.tmp" && mv "$conf/$l.tmp" "$conf/$l.json"
done

start_master() {
        ip netns exec m "$PTP4L" -i a0p -i b0p "${PTP_OPTS[@]}" --uds_address=/run/ptp4l-m -m \
                >>"$TBS_OUT/master.log" 2>&1 &
        MASTER_PID=$!
}
declare -A SLAVE_PID
for l in a0 b0; do
        extra=()
        [ "$ro" = 1 ] && extra=(--uds_ro_address="/run/ptp4l-$l-ro")
        "$PTP4L" -i "$l" -s "${PTP_OPTS[@]}" --uds_address="/run/ptp4l-$l" "${extra[@]}" -m \
                >>"$TBS_OUT/slave-$l.log" 2>&1 &
        SLAVE_PID[$l]=$!
done
start_master

port_state() { "$PMC" -u -b 0 -s "/run/ptp4l-$1" 'GET PORT_DATA_SET' | awk '$1 == "portState" { print $2 }'; }
clock() { "$TBSCTL" --json clock "$1"; }
clock_is() { [ "$(clock "$1" | jq -r .state)" = "$2" ]; }
# both links follow: state and the port state pmc sees
both() {
        local l
        for l in a0 b0; do
                clock_is "$l" "$1" || return 1
                [ "$(clock "$l" | jq -r .port_state)" = "$2" ] || return 1
        done
        [ "$(port_state a0)" = "$2" ] && [ "$(port_state b0)" = "$2" ]
}

start_system_bus
start_tbsd "$conf" --clock-interval 0.5
wait_until 60 both no-phc SLAVE || fail "links not no-phc/SLAVE: $(clock a0) $(clock b0)"
pass "both links follow their slave to SLAVE"

# Which socket each link used, and how its news come.
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json clock b0 | jq -r .ptp4l_updates)\" = notifications ]" ||
        fail "b0 not subscribed: $(clock b0)"
assert_eq "$(clock b0 | jq -r .ptp4l_socket_used)" /run/ptp4l-b0 "b0's socket"
assert_eq "$(clock a0 | jq -r .ptp4l_socket_used)" "$sock_a" "a0's socket"
grep -q "b0: clock check asks ptp4l on /run/ptp4l-b0" "$TBS_OUT/tbsd.log" || fail "the log does not name b0's socket"
grep -q "b0: ptp4l on /run/ptp4l-b0 sends notifications" "$TBS_OUT/tbsd.log" || fail "the log does not say b0 is subscribed"
"$TBSCTL" clock b0 | grep -q "ptp4l socket: /run/ptp4l-b0 (notifications, " || fail "tbsctl clock: $("$TBSCTL" clock b0)"
if [ "$ro" = 1 ]; then
        assert_eq "$(clock a0 | jq -r .ptp4l_updates)" polling "a0 on the read-only socket"
        grep -q "a0: ptp4l on $sock_a refuses SUBSCRIBE_EVENTS_NP (NOT_SUPPORTED): polling" "$TBS_OUT/tbsd.log" ||
                fail "the log does not say a0's ptp4l refused"
fi
pass "sockets and updates: a0 $(clock a0 | jq -c '[.ptp4l_socket_used, .ptp4l_updates]'), b0 $(clock b0 | jq -c '[.ptp4l_socket_used, .ptp4l_updates]')"

req() { clock "$1" | jq -r .ptp4l_requests; }
strace -f -qq -e trace=sendto -e signal=none -xx -s 200 -o "$TBS_OUT/sendto.strace" -p "$TBSD_PID" &
STRACE_PID=$!
wait_until 10 grep -q sendto "$TBS_OUT/sendto.strace" || fail "strace sees no sendto of tbsd"
a_start=$(req a0)
b_start=$(req b0)
n_start=$(clock b0 | jq -r .ptp4l_notifications)
t_start=$(date +%s%N)
strace_mark=$(wc -l < "$TBS_OUT/sendto.strace")
for cycle in 1 2; do
        kill "$MASTER_PID"
        wait "$MASTER_PID" 2>/dev/null || true
        wait_until 20 both unsynced LISTENING || fail "cycle $cycle: not LISTENING: $(clock a0) $(clock b0)"
        start_master
        wait_until 60 both no-phc SLAVE || fail "cycle $cycle: not SLAVE again: $(clock a0) $(clock b0)"
        pass "cycle $cycle: both links followed SLAVE -> LISTENING -> SLAVE"
        # A clock spends its life in SLAVE: stay there for 5 of the slave's
        # once-a-second summaries (its own log is the clock).
        n0=$(grep -c "rms" "$TBS_OUT/slave-b0.log")
        wait_until 20 sh -c "[ \$(grep -c rms '$TBS_OUT/slave-b0.log') -ge $((n0 + 5)) ]" ||
                fail "cycle $cycle: the slave's ptp4l logs no summaries"
done
t_ms=$(( ($(date +%s%N) - t_start) / 1000000 ))
a=$(( $(req a0) - a_start ))
b=$(( $(req b0) - b_start ))
n=$(( $(clock b0 | jq -r .ptp4l_notifications) - n_start ))
strace_end=$(wc -l < "$TBS_OUT/sendto.strace")
kill "$STRACE_PID"
wait "$STRACE_PID" 2>/dev/null || true
# per socket: "requests checks" from strace's lines between the marks
# (action byte 46, managementId bytes 52-53 of each datagram)
strace_count() {
        sed -n "$((strace_mark + 1)),${strace_end}p" "$TBS_OUT/sendto.strace" | python3 -c '
import re, sys
sock = sys.argv[1]
req = checks = 0
ids = {}
for line in sys.stdin:
    m = re.search(r"sendto\(\d+, \"((?:\\x[0-9a-f]{2})+)\".*sun_path=\"((?:\\x[0-9a-f]{2})+)\"", line)
    if not m or "= -1" in line:
        continue
    b, path = (bytes(int(h, 16) for h in g.split("\\x")[1:]) for g in m.groups())
    if path.decode() != sock:
        continue
    req += 1
    if b[46] & 0x0f == 0 and b[52:54] == b"\x20\x03":
        checks += 1
    key = ("SET " if b[46] & 0x0f == 1 else "") + b[52:54].hex()
    ids[key] = ids.get(key, 0) + 1
print(req, checks)
print(sock, sorted(ids.items()), file=sys.stderr)' "$1" 2>>"$TBS_OUT/counts"
}
read -r sa ca <<<"$(strace_count "$sock_a")"
read -r sb cb <<<"$(strace_count /run/ptp4l-b0)"
echo "linuxptp $version: 4 state changes in $t_ms ms: a0 $a requests ($sa by strace, $ca checks), b0 $b requests ($sb by strace, $cb checks), $n notifications to b0"
echo "linuxptp $version: a0 $a/$sa/$ca b0 $b/$sb/$cb notifications $n ms $t_ms" >> "$TBS_OUT/counts"
# strace and Describe agree, give or take a check that spans a mark
for x in "a0 $a $sa $ca" "b0 $b $sb $cb"; do
        read -r l d st c <<<"$x"
        [ "$c" -ge 10 ] || fail "$l: strace saw only $c checks in $t_ms ms"
        [ $(( d - st )) -le 7 ] && [ $(( st - d )) -le 7 ] || fail "$l: Describe says $d requests, strace $st"
done
[ "$n" -ge 4 ] || fail "b0 got $n notifications for 4 port state changes"
if [ "$ro" = 1 ]; then
        [ "$sa" -ge $(( 6 * ca )) ] || fail "a0 (polling) sent $sa requests in $ca checks, not six each"
        [ $(( sb * 2 )) -le "$sa" ] || fail "b0 (notifications) sent $sb requests, a0 (polling) $sa: not half"
        [ $(( sb * 2 )) -le $(( 6 * cb )) ] || fail "b0 sent $sb requests in $cb checks: polling sends $(( 6 * cb ))"
        pass "4.x over the same 4 state changes: notifications $sb requests in $cb checks, polling $sa in $ca"
else
        for x in "a0 $sa $ca" "b0 $sb $cb"; do
                read -r l st c <<<"$x"
                [ $(( st * 2 )) -le $(( 6 * c )) ] ||
                        fail "3.1.1: $l sent $st requests in $c checks, polling sends $(( 6 * c ))"
        done
        pass "3.1.1: $sa and $sb requests in $ca and $cb checks, where polling sends six a check"
fi

# ptp4l gone: no-ptp4l within the bound of a check, subscribed or not.
kill "${SLAVE_PID[b0]}"
wait_until 5 clock_is b0 no-ptp4l || fail "b0 not no-ptp4l after its ptp4l stopped: $(clock b0)"
assert_eq "$(clock b0 | jq -r .ptp4l_updates)" polling "b0 after its ptp4l stopped"
pass "b0 no-ptp4l when its ptp4l is gone"
