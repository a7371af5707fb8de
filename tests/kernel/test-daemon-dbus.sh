# tbsd as a daemon on a private system bus: introspection matches the
# contract, tbsctl status agrees with tc, GetTxtimeParams, access control,
# no-daemon exit code, SIGHUP and Reload(), monitor.
make_veth tbs0 tbs0p 4
make_veth tbs1 tbs1p 4
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/tbs0.json" tbs0 200000 500000
write_mqprio_schedule "$conf/tbs1.json" tbs1 300000 600000

# No bus at all, then a bus without tbsd: exit 3 with a clear message.
set +e
out=$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/nonexistent "$TBSCTL" status tbs0 2>&1); rc=$?
set -e
assert_eq "$rc" 3 "tbsctl exit code without a bus"
assert_contains "$out" "not reachable" "tbsctl message without a bus"
start_system_bus
set +e
out=$("$TBSCTL" status tbs0 2>&1); rc=$?
set -e
assert_eq "$rc" 3 "tbsctl exit code without tbsd"
assert_contains "$out" "not reachable" "tbsctl message without tbsd"

start_tbsd "$conf"

# Introspection against the contract.
for iface in org.tsn.Tbs.Manager org.tsn.Tbs.Link; do
        path=/org/tsn/Tbs
        [ "$iface" = org.tsn.Tbs.Link ] && path=/org/tsn/Tbs/link/tbs0
        busctl --system introspect --xml-interface org.tsn.Tbs "$path" > "$TMPDIR/live.xml"
        python3 "$TBS_SOURCE_DIR/tests/kernel/introspect-compare.py" \
                "$TBS_SOURCE_DIR/dbus/org.tsn.Tbs.xml" "$TMPDIR/live.xml" "$iface" ||
                fail "introspection of $iface differs from dbus/org.tsn.Tbs.xml"
done
pass "introspection matches the contract"

# The object manager lists both links.
busctl --system call org.tsn.Tbs /org/tsn/Tbs org.freedesktop.DBus.ObjectManager GetManagedObjects \
        > "$TMPDIR/objects"
assert_contains "$(cat "$TMPDIR/objects")" "/org/tsn/Tbs/link/tbs1" "GetManagedObjects"

# tbsctl status --json agrees with tc, field by field.
wait_until 5 sh -c "\"$TBSCTL\" status tbs0 --json | jq -e '.state == \"configured\"'" ||
        fail "tbs0 not configured: $("$TBSCTL" status tbs0 2>&1)"
st=$("$TBSCTL" --json status tbs0)
tcj=$(tc -j -s qdisc show dev tbs0)
assert_eq "$(jq -r .interface <<<"$st")" tbs0 "status interface"
assert_eq "$(jq -r .ifindex <<<"$st")" "$(cat /sys/class/net/tbs0/ifindex)" "status ifindex"
assert_eq "$(jq -r .root.qdisc <<<"$st")" "$(jq -r '.[] | select(.root) | .kind' <<<"$tcj")" "root qdisc"
assert_eq "$(jq -r .root.handle <<<"$st")" "$(jq -r '.[] | select(.root) | .handle' <<<"$tcj")" "root handle"
for q in 0 1; do
        tq=$(jq -c --arg p "100:$((q + 1))" '.[] | select(.parent == $p)' <<<"$tcj")
        sq=$(jq -c --argjson q $q '.txqueues[] | select(.queue == $q)' <<<"$st")
        assert_eq "$(jq -r .qdisc <<<"$sq")" "$(jq -r .kind <<<"$tq")" "queue $q qdisc"
        assert_eq "$(jq -r .handle <<<"$sq")" "$(jq -r .handle <<<"$tq")" "queue $q handle"
        assert_eq "$(jq -r .parent <<<"$sq")" "$(jq -r .parent <<<"$tq")" "queue $q parent"
        assert_eq "$(jq -r .delta_ns <<<"$sq")" "$(jq -r .options.delta <<<"$tq")" "queue $q delta"
        assert_eq "$(jq -r .clockid <<<"$sq")" "CLOCK_$(jq -r .options.clockid <<<"$tq")" "queue $q clockid"
        assert_eq "$(jq -r .offload <<<"$sq")" "$( [ "$(jq -r .options.offload <<<"$tq")" = on ] && echo true || echo false)" "queue $q offload"
        assert_eq "$(jq -r .deadline_mode <<<"$sq")" "$( [ "$(jq -r .options.deadline_mode <<<"$tq")" = on ] && echo true || echo false)" "queue $q deadline_mode"
        assert_eq "$(jq -r .stats.packets <<<"$sq")" "$(jq -r .packets <<<"$tq")" "queue $q packets"
        assert_eq "$(jq -r .stats.drops <<<"$sq")" "$(jq -r .drops <<<"$tq")" "queue $q drops"
done
assert_eq "$(jq -r .txqueues[0].offload_requested <<<"$st")" auto "queue 0 offload_requested"
assert_eq "$(jq -r .capabilities.driver <<<"$st")" veth "capabilities driver"
assert_eq "$(jq -r .clock.state <<<"$st")" not-configured "clock state without a clock section"
"$TBSCTL" status tbs0 > "$TMPDIR/human"
assert_contains "$(cat "$TMPDIR/human")" "configured" "human status"
assert_contains "$(cat "$TMPDIR/human")" "delta 200000 ns" "human status delta"
n=$("$TBSCTL" --json status | jq length)
assert_eq "$n" 2 "status of all links"

# GetTxtimeParams: the priority maps to queue 1's traffic class.
read -r _ prio clk dl delta off < <(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 \
        org.tsn.Tbs.Link GetTxtimeParams u 1)
map=$(jq -c '.[] | select(.root) | .options.map' <<<"$tcj")
tc_of_prio=$(jq -r --argjson p "$prio" ".[\$p]" <<<"$map")
tc_of_queue=$(jq -r '.[] | select(.root) | .options.queues | to_entries[] | select(.value[0] <= 1 and .value[1] >= 1) | .key' <<<"$tcj")
assert_eq "$tc_of_prio" "$tc_of_queue" "priority $prio maps to queue 1's traffic class"
assert_eq "$clk" 11 "txtime clockid (CLOCK_TAI)"
assert_eq "$dl" true "txtime deadline_mode"
assert_eq "$delta" 500000 "txtime delta"
assert_eq "$off" false "txtime offload"
tp=$("$TBSCTL" txtime-params tbs0 1 --json)
assert_eq "$(jq -r .socket_priority <<<"$tp")" "$prio" "tbsctl txtime-params priority"
assert_eq "$(jq -r .clockid <<<"$tp")" CLOCK_TAI "tbsctl txtime-params clockid"
assert_contains "$(jq -r .unprivileged <<<"$tp")" "OpenTxtimeSocket()" "tbsctl txtime-params --json: what unprivileged applications use"
tp=$("$TBSCTL" txtime-params tbs0 1)
assert_contains "$tp" "SO_PRIORITY:    $prio" "tbsctl txtime-params: priority line kept"
assert_contains "$tp" "unprivileged:   SO_TXTIME with CLOCK_TAI needs CAP_NET_ADMIN; applications without it get a socket set up like this from libtbs(3) or the bus method org.tsn.Tbs.Link.OpenTxtimeSocket()" \
        "tbsctl txtime-params: what unprivileged applications use"

# An unprivileged caller reads everything and is refused the rest.
before=$(handles tbs0)
asuser() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
asuser "$TBSCTL" status tbs0 >/dev/null || fail "unprivileged status failed"
asuser busctl --system get-property org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link State >/dev/null ||
        fail "unprivileged property read failed"
for verb in "apply tbs0" "remove tbs0" "reload"; do
        set +e
        # shellcheck disable=SC2086
        out=$(asuser "$TBSCTL" $verb 2>&1); rc=$?
        set -e
        assert_eq "$rc" 1 "unprivileged tbsctl $verb exit code"
        assert_contains "$out" "privileged" "unprivileged tbsctl $verb message"
done
for method in Apply Remove; do
        set +e
        out=$(asuser busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link $method 2>&1)
        set -e
        assert_contains "$out" "privileged" "unprivileged $method"
done
set +e
out=$(asuser busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Reload 2>&1)
set -e
assert_contains "$out" "privileged" "unprivileged Reload"
assert_eq "$(handles tbs0)" "$before" "qdiscs untouched by refused calls"

# Validate() over the bus.
read -r _ ok _ < <(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Validate s \
        "$(cat "$conf/tbs0.json")")
assert_eq "$ok" true "Validate of a good schedule"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Validate s '{"interface": "x", "root": 5}')
assert_contains "$out" "false" "Validate of a bad schedule"
assert_contains "$out" "root" "Validate names the path"

# monitor, SIGHUP and Reload() pick up a changed delta.
start_monitor
mon=$MONITOR_PID
write_mqprio_schedule "$conf/tbs0.json" tbs0 250000 500000
kill -HUP "$TBSD_PID"
delta_of() { tc -j qdisc show dev tbs0 | jq -r '.[] | select(.parent == "100:1") | .options.delta'; }
wait_until 5 sh -c "[ \"\$(tc -j qdisc show dev tbs0 | jq -r '.[] | select(.parent == \"100:1\") | .options.delta')\" = 250000 ]" ||
        fail "SIGHUP did not apply the new delta (now $(delta_of))"
pass "SIGHUP applied delta 250000"
write_mqprio_schedule "$conf/tbs0.json" tbs0 260000 500000
"$TBSCTL" reload
assert_eq "$(delta_of)" 260000 "Reload() applied delta 260000"
wait_until 5 grep -q "tbs0 .*applied" "$TBS_OUT/monitor.log" || true  # asserted below
kill "$mon" 2>/dev/null || true
cat "$TBS_OUT/monitor.log"
assert_contains "$(cat "$TBS_OUT/monitor.log")" "tbs0" "monitor printed the change of tbs0"
assert_contains "$(cat "$TBS_OUT/monitor.log")" "applied" "monitor printed the apply event"

# tbsctl list reads like networkctl: sorted by ifindex, IDX LINK STATE CLOCK
# OFFLOAD, a summary, the object path only with -v or --json.
out=$("$TBSCTL" list)
echo "$out"
assert_eq "$(echo "$out" | head -1 | tr -s ' ')" "IDX LINK STATE CLOCK OFFLOAD" "tbsctl list header"
assert_eq "$(echo "$out" | tail -1)" "2 links listed." "tbsctl list summary"
case "$out" in */org/tsn/*) fail "tbsctl list shows the D-Bus path without -v: $out" ;; esac
want=$(ip -j link show | jq -r '[.[] | select(.ifname == "tbs0" or .ifname == "tbs1")] | sort_by(.ifindex) |
        .[] | "\(.ifindex) \(.ifname) configured"')
assert_eq "$(echo "$out" | sed -n '2,3p' | awk '{ print $1, $2, $3 }')" "$want" "tbsctl list rows in ifindex order"
assert_eq "$(echo "$out" | awk '$2 == "tbs0" { print $5 }')" "0/2" "tbsctl list OFFLOAD of tbs0 (veth: none of 2 etf queues)"
assert_contains "$("$TBSCTL" -v list)" "/org/tsn/Tbs/link/tbs0" "tbsctl -v list shows the path"
assert_eq "$("$TBSCTL" --json list | jq -c '[.[] | [.interface, .path, .state, (.ifindex > 0), .offloaded_queues, .queues]]')" \
        "$(echo "$want" | jq -R -s -c 'split("\n") | map(select(. != "") | split(" ")[1] |
                [., "/org/tsn/Tbs/link/" + ., "configured", true, 0, 2])')" \
        "tbsctl --json list keys, in ifindex order"

# tbsctl status: carrier; Remove leaves a reason that names the command.
out=$("$TBSCTL" status tbs0)
assert_contains "$out" "Carrier: yes (operstate up)" "tbsctl status carrier of tbs0"
assert_eq "$("$TBSCTL" --json status tbs0 | jq -c '[.carrier, .operstate]')" '[true,"up"]' "Describe carrier, operstate"

# monitor --json: one object per line, RFC 3339 time stamps, properties as
# an object, no escaped slashes; an apply lists only what changed (no Driver).
"$TBSCTL" --json monitor > "$TMPDIR/monitor.json" 2>&1 &
jmon=$!
# (it subscribes just after it starts: remove and apply until it saw an
# apply; an apply of an unchanged tree sends no event)
applies_seen() { grep -c '"kind":"applied"' "$TMPDIR/monitor.json" || true; }
apply_seen() { "$TBSCTL" remove tbs0 && "$TBSCTL" apply tbs0 && [ "$(applies_seen)" -gt 0 ]; }
wait_until 10 apply_seen || { cat "$TMPDIR/monitor.json"; fail "tbsctl monitor --json printed no applied event"; }
seen=$(applies_seen)
"$TBSCTL" remove tbs0
assert_contains "$("$TBSCTL" --json status tbs0 | jq -r .state_reason)" "'tbsctl apply tbs0'" \
        "the pending reason names the command"
"$TBSCTL" apply tbs0
wait_until 5 sh -c "[ \$(grep -c '\"kind\":\"applied\"' '$TMPDIR/monitor.json') -gt $seen ]" ||
        { cat "$TMPDIR/monitor.json"; fail "no applied event after remove and apply"; }
wait_until 5 grep -q '"State":"configured"' "$TMPDIR/monitor.json" || true   # asserted below
grep -q '"kind":"applied"' "$TMPDIR/monitor.json" || { cat "$TMPDIR/monitor.json"; fail "no applied event in monitor --json"; }
kill "$jmon" 2>/dev/null || true
cat "$TMPDIR/monitor.json"
jq -e -s 'length >= 3 and all(.[]; (.timestamp | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([+-][0-9]{2}:[0-9]{2}|Z)$"))
        and .link == "tbs0" and (.kind | type) == "string")' "$TMPDIR/monitor.json" >/dev/null ||
        fail "monitor --json lines lack an RFC 3339 timestamp, link or kind"
jq -e -s '[.[] | select(.kind == "changed")] | length > 0 and all(.[]; (.properties | type) == "object")' \
        "$TMPDIR/monitor.json" >/dev/null || fail "monitor --json changed events without a properties object"
assert_eq "$(jq -s '[.[] | select(.kind == "changed") | .properties | select(has("State"))] | length > 0' "$TMPDIR/monitor.json")" \
        true "monitor --json shows the State change"
assert_eq "$(jq -s '[.[] | select(.properties.Driver != null)] | length' "$TMPDIR/monitor.json")" 0 \
        "remove and apply signal no unchanged Driver"
if grep -qF '\/' "$TMPDIR/monitor.json"; then fail "monitor --json escapes slashes"; fi
pass "monitor --json: RFC 3339, properties as objects, no escaped slashes, no Driver"

# SIGTERM exits cleanly.
kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
pass "tbsd exited cleanly on SIGTERM"
set +e
"$TBSCTL" list >/dev/null 2>&1; rc=$?
set -e
assert_eq "$rc" 3 "tbsctl after tbsd stopped"
