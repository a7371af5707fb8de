# An etf or a cbs as the root (issue 38, 2b): a single-queue device, as the
# kernel's so_txtime selftest sets it up (`tc qdisc add dev X root etf
# clockid CLOCK_TAI delta ...`, no handle: the kernel picks one), and a cbs
# root with an etf on its class 1. For each: tbsctl import writes a file
# that tbsd --once finds unchanged on tc's tree; on a bare device the file
# gives tc's tree again (tc -j -d, handles aside), re-applies unchanged and
# reads back into the same file; a root changed by hand is put back; one
# shape replaces the other; tbsd --remove takes the root off.
make_veth va vb 1
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

# round_trip NAME: tc's tree on va -> import -> unchanged -> bare device ->
# applied -> tc's tree -> unchanged -> the same import.
round_trip() {
        local want before
        want=$(qdisc_shape va)
        echo "$1: tc's tree: $want"
        rm -f "$conf/va.json"
        "$TBSCTL" import va -o "$conf/va.json" || fail "$1: import failed"
        cat "$conf/va.json"
        "$TBSCTL" validate "$conf/va.json" || fail "$1: tbsctl validate refused the import"
        "$TBSD" --check --config-dir "$conf" || fail "$1: tbsd --check refused the import"
        before=$(handles va)
        assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: unchanged" "$1: --once on tc's tree"
        assert_eq "$(handles va)" "$before" "$1: handles after --once on tc's tree"
        tc qdisc del dev va root
        assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: applied" "$1: --once on a bare device"
        assert_eq "$(qdisc_shape va)" "$want" "$1: tree from the imported file = tc's tree"
        before=$(handles va)
        assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: unchanged" "$1: second --once"
        assert_eq "$(handles va)" "$before" "$1: handles after the second --once"
        assert_eq "$("$TBSCTL" import va)" "$(cat "$conf/va.json")" "$1: import of tbsd's tree = the file"
}

# 1. A root etf without a handle, as the so_txtime selftest makes it.
tc qdisc add dev va root etf clockid CLOCK_TAI delta 300000
round_trip "root etf"
etf=$(qdisc_shape va)
assert_eq "$(jq -c '[.root.qdisc, .root.delta_ns, .root.offload, .allow, (.txqueues // [] | length)]' "$conf/va.json")" \
        '["etf",300000,false,["ptp-etf"],0]' "root etf file"
case $(jq -r .root.handle "$conf/va.json") in
8???:) pass "the kernel's handle is kept" ;;
*) fail "root etf handle: $(jq -r .root.handle "$conf/va.json")" ;;
esac
# Without "allow": ["ptp-etf"] the file is refused (an etf root drops ptp4l's frames).
jq 'del(.allow)' "$conf/va.json" > "$TMPDIR/noallow.json"
assert_contains "$("$TBSCTL" validate "$TMPDIR/noallow.json" 2>&1 || true)" \
        "root: ptp-etf: every packet of the interface passes this etf" "root etf without allow"
# Changed by hand (a root etf cannot change in place): put back.
h=$(qdisc_at va root | jq -r .handle)
tc qdisc replace dev va root handle "$h" etf clockid CLOCK_TAI delta 200000 2>/dev/null ||
        { tc qdisc del dev va root; tc qdisc add dev va root handle "$h" etf clockid CLOCK_TAI delta 200000; }
assert_eq "$(qdisc_at va root | jq -r .options.delta)" 200000 "root etf changed by hand"
assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: applied" "--once after the root etf changed"
assert_eq "$(qdisc_shape va)" "$etf" "root etf put back"
# The example file (handle 100:, offload auto: software on veth).
jq '.interface = "va"' "$TBS_SOURCE_DIR/examples/single-queue-etf.json" > "$conf/va.json"
assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: applied" "--once with the example"
assert_eq "$(qdisc_at va root | jq -r .handle)" "100:" "example's root handle"
assert_eq "$(qdisc_shape va)" "$etf" "tree from the example = tc's root etf"
assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: unchanged" "--once with the example again"

# 2. A cbs root with an etf on its class 1.
tc qdisc del dev va root
tc qdisc add dev va root handle 100: cbs idleslope 20000 sendslope -980000 hicredit 30 locredit -1470
tc qdisc add dev va parent 100:1 etf clockid CLOCK_TAI delta 400000 skip_sock_check
round_trip "root cbs + etf"
cbs=$(qdisc_shape va)
assert_eq "$(jq -c '[.root.qdisc, .root.idle_slope_kbps, .root.child.qdisc, .root.child.delta_ns, .root.child.skip_sock_check]' "$conf/va.json")" \
        '["cbs",20000,"etf",400000,true]' "root cbs file"
# Its etf deleted by hand: put back.
etf_h=$(qdisc_at va 100:1 | jq -r .handle)
tc qdisc del dev va parent 100:1 handle "$etf_h"
assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: applied" "--once after the root cbs's etf was deleted"
assert_eq "$(qdisc_shape va)" "$cbs" "root cbs's etf put back"
# A cbs root alone, from a bandwidth.
cat > "$conf/va.json" <<'EOS'
{"interface": "va", "root": {"qdisc": "cbs", "bandwidth_kbps": 20000, "max_frame_bytes": 1500,
 "max_interference_bytes": 1500, "link_speed_mbps": 1000, "offload": false}}
EOS
assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: applied" "--once: the root cbs alone"
assert_eq "$(qdisc_json va | jq -c '[.[] | [.kind, .options.idleslope, .options.sendslope, .options.hicredit, .options.locredit]]')" \
        '[["cbs",20000,-980000,30,-1470],["pfifo",null,null,null,null]]' \
        "root cbs from a bandwidth, with the kernel's own pfifo under it"
assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: unchanged" "--once: the root cbs alone again"
"$TBSCTL" import va -o "$TMPDIR/alone.json" || fail "import of the root cbs alone failed"
assert_eq "$(jq -c '[.root.qdisc, .root.idle_slope_kbps, .root.lo_credit_bytes, .root.child]' "$TMPDIR/alone.json")" \
        '["cbs",20000,-1470,null]' "import of the root cbs alone"
cp "$TMPDIR/alone.json" "$conf/va.json"
assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: unchanged" "--once with the import of the root cbs alone"

# 2b. A failed apply puts the root back: on a device the probe does not
# know (ifb), a root etf with offload true is sent as asked, the kernel
# refuses it, and the cbs root with its etf is re-created.
modprobe -d /run/modroot ifb
ip link add ifb0 type ifb
ip link set ifb0 up
mkdir -p "$TMPDIR/ifb"
cat > "$TMPDIR/ifb/ifb0.json" <<'EOS'
{"interface": "ifb0", "root": {"qdisc": "cbs", "idle_slope_kbps": 20000, "send_slope_kbps": -980000,
 "hi_credit_bytes": 30, "lo_credit_bytes": -1470, "offload": false,
 "child": {"delta_ns": 400000, "offload": false}}, "allow": ["ptp-etf"]}
EOS
assert_eq "$("$TBSD" --once --config-dir "$TMPDIR/ifb" || true)" "ifb0: applied" "ifb0: cbs root with an etf"
ifb_shape=$(qdisc_shape ifb0)
jq '.interface = "ifb0" | .root.offload = true' "$TBS_SOURCE_DIR/examples/single-queue-etf.json" > "$TMPDIR/ifb/ifb0.json"
out=$("$TBSD" --once --config-dir "$TMPDIR/ifb" 2>&1 || true)
echo "$out"
assert_contains "$out" "ifb0: failed: root (etf 100:)" "ifb0: the root etf's offload refused"
assert_eq "$(qdisc_shape ifb0)" "$ifb_shape" "ifb0: the cbs root and its etf as they were"
ip link del ifb0

# 3. Back to the root etf, with the daemon: status shows the one qdisc,
# and the daemon puts it back after a change with tc.
jq '.interface = "va"' "$TBS_SOURCE_DIR/examples/single-queue-etf.json" > "$conf/va.json"
start_system_bus
start_tbsd "$conf"
wait_configured va
assert_eq "$(qdisc_shape va)" "$etf" "etf root again (the daemon)"
st=$("$TBSCTL" status va)
echo "$st"
assert_contains "$st" "Root: etf 100:, the only qdisc: CLOCK_TAI, delta 300000 ns, offload off" "status of the root etf"
assert_eq "$("$TBSCTL" --json status va | jq -c '[.root.qdisc, .root.delta_ns, (.txqueues | length)]')" \
        '["etf",300000,0]' "Describe of the root etf"
# (one request: between a delete and an add the daemon would put its root back)
tc qdisc replace dev va root handle 200: etf clockid CLOCK_TAI delta 100000
wait_until 10 sh -c "[ \"\$(tc -j qdisc show dev va | jq -c '[.[0].handle, .[0].options.delta]')\" = '[\"100:\",300000]' ]" ||
        fail "the root etf changed by hand stays: $(tc -j qdisc show dev va)"
assert_contains "$(cat "$TBS_OUT/tbsd.log")" "va: drift: root is etf 200: instead of etf 100:" \
        "the daemon's drift line"
wait_configured va
kill "$TBSD_PID"; wait "$TBSD_PID" || true
assert_eq "$("$TBSD" --remove va --config-dir "$conf")" "va: removed" "--remove"
assert_eq "$(qdisc_at va root | jq -r .handle)" "0:" "default root handle"
