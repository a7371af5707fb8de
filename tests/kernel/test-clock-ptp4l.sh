# tbsd's clock check against real ptp4l: master and slave with software time
# stamping (-S) over a veth pair in two network namespaces. tests/tools/
# clock-probe runs the daemon's own code (native management client, state
# rules) and its figures are compared with pmc on the same socket. Then the
# slave's ptp4l is killed and the running check must turn to no-ptp4l.
# With an argument, linuxptp from that folder (tests/kernel/linuxptp4-run
# passes the unpacked 4.2) instead of the host's 3.1.1.
if [ -n "${1:-}" ]; then
        PATH=${1%/}/usr/sbin:$PATH
        echo "linuxptp $(ptp4l -v) from $1"
fi
PROBE=$TBS_BUILD_DIR/tests/tools/clock-probe
[ -x "$PROBE" ] || fail "$PROBE not built"

make_ptp_netns_pair

# The master keeps ptp4l's default socket, /var/run/ptp4l (/run/ptp4l here).
ip netns exec m ptp4l -i p0 -S -2 -m >"$TBS_OUT/master.log" 2>&1 &
master_pid=$!
ip netns exec s ptp4l -i p1 -S -s -2 --uds_address=/run/ptp4l-s -m >"$TBS_OUT/slave.log" 2>&1 &
slave_pid=$!

# pmc_field SOCKET DATASET FIELD: one field of pmc's answer.
pmc_field() {
        pmc -u -b 0 -s "$1" "GET $2" | awk -v f="$3" '$1 == f { print $2; exit }'
}
is_slave() { [ "$(pmc_field /run/ptp4l-s PORT_DATA_SET portState)" = SLAVE ]; }
wait_until 60 is_slave || fail "slave port $(pmc_field /run/ptp4l-s PORT_DATA_SET portState) after 60 s"
pass "slave port reached SLAVE"

# --- 1. port state, master offset and grandmaster against pmc -------------
# ptp4l's master_offset changes with every Sync (once a second), and in the
# guest one round of pmc + probe + pmc can take longer than that. So each
# reading is tied to the Sync it comes from by TIME_STATUS_NP's ingress_time:
# the probe's (ingress_time, master_offset) pair must equal the pmc reading
# taken just before or just after it that has the same ingress_time, exactly.
# If both pmc readings belong to other Syncs (two updates in between), try
# again; the port state must match pmc's exactly every time.
# pmc_time_status SOCKET: "ingress_time master_offset gmPresent gmIdentity"
pmc_time_status() {
        pmc -u -b 0 -s "$1" 'GET TIME_STATUS_NP' |
                awk '$1 == "ingress_time" { it = $2 } $1 == "master_offset" { mo = $2 }
                     $1 == "gmPresent" { gp = $2 } $1 == "gmIdentity" { gi = $2 }
                     END { print it, mo, gp, gi }'
}
matched=0
for attempt in 1 2 3 4 5 6 7 8; do
        st_before=$(pmc_field /run/ptp4l-s PORT_DATA_SET portState)
        read -r it_before mo_before _ _ <<<"$(pmc_time_status /run/ptp4l-s)"
        json=$("$PROBE" --socket /run/ptp4l-s)
        read -r it_after mo_after gp_after gi_after <<<"$(pmc_time_status /run/ptp4l-s)"
        st_after=$(pmc_field /run/ptp4l-s PORT_DATA_SET portState)
        echo "attempt $attempt: pmc before $st_before $it_before/$mo_before; probe $json; pmc after $st_after $it_after/$mo_after"
        st=$(jq -r .port_state <<<"$json")
        mo=$(jq -r .master_offset_ns <<<"$json")
        # not jq: it reads numbers as doubles, and ingress times need 61 bits
        it=$(sed -n 's/.*"ingress_time_ns":\(-\{0,1\}[0-9]*\).*/\1/p' <<<"$json")
        [ "$st_before" = "$st_after" ] || continue
        assert_eq "$st" "$st_before" "port state vs pmc"
        if [ "$it" = "$it_before" ]; then
                assert_eq "$mo" "$mo_before" "master offset vs pmc's reading of the same Sync (before)"
                matched=1
        elif [ "$it" = "$it_after" ]; then
                assert_eq "$mo" "$mo_after" "master offset vs pmc's reading of the same Sync (after)"
                matched=1
        fi
        [ "$matched" = 1 ] && break
done
[ "$matched" = 1 ] || fail "no probe reading shared a Sync with a pmc reading in 8 attempts"
pass "port state $st and master offset $mo ns agree with pmc"
echo "$json" > "$TBS_OUT/probe-slave.json"

assert_eq "$(jq -r .gm_present <<<"$json")" "$gp_after" "gm_present vs pmc"
assert_eq "$(jq -r .gm_identity <<<"$json")" "$gi_after" "gm_identity vs pmc"
# the public keys, exactly (plus the probe's own ingress_time_ns)
assert_eq "$(jq -c 'del(.ingress_time_ns) | keys_unsorted' <<<"$json")" \
        '["state","reason","port_state","master_offset_ns","mean_path_delay_ns","gm_present","gm_identity","steps_removed","phc_sys_offset_ns","phc_offset_method","tai_offset_s","checked_at"]' \
        "clock JSON keys"
assert_eq "$(jq -r .steps_removed <<<"$json")" "$(pmc_field /run/ptp4l-s CURRENT_DATA_SET stepsRemoved)" "steps_removed vs pmc"
assert_eq "$(jq -r .gm_identity <<<"$json")" "$(pmc_field /var/run/ptp4l PARENT_DATA_SET grandmasterIdentity)" "grandmaster is the master's clock"
# veth: no PHC, so no PHC figures
assert_eq "$(jq -r .phc_sys_offset_ns <<<"$json")" null "phc_sys_offset_ns without a PHC"
assert_eq "$(jq -r .tai_offset_s <<<"$json")" 0 "kernel TAI offset before it is set"

# With the default 100 ns limit and the TAI offset unset, the state is
# unsynced, and the reason names the first rule that failed.
assert_eq "$(jq -r .state <<<"$json")" unsynced "state with TAI offset unset"
reason=$(jq -r .reason <<<"$json")
if [ "${mo#-}" -gt 100 ]; then
        assert_eq "$reason" "master offset $mo ns exceeds 100 ns" "reason"
else
        assert_eq "$reason" "kernel TAI offset is 0 (unset)" "reason"
fi

# --- 2. the master side, found at the default socket path -----------------
json=$("$PROBE")
echo "master: $json"
assert_eq "$(jq -r .port_state <<<"$json")" "$(pmc_field /var/run/ptp4l PORT_DATA_SET portState)" "master port state vs pmc"
assert_eq "$(jq -r .port_state <<<"$json")" MASTER "master port state"
assert_eq "$(jq -r .gm_present <<<"$json")" false "gm_present on the grandmaster"

# --- 3. TAI offset set, generous offset limit: no PHC -> no-phc ------------
# adjtimex(ADJ_TAI) through libc; struct timex: modes at 0, constant at 48.
python3 - <<'EOF'
import ctypes, struct
buf = ctypes.create_string_buffer(256)
struct.pack_into("i", buf, 0, 0x80)       # ADJ_TAI
struct.pack_into("q", buf, 48, 37)        # constant = new TAI offset
if ctypes.CDLL(None, use_errno=True).adjtimex(buf) < 0:
    raise SystemExit("adjtimex(ADJ_TAI) failed: errno %d" % ctypes.get_errno())
EOF
json=$("$PROBE" --socket /run/ptp4l-s --max-master-offset 1000000000)
echo "tai set: $json"
assert_eq "$(jq -r .tai_offset_s <<<"$json")" 37 "kernel TAI offset after ADJ_TAI"
assert_eq "$(jq -r .state <<<"$json")" no-phc "state without a PHC"
assert_contains "$(jq -r .reason <<<"$json")" "software time stamping only: PHC checks skipped" "no-phc reason"
assert_eq "$(jq -r .phc_offset_method <<<"$json")" null "phc_offset_method without a PHC"

# --- 4. a ptp4l that does not answer, and no socket at all ----------------
json=$("$PROBE" --socket /run/ptp4l-s --domain 5)
echo "domain 5: $json"
assert_eq "$(jq -r .state <<<"$json")" no-ptp4l "state when ptp4l ignores the domain"
assert_contains "$(jq -r .reason <<<"$json")" "no answer from ptp4l on /run/ptp4l-s" "timeout reason"
json=$("$PROBE" --socket /run/ptp4l-s --transport-specific 1)
assert_eq "$(jq -r .state <<<"$json")" no-ptp4l "state when ptp4l ignores transportSpecific 1"
json=$("$PROBE" --socket /run/no-such-ptp4l)
assert_eq "$(jq -r .reason <<<"$json")" "no ptp4l socket at /run/no-such-ptp4l" "missing socket reason"

# --- 5. the running check sees the slave's ptp4l stop -----------------------
"$PROBE" --socket /run/ptp4l-s --max-master-offset 1000000000 --interval-ms 200 \
        --until no-ptp4l --max-seconds 30 >"$TBS_OUT/watch.log" 2>&1 &
watch_pid=$!
first_line() { [ -s "$TBS_OUT/watch.log" ]; }
wait_until 10 first_line || fail "the watching probe printed nothing"
first=$(head -n1 "$TBS_OUT/watch.log")
assert_eq "$(jq -r .state <<<"$first")" no-phc "state before ptp4l stops"

kill "$slave_pid"
wait "$slave_pid" 2>/dev/null || true
if ! wait "$watch_pid"; then
        cat "$TBS_OUT/watch.log"
        fail "the check did not turn to no-ptp4l"
fi
cat "$TBS_OUT/watch.log"
last=$(tail -n1 "$TBS_OUT/watch.log")
assert_eq "$(jq -r .state <<<"$last")" no-ptp4l "state after ptp4l stopped"
[ "$(wc -l < "$TBS_OUT/watch.log")" -ge 2 ] || fail "expected a state change line after the first"
pass "state change to no-ptp4l reported by the change callback"
reason=$(jq -r .reason <<<"$last")
case "$reason" in
"no ptp4l socket at /run/ptp4l-s"|"nothing listens on /run/ptp4l-s (ptp4l not running)")
        pass "no-ptp4l reason: $reason" ;;
*) fail "unexpected no-ptp4l reason: $reason" ;;
esac
assert_eq "$(jq -r .port_state <<<"$last")" null "port_state once ptp4l is gone"

# --- 6. one ptp4l with two ports: each interface gets its own port ---------
# A boundary clock in namespace b: bc1 (p5) faces the grandmaster's second
# port, bc2 (p7) an idle namespace, so one port is SLAVE and the other MASTER.
ip netns add b
ip netns add x
ip link add p4 type veth peer name p5
ip link add p6 type veth peer name p7
ip link set p4 netns m
ip link set p5 netns b
ip link set p6 netns x
ip link set p7 netns b
for l in p4:m p5:b p6:x p7:b; do ip -n "${l#*:}" link set "${l%:*}" up; done
ip -n b link set lo up
ip netns exec m ptp4l -i p4 -S -2 --uds_address=/run/ptp4l-m2 -m >"$TBS_OUT/master2.log" 2>&1 &
gm2_pid=$!
ip netns exec b ptp4l -i p5 -i p7 -S -2 --priority1=200 --uds_address=/run/ptp4l-bc -m >"$TBS_OUT/bc.log" 2>&1 &
bc_pid=$!
# bc_port_state IFACE: that interface's port state, as pmc sees it
bc_port_state() {
        local n
        n=$(pmc -u -b 0 -s /run/ptp4l-bc 'GET PORT_PROPERTIES_NP' |
                awk -v i="$1" '$1 == "portIdentity" { p = $2 } $1 == "interface" && $2 == i { sub(/.*-/, "", p); print p }')
        [ -n "$n" ] || return 0
        pmc -u -b 0 -s /run/ptp4l-bc 'GET PORT_DATA_SET' |
                awk -v n="$n" '$1 == "portIdentity" { p = $2; sub(/.*-/, "", p) } $1 == "portState" && p == n { print $2 }'
}
bc_ready() { [ "$(bc_port_state p5)" = SLAVE ] && [ "$(bc_port_state p7)" = MASTER ]; }
wait_until 60 bc_ready || fail "boundary clock ports: p5 $(bc_port_state p5), p7 $(bc_port_state p7)"
pass "boundary clock: p5 SLAVE, p7 MASTER (pmc)"
for i in p5 p7; do
        json=$("$PROBE" --socket /run/ptp4l-bc --interface "$i")
        echo "bc $i: $json"
        assert_eq "$(jq -r .port_state <<<"$json")" "$(bc_port_state "$i")" "port state of $i vs pmc"
done
json=$("$PROBE" --socket /run/ptp4l-bc --interface p9)
assert_eq "$(jq -r .reason <<<"$json")" "ptp4l has 2 ports, none on p9" "reason for an interface ptp4l does not serve"
kill "$bc_pid" "$gm2_pid" 2>/dev/null || true

# The client removed its own socket files.
leftover=$(ls /run/tbsd 2>/dev/null || true)
assert_eq "$leftover" "" "client sockets left in /run/tbsd"

# --- 7. the newer default path, /var/run/ptp/ptp4l, when none is given -----
kill "$master_pid"
wait "$master_pid" 2>/dev/null || true
json=$("$PROBE")
assert_eq "$(jq -r .reason <<<"$json")" "no ptp4l socket at /var/run/ptp4l or /var/run/ptp/ptp4l" "reason with no ptp4l at all"
mkdir -p /var/run/ptp
ip netns exec m ptp4l -i p0 -S -2 -m --uds_address=/var/run/ptp/ptp4l >"$TBS_OUT/master2.log" 2>&1 &
master_pid=$!
# a lone ptp4l turns MASTER once its announce receipt timeout passes
is_master2() { [ "$(pmc_field /var/run/ptp/ptp4l PORT_DATA_SET portState)" = MASTER ]; }
wait_until 30 is_master2 || fail "ptp4l on /var/run/ptp/ptp4l: port not MASTER"
json=$("$PROBE")
echo "fallback path: $json"
assert_eq "$(jq -r .port_state <<<"$json")" MASTER "port state via /var/run/ptp/ptp4l (pmc: MASTER)"
kill "$master_pid" 2>/dev/null || true
