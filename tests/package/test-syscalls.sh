# Guest script (tests/kernel/uml-run): every system call tbsd makes while it
# works is one the unit's SystemCallFilter= allows (otherwise the sandbox
# would answer EPERM and break it), and tbsd opens only the socket families
# RestrictAddressFamilies= allows. tbsd runs under strace through a start
# with a schedule that has a clock section (clock checks: adjtimex, the ptp4l
# client socket), tbsctl queries, OpenTxtimeSocket() of a packet and a udp4
# socket (socket, bind, setsockopt, the descriptor passed over the bus), a
# privileged apply, a SIGHUP reload, a remove and SIGTERM. Socket families
# the unit's RestrictAddressFamilies= leaves out are refused the way the
# kernel refuses them then (tests/package/restrict-families.c, preloaded).
unit=$TBS_BUILD_DIR/units/tbsd.service
allowed=$TMPDIR/allowed
python3 "$TBS_SOURCE_DIR/tests/package/syscall-allowed.py" "$unit" > "$allowed"
[ "$(wc -l < "$allowed")" -gt 100 ] || fail "allow list too short: $(wc -l < "$allowed")"

conf=$TMPDIR/schedules.d
mkdir -p "$conf"
make_veth sc0 sc0p 4
write_mqprio_schedule "$conf/sc0.json" sc0 200000 500000
# Add a clock section: the clock check reads the TAI offset and talks to ptp4l.
jq '. + {clock: {ptp4l_socket: "/run/ptp4l-sc0"}}' "$conf/sc0.json" > "$conf/sc0.json.new"
mv "$conf/sc0.json.new" "$conf/sc0.json"
chmod 0644 "$conf/sc0.json"
start_system_bus
ptp4l -i sc0 -S -2 --uds_address=/run/ptp4l-sc0 -m >>"$TBS_OUT/ptp4l.log" 2>&1 &
PTP4L_PID=$!

trace=$TMPDIR/trace
unit_families=$(sed -n "s/^RestrictAddressFamilies=//p" "$unit")
[ -n "$unit_families" ] || fail "the unit has no RestrictAddressFamilies="
# restrict-families.so refuses the other families as RestrictAddressFamilies= would.
strace -f -qq -o "$trace" -E LD_PRELOAD="$TBS_BUILD_DIR/tests/package/restrict-families.so" \
        -E TBS_ALLOWED_FAMILIES="$unit_families" "$TBSD" --config-dir "$conf" --log-prefix --clock-interval 0.2 \
        >>"$TBS_OUT/tbsd.log" 2>&1 &
TBSD_PID=$!
wait_until 20 busctl --system get-property org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Version ||
        { cat "$TBS_OUT/tbsd.log"; fail "tbsd did not appear on the bus under strace"; }
wait_until 10 sh -c "\"$TBSCTL\" --json status sc0 | jq -e '.state == \"configured\" or .state == \"degraded\"'" ||
        { cat "$TBS_OUT/tbsd.log"; fail "sc0 not installed"; }
[ "$(tc -j qdisc show dev sc0 | jq -r '.[] | select(.root) | .kind')" = mqprio ] || fail "no mqprio root on sc0"
caps=$("$TBSCTL" --json caps sc0)
assert_eq "$(jq -r .driver <<<"$caps")" veth "driver from ETHTOOL_GDRVINFO"
# ptp4l answers: the clock check gets past "no-ptp4l" to its own measurements.
wait_until 30 sh -c "\"$TBSCTL\" --json clock sc0 | jq -e '.state != \"no-ptp4l\"'" ||
        fail "clock state stays $("$TBSCTL" --json clock sc0 | jq -r .state)"
pass "sc0 installed under strace, clock state $("$TBSCTL" --json clock sc0 | jq -r .state)"
for verb in "list" "status sc0" "caps sc0" "clock sc0" "stats sc0" "metrics" "txtime-params sc0 0" "apply sc0"; do
        # shellcheck disable=SC2086
        "$TBSCTL" $verb >/dev/null 2>&1 || true
done
# Sockets for applications: AF_PACKET and AF_INET, set up and passed on.
client=$TBS_BUILD_DIR/tests/tools/txtime-client
out=$("$client" open sc0 0 packet --protocol 0x88b5 --timestamps) || fail "OpenTxtimeSocket (packet) under strace: $out"
assert_eq "$(jq -r .so_txtime_clockid <<<"$out")" 11 "packet socket with SO_TXTIME under the unit's families"
out=$("$client" open sc0 0 udp4) || fail "OpenTxtimeSocket (udp4) under strace: $out"
assert_eq "$(jq -r .bound_device <<<"$out")" sc0 "udp4 socket under the unit's families"
sleep 1                           # some clock checks
kill -HUP "$(pgrep -P "$TBSD_PID" -x tbsd || echo "$TBSD_PID")"
sleep 0.5
"$TBSCTL" reload >/dev/null || fail "tbsctl reload"
"$TBSCTL" remove sc0 >/dev/null || fail "tbsctl remove"
"$TBSCTL" apply sc0 >/dev/null || true
sleep 0.3
kill -TERM "$(pgrep -P "$TBSD_PID" -x tbsd || echo "$TBSD_PID")"
wait "$TBSD_PID" || fail "tbsd under strace exited $?"
kill "$PTP4L_PID" 2>/dev/null || true

# System call names: "PID name(" or "PID <... name resumed>".
sed -n -e 's/^[0-9]\+ \+\([a-z_0-9]\+\)(.*/\1/p' -e 's/^[0-9]\+ \+<\.\.\. \([a-z_0-9]\+\) resumed>.*/\1/p' "$trace" |
        sort -u > "$TMPDIR/used"
# The TAI offset comes from clock_gettime(): no adjtimex (glibc's is the
# clock_adjtime system call), which ProtectClock= forbids.
grep -qx 'adjtimex\|clock_adjtime' "$TMPDIR/used" && fail "tbsd called adjtimex/clock_adjtime"
grep -qx sendmsg "$TMPDIR/used" || grep -qx sendto "$TMPDIR/used" || fail "no sends traced"
grep -qx execve "$TMPDIR/used" && sed -i '/^execve$/d' "$TMPDIR/used"   # strace starting tbsd, not tbsd
outside=$(comm -23 "$TMPDIR/used" <(sort -u "$allowed"))
[ -z "$outside" ] || fail "system calls outside the unit's filter: $(echo $outside) (used: $(echo $(cat "$TMPDIR/used")))"
pass "$(wc -l < "$TMPDIR/used") distinct system calls, all allowed: $(tr '\n' ' ' < "$TMPDIR/used")"

# Socket families.
families=$(sed -n 's/^[0-9]\+ \+socket(\(AF_[A-Z0-9]\+\),.*/\1/p' "$trace" | sort -u | tr '\n' ' ')
restrict=" $(sed -n 's/^RestrictAddressFamilies=//p' "$unit") "
for f in $families; do
        [[ $restrict == *" $f "* ]] || fail "tbsd opened an $f socket, which RestrictAddressFamilies= refuses"
done
pass "socket families used: $families(allowed:$restrict)"

# File system: ProtectSystem=strict leaves only /run/tbsd (RuntimeDirectory=)
# writable; DevicePolicy=closed + DeviceAllow=char-ptp r leave the pseudo
# devices and /dev/ptp*.
writes=$(grep -E '^[0-9]+ +(openat\(AT_FDCWD, "[^"]*", [^)]*(O_WRONLY|O_RDWR|O_CREAT)|mkdir\(|unlink\(|rename\(|bind\([0-9]+, \{sa_family=AF_UNIX, sun_path="/)' "$trace" |
        grep -o '"/[^"]*"' | tr -d '"' | sort -u)
[ -n "$writes" ] || fail "no writes traced (the ptp4l client binds a socket in /run/tbsd)"
bad=$(grep -v '^/run/tbsd\(/\|$\)' <<<"$writes" || true)
[ -z "$bad" ] || fail "writes outside /run/tbsd, which ProtectSystem=strict refuses: $(echo $bad)"
pass "writes only in /run/tbsd: $(echo $writes)"
devs=$(grep -o 'openat(AT_FDCWD, "/dev/[^"]*"' "$trace" | grep -o '/dev/[^"]*' | sort -u || true)
bad=$(grep -v '^/dev/\(null\|zero\|full\|random\|urandom\|ptp[0-9]*\)$' <<<"$devs" || true)
[ -z "$bad" ] || fail "devices DevicePolicy=closed refuses: $(echo $bad)"
pass "devices opened: ${devs:-none}"
