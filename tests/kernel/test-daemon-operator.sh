# Issue 37 point 7: what an operator reads from tbsctl about a running tbsd.
# - `tbsctl schedule IFACE` reads the folder tbsd serves (--config-dir),
#   and without a tbsd the compiled-in folder, with a note;
# - every listing (list, status, clock, metrics) is by interface name:
#   the files are named and the veths made so that file order, index order
#   and name order all differ;
# - an absent link has no index in status (not "index 0"), "-" in list;
# - status of an interface that exists but no schedule names (lo), and of
#   a name no interface has, say which of the two it is;
# - txtime-params of a queue beyond the device's TX queues says so (sysfs
#   is the oracle for the count), not that it has no etf.
# Every check runs and the failures are listed together at the end.
failures=0
check_eq() { # ACTUAL EXPECTED WHAT
        if [ "$1" != "$2" ]; then
                echo "FAIL: $3: expected '$2', got '$1'" >&2
                failures=$((failures + 1))
        else
                pass "$3 = $2"
        fi
}

conf=$TMPDIR/conf
mkdir -p "$conf"
make_veth zz0 zz0p 4             # the lowest index, the last name
make_veth aa0 aa0p 4
write_mqprio_schedule "$conf/1-zz0.json" zz0 200000 500000
write_mqprio_schedule "$conf/2-mm0.json" mm0 200000 500000   # mm0 never exists
jq '.interface = "aa0"' "$TBS_SOURCE_DIR/examples/veth-streams.json" > "$conf/3-aa0.json"
[ "$(cat /sys/class/net/zz0/ifindex)" -lt "$(cat /sys/class/net/aa0/ifindex)" ] || fail "zz0's index is not below aa0's"

start_system_bus

# 1. No tbsd on the bus: the compiled-in folder, and a note that says so.
"$TBSCTL" schedule aa0 > "$TMPDIR/out" 2> "$TMPDIR/err" || true
check_eq "$(head -n1 "$TMPDIR/err" | sed 's/folder .*/folder/')" \
        "tbsctl: tbsd is not running: reading the compiled-in folder" "schedule IFACE without tbsd: the note"

start_tbsd "$conf"
wait_configured zz0

# 1. With tbsd: its folder, the same timeline as the file gives read directly.
want=$("$TBSCTL" schedule "$conf/3-aa0.json")
got=$("$TBSCTL" schedule aa0 2> "$TMPDIR/err") || true
check_eq "$got" "$want" "schedule aa0 from tbsd's --config-dir"
check_eq "$(cat "$TMPDIR/err")" "" "schedule aa0 with tbsd: stderr"
check_eq "$("$TBSCTL" --json schedule aa0 2>/dev/null | jq -r '[.streams[].name] | join(" ")')" "axis-ctrl vision" \
        "schedule --json aa0: its streams"

# 2. One order, by name, in every listing.
names="aa0 mm0 zz0"
check_eq "$("$TBSCTL" --json list | jq -r '[.[].interface] | join(" ")')" "$names" "list --json order"
check_eq "$("$TBSCTL" list | awk 'NR > 1 && NF >= 3 && $NF != "listed." { printf "%s ", $2 }')" "$names " "list order"
check_eq "$("$TBSCTL" --json status | jq -r '[.[].interface] | join(" ")')" "$names" "status --json order"
check_eq "$("$TBSCTL" status | sed -n 's/^[●○] \([^ ]*\) .*/\1/p' | tr '\n' ' ')" "$names " "status order"
check_eq "$("$TBSCTL" clock | sed -n 's/^\([a-z0-9]*\):$/\1/p' | tr '\n' ' ')" "$names " "clock order"
check_eq "$("$TBSCTL" metrics | sed -n 's/^tbs_link_state{interface="\([^"]*\)",.*state="configured"}.*/\1/p' | tr '\n' ' ')" \
        "$names " "metrics order"

# 6. An absent link: no index, the same way in status and list.
check_eq "$("$TBSCTL" status mm0 | head -n1)" "○ mm0 (no index)" "status header of the absent mm0"
check_eq "$("$TBSCTL" list | awk '$2 == "mm0" { print $1, $3 }')" "- absent" "list row of the absent mm0"
check_eq "$("$TBSCTL" --json status mm0 | jq -c '[.state, .ifindex]')" '["absent",0]' "status --json of mm0"
check_eq "$("$TBSCTL" --json list | jq -c '.[] | select(.interface == "mm0") | [.state, .ifindex]')" '["absent",0]' \
        "list --json of mm0"

# 4. An unmanaged interface of this machine, and a name no interface has.
ip link show lo > /dev/null || fail "no lo in the guest"
! ip link show nosuch0 > /dev/null 2>&1 || fail "nosuch0 exists"
rc=0; "$TBSCTL" status lo > "$TMPDIR/out" 2> "$TMPDIR/err" || rc=$?
check_eq "$rc" 1 "status lo: exit code"
check_eq "$(cat "$TMPDIR/err")" \
        "tbsctl: lo: no link named 'lo'
tbsctl: lo: the interface exists, but no schedule in tbsd's folder names it" "status lo"
rc=0; "$TBSCTL" status nosuch0 > "$TMPDIR/out" 2> "$TMPDIR/err" || rc=$?
check_eq "$rc" 1 "status nosuch0: exit code"
check_eq "$(cat "$TMPDIR/err")" \
        "tbsctl: nosuch0: no link named 'nosuch0'
tbsctl: nosuch0: no interface of that name on this machine" \
        "status nosuch0"

# 5. A queue the device does not have, against one it has without an etf.
n=$(ls -d /sys/class/net/zz0/queues/tx-* | wc -l)
check_eq "$n" 4 "zz0's TX queues in sysfs"
rc=0; "$TBSCTL" txtime-params zz0 9 > "$TMPDIR/out" 2> "$TMPDIR/err" || rc=$?
check_eq "$rc" 1 "txtime-params zz0 9: exit code"
check_eq "$(cat "$TMPDIR/err")" "tbsctl: zz0: TX queue 9 does not exist: the device has 4 TX queues (0-3)" \
        "txtime-params zz0 9"
rc=0; "$TBSCTL" txtime-params zz0 3 > "$TMPDIR/out" 2> "$TMPDIR/err" || rc=$?
check_eq "$(cat "$TMPDIR/err")" "tbsctl: zz0: no etf qdisc is declared on TX queue 3" "txtime-params zz0 3"
"$TBSCTL" txtime-params zz0 0 > /dev/null || { echo "FAIL: txtime-params zz0 0 failed" >&2; failures=$((failures + 1)); }

[ "$failures" -eq 0 ] || fail "$failures check(s) failed"
pass "all checks held"
