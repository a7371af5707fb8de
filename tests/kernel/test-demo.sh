# issue 47 point 1: scripts/demo's story, from a run of its own guest script
# (scripts/demo-guest.sh, which leaves what it showed in $TBS_OUT/demo/):
# each claim of tests/kernel/demo-claims.txt checked against tbsctl --json
# list before and after the fault and against the examples themselves.
claim() { demo_claim scripts/demo "$1"; }

( . "$TBS_SOURCE_DIR/scripts/demo-guest.sh" ) > "$TBS_OUT/demo.log" 2>&1 ||
        { cat "$TBS_OUT/demo.log"; fail "scripts/demo-guest.sh failed"; }
demo=$TBS_OUT/demo
before=$demo/list-before.json after=$demo/list-after.json
for f in not-applied.json fault.json list-before.json list-after.json; do
        [ -s "$demo/$f" ] || fail "the demo left no $f: $(tail -20 "$TBS_OUT/demo.log")"
done

# The examples that need hardware: found by the demo, each valid as a file,
# none of them a link of tbsd's, each said so in the demo's output; and
# they are exactly the examples asking for taprio full offload or 802.1AS
# (what a veth lacks: its capabilities say so, tests kernel-caps-veth).
expected=$(jq -r 'select(.root.mode == "full-offload" or .clock.transport_specific == 1) | input_filename' \
        "$TBS_SOURCE_DIR"/examples/*.json | sed 's|.*/||' | sort | tr '\n' ' ')
[ -n "$expected" ] || fail "no example needs hardware: the claim would hold trivially"
assert_eq "$(jq -r '.[].file' "$demo/not-applied.json" | sort | tr '\n' ' ')" "$expected" "examples set aside"
for ifc in $(jq -r '.[].interface' "$demo/not-applied.json"); do
        jq -e --arg i "$ifc" 'all(.[]; .interface != $i)' "$before" >/dev/null || fail "$ifc was applied"
done
jq -e 'all(.[]; .valid == true and (.needs | length) > 0)' "$demo/not-applied.json" >/dev/null ||
        fail "an example set aside is not valid or names no need: $(cat "$demo/not-applied.json")"
# Valid against the profile of the NIC the example is named for, and not
# against the veth it was kept from (the profile makes the difference).
while read -r file device ifc; do
        assert_eq "$device" "${file%%-*}" "the NIC $file is written for"
        "$TBSCTL" validate --device-caps "$TBS_SOURCE_DIR/examples/devices/$device.json" \
                "$TBS_SOURCE_DIR/examples/$file" >/dev/null || fail "$file is not valid for $device"
        "$TBSCTL" validate --device "$ifc" "$TBS_SOURCE_DIR/examples/$file" >/dev/null 2>&1 &&
                [ "$(jq -r '.clock.transport_specific // 0' "$TBS_SOURCE_DIR/examples/$file")" != 1 ] &&
                fail "$file is valid on the veth $ifc and asks for no 802.1AS clock: why was it set aside?"
        pass "$file: valid for $device, kept from the veth $ifc"
done < <(jq -r '.[] | "\(.file) \(.device) \(.interface)"' "$demo/not-applied.json")
while read -r file device; do
        grep -q "^$file: validated for $device, not applied (needs " "$TBS_OUT/demo.log" ||
                fail "the demo does not say $file was validated for $device and not applied"
done < <(jq -r '.[] | "\(.file) \(.device)"' "$demo/not-applied.json")
claim hardware-validated

# Every other example is a link of tbsd's, configured, its clock as good as
# software time stamps allow (no-phc) or not declared.
n_applied=$(ls "$TBS_OUT/examples"/*.json | wc -l)
n_examples=$(ls "$TBS_SOURCE_DIR"/examples/*.json | wc -l)
n_set_aside=$(jq length "$demo/not-applied.json")
assert_eq "$n_applied" "$((n_examples - n_set_aside))" "examples applied"
assert_eq "$(jq length "$before")" "$n_applied" "links listed before the fault"
jq -e 'all(.[]; .state == "configured")' "$before" >/dev/null || fail "not every link configured: $(cat "$before")"
jq -e 'all(.[]; .clock_state == "no-phc" or .clock_state == "not-configured")' "$before" >/dev/null ||
        fail "a clock worse than software stamps allow: $(cat "$before")"
claim all-configured

# One fault: the links whose file names the stopped ptp4l's socket, and
# nothing else, changed. The test finds them in the files, not in the demo.
sock=$(jq -r .ptp4l_socket "$demo/fault.json")
touched=$(jq -r --arg s "$sock" 'select(.clock.ptp4l_socket == $s) | .interface' "$TBS_OUT/examples"/*.json | sort)
[ -n "$touched" ] || fail "the fault touches no link"
assert_eq "$(jq -r '.links[]' "$demo/fault.json" | tr '\n' ' ')" "$(echo $touched) " "the links the demo faults"
pgrep -x ptp4l >/dev/null && fail "a ptp4l still runs after the fault"
grep -q "^== a fault on purpose: the ptp4l at $sock stops" "$TBS_OUT/demo.log" || fail "the demo does not announce its fault"
claim one-fault

for ifc in $touched; do
        assert_eq "$(jq -r --arg i "$ifc" '.[] | select(.interface == $i) | "\(.state) \(.clock_state)"' "$after")" \
                "degraded no-ptp4l" "$ifc after the fault"
        grep -qE "^[0-9:]+ +$ifc +changed +State=degraded" "$TBS_OUT/monitor.log" ||
                fail "tbsctl monitor did not report $ifc degraded: $(cat "$TBS_OUT/monitor.log")"
done
untouched_before=$(jq -c --arg t "$(echo $touched)" '[.[] | select(.interface as $i | $t | split(" ") | index($i) | not) |
        {interface, state, clock_state}]' "$before")
untouched_after=$(jq -c --arg t "$(echo $touched)" '[.[] | select(.interface as $i | $t | split(" ") | index($i) | not) |
        {interface, state, clock_state}]' "$after")
[ "$(jq length <<<"$untouched_before")" -gt 0 ] || fail "no link outside the fault: the claim would hold trivially"
assert_eq "$untouched_after" "$untouched_before" "the links outside the fault"
others=$(grep -E "^[0-9:]+ " "$TBS_OUT/monitor.log" | grep -vE "^[0-9:]+ +($(echo $touched | tr ' ' '|')) " || true)
[ -z "$others" ] || fail "tbsctl monitor reported a link outside the fault: $others"
claim only-faulted-change

demo_claims_all scripts/demo
