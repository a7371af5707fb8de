# issue 46 finding 1 and point 5: no interface name a caller gives reaches
# the kernel's module loader, and a call naming 1,024 unknown interfaces
# is refused at once while other clients are served. The guest's
# kernel.modprobe is a script that logs every request (and loads nothing);
# before tbsd looked names up over rtnetlink, SIOCGIFINDEX on an unknown
# name ran it twice per name ("netdev-NAME", "NAME": dev_load()), and the
# call took a minute. Names come over the bus as the schedule group
# (ApplySchedule("dccp"), GetCapabilities("ppp"), ApplySchedules and ValidateSchedules with 1,024
# made-up names) and
# over NETCONF (a commit of unknown interfaces, through the server
# module's ApplySchedules). Also: a name with control characters comes
# back escaped on one line, and an interface called ".hid" gets its
# schedule over the bus.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth mp0 mp0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
# The schedule group's bus calls below give documents of origin netconf
# that netconfd's running datastore never names; the module's reconcile
# (every 30 s) would rightly take them back in mid-test (mp0 and .hid
# went so in 3 runs of 5), so it waits an hour here.
export TBSD_NETCONF_RECONCILE_S=3600
start_tbsd_netconf
write_mqprio_schedule "$TMPDIR/mp0.json" mp0 200000 500000
call() { busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager "$@"; }
# The schedule group (nogroup), as netconfd's user is.
asgroup() { setpriv --reuid=65534 --regid=100 --groups 65534 "$@"; }
assert_eq "$(asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ApplySchedule sss mp0 \
        "$(cat "$TMPDIR/mp0.json")" netconf)" "bas true 0" "ApplySchedule(mp0) by the schedule group"
assert_eq "$(qdisc_at mp0 root | jq -r .kind)" mqprio "mp0's root (tc)"

# Every module request from here on is logged, none is granted.
cat > /run/modprobe-log <<'EOS'
#!/bin/sh
echo "$*" >> /run/modprobe.log
exit 1
EOS
chmod 0755 /run/modprobe-log
echo /run/modprobe-log > /proc/sys/kernel/modprobe
: > /run/modprobe.log
# The logger runs: a link kind the kernel does not have is asked for.
ip link add mpx type tbs-no-such-kind 2>/dev/null && fail "a link of an unknown kind was made"
wait_until 5 grep -q rtnl-link-tbs-no-such-kind /run/modprobe.log ||
        fail "the logging modprobe was not run: $(cat /run/modprobe.log)"
pass "the logging kernel.modprobe runs ($(cat /run/modprobe.log))"
: > /run/modprobe.log
# names_given NAME...: remembered, to look for in the log at the end.
names_given() { printf '%s\n' "$@" >> "$TMPDIR/names"; }

# One module's name, as the schedule group.
names_given dccp
out=$(asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ApplySchedule sss dccp \
        "$(sed 's/"mp0"/"dccp"/' "$TMPDIR/mp0.json")" netconf 2>&1) && fail "ApplySchedule(dccp) was not refused: $out"
assert_contains "$out" "ApplySchedule(dccp) by uid 65534: interface: no interface dccp here" "ApplySchedule(dccp)"
echo "module requests after ApplySchedule(dccp): $(tr '\n' ' ' < /run/modprobe.log)"
out=$(asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager RemoveSchedule ss sit0 netconf 2>&1) &&
        fail "RemoveSchedule(sit0) was not refused: $out"
names_given sit0
assert_contains "$out" "no schedule was given for sit0" "RemoveSchedule(sit0)"
out=$(asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager GetCapabilities s ppp 2>&1) &&
        fail "GetCapabilities(ppp) was not refused: $out"
names_given ppp
assert_contains "$out" "GetCapabilities(ppp) by uid 65534: interface: no interface ppp here" "GetCapabilities(ppp)"

# 1,024 names no interface has (module names among them) in one call, and
# ListLinks from another client at the same time: timed with busctl (quick
# to start), its answer read again with gdbus (busctl cuts an error
# message at 2 kB).
batch=""
args=()
for n in gre0 tunl0 ip6tnl0 bond0 dummy0 ifb0 sit1 erspan0 $(seq -f 'zz%g' 8 1023); do
        batch+="${batch:+, }('$n', '{}')"
        args+=("$n" '{}')
        names_given "$n"
done
ms() { echo $(( $(date +%s%N) / 1000000 )); }
limit_s=${TBS_TEST_TIMEOUT_FACTOR:-1}
( rc=0
  asgroup busctl --system --timeout=300 call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ApplySchedules \
        'a(ss)ass' 1024 "${args[@]}" 0 netconf > /dev/null 2>&1 || rc=$?
  echo $rc > "$TMPDIR/many.rc" ) &
many=$!
# Another client asks again and again while the call runs: each answer
# within 1 s (scaled by the timeout factor for a slow guest); before, tbsd
# sat in modprobe for a minute and ListLinks timed out.
lists=0
worst=0
while [ ! -e "$TMPDIR/many.rc" ]; do
        t=$(ms)
        out=$(busctl --system --timeout="$limit_s" call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ListLinks 2>&1) ||
                fail "ListLinks did not answer within $limit_s s while the 1,024-name call ran: $out"
        assert_contains "$out" mp0 "ListLinks's answer" > /dev/null
        t=$(( $(ms) - t ))
        [ "$t" -le "$worst" ] || worst=$t
        lists=$((lists + 1))
done
wait "$many"
[ "$(cat "$TMPDIR/many.rc")" != 0 ] || fail "ApplySchedules of 1,024 unknown interfaces was not refused"
[ "$lists" -ge 1 ] || fail "no ListLinks ran while the call ran"
pass "$lists ListLinks calls from another client answered while the 1,024-name call ran (slowest $worst ms)"

# What tbsd spends on 1,024 names: the call against one of 1,025 entries,
# refused for its count before any name is looked at (the same client,
# message and bus): the difference is tbsd's work on the names.
timed_batch() {
        local n=$1 t
        shift
        t=$(ms)
        asgroup busctl --system --timeout=300 call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ApplySchedules \
                'a(ss)ass' "$n" "$@" 0 netconf > "$TMPDIR/timed.out" 2>&1 && fail "a batch of $n was taken"
        echo $(( $(ms) - t ))
}
best_names=999999
best_count=999999
for k in 1 2 3; do
        t=$(timed_batch 1024 "${args[@]}")
        [ "$t" -ge "$best_names" ] || best_names=$t
        t=$(timed_batch 1025 "${args[@]}" zz1024 '{}')
        assert_contains "$(cat "$TMPDIR/timed.out")" "more than 1024 interfaces in one call" "the 1,025-entry call's refusal" \
                > /dev/null
        [ "$t" -ge "$best_count" ] || best_count=$t
done
names_ms=$(( best_names - best_count ))
echo "ApplySchedules of 1,024 unknown interfaces: $best_names ms, of 1,025 entries refused by count: $best_count ms" \
        "(best of 3): $names_ms ms for the names"
# The issue's bar (46): under a second (scaled by the timeout factor, as
# every wait here: an emulated guest's system calls are slow; the lookups
# alone take about 1 ms on the host, BENCHMARKS.md).
[ "$names_ms" -lt $((1000 * limit_s)) ] || fail "tbsd took $names_ms ms on 1,024 unknown names (not < $limit_s s)"
pass "tbsd refused 1,024 unknown names in $names_ms ms (< $limit_s s)"

# The refusal: every name, one line each (gdbus: busctl cuts an error
# message at 2 kB).
out=$(asgroup gdbus call --system --timeout 300 --dest org.tsn.Tbs --object-path /org/tsn/Tbs \
        --method org.tsn.Tbs.Manager.ApplySchedules "[$batch]" '@as []' netconf 2>&1) &&
        fail "ApplySchedules of 1,024 unknown interfaces was not refused: $out"
printf '%s\n' "$out" > "$TMPDIR/many.out"
assert_contains "$out" "ApplySchedules(gre0) by uid 65534: interface: no interface gre0 here" "the 1,024-name refusal"
assert_contains "$out" "ApplySchedules(zz1023) by uid 65534: interface: no interface zz1023 here" "the 1,024-name refusal"
assert_eq "$(grep -c 'interface: no interface [a-z0-9]* here$' "$TMPDIR/many.out")" 1024 "names refused in the answer"
assert_eq "$(qdisc_at mp0 root | jq -r .kind)" mqprio "mp0's root after the refusals (tc)"
[ -z "$(ls "$state/schedules.d" | grep -v '^mp0.json$')" ] || fail "a refused document was kept: $(ls -a "$state/schedules.d")"
pass "no refused document was kept"
# ValidateSchedules (a NETCONF <validate>'s dry run) of the same names: the
# same lookups, each name a problem of the answer, nothing kept.
out=$(asgroup gdbus call --system --timeout 300 --dest org.tsn.Tbs --object-path /org/tsn/Tbs \
        --method org.tsn.Tbs.Manager.ValidateSchedules "[$batch]" 2>&1) ||
        fail "ValidateSchedules of 1,024 unknown interfaces failed: $out"
assert_contains "$out" "ValidateSchedules(zz1023) by uid 65534: interface: no interface zz1023 here" \
        "ValidateSchedules of 1,024 unknown names: a problem each"
assert_eq "$(grep -o 'ValidateSchedules([a-z0-9]*) by uid 65534: interface: no interface [a-z0-9]* here' <<<"$out" | wc -l)" \
        1024 "problems in ValidateSchedules' answer"
[ -z "$(ls "$state/schedules.d" | grep -v '^mp0.json$')" ] || fail "ValidateSchedules kept a document: $(ls -a "$state/schedules.d")"
pass "ValidateSchedules kept nothing"

# Over NETCONF: one commit of 200 interfaces no one has.
entries=()
for i in $(seq 1 200); do
        entries+=("$(nc_mq_iface "nc$i" 200000)")
        names_given "nc$i"
done
nc_config "${entries[@]}" > "$NC/many.xml"
t0=$(ms)
out=$(client edit "$NC/many.xml")
nc_ms=$(( $(ms) - t0 ))
echo "the NETCONF commit of 200 unknown interfaces was answered in $nc_ms ms"
assert_contains "$out" "rpc-error: ApplySchedules(nc1) by uid 64999: interface: no interface nc1 here" \
        "the commit's rpc-error for nc1"
assert_contains "$out" "rpc-error: ApplySchedules(nc200) by uid 64999: interface: no interface nc200 here" \
        "the commit's rpc-error for nc200"

# tbsctl as root naming interfaces this machine lacks (module names): its
# own lookups (import, selftest, the hint after GetLink) are rtnetlink's
# too; with if_nametoindex() each asked for "netdev-NAME" and "NAME".
names_given ip6_vti0 ipip nlmon0
out=$("$TBSCTL" import ip6_vti0 2>&1) && fail "tbsctl import of an unknown interface succeeded: $out"
assert_contains "$out" "ip6_vti0: no such interface" "tbsctl import ip6_vti0"
out=$("$TBSCTL" status ipip 2>&1) && fail "tbsctl status of an unknown interface succeeded: $out"
assert_contains "$out" "ipip: no interface of that name on this machine" "tbsctl status ipip"
out=$("$TBSCTL" selftest nlmon0 0 2>&1) && fail "tbsctl selftest of an unknown interface succeeded: $out"
assert_contains "$out" "nlmon0: no interface of that name on this machine" "tbsctl selftest nlmon0"
out=$("$TBSCTL" status mp0p 2>&1) && fail "tbsctl status of an interface without a schedule succeeded: $out"
assert_contains "$out" "mp0p: the interface exists, but no schedule in tbsd's folder names it" "tbsctl status mp0p"

# Not one request for a name a caller gave.
echo "module requests while callers named interfaces: $(wc -l < /run/modprobe.log)"
cat /run/modprobe.log
asked=$(awk '{ print $NF }' /run/modprobe.log | sed 's/^netdev-//' | grep -Fx -f "$TMPDIR/names" || true)
[ -z "$asked" ] || fail "modprobe was asked for names callers gave: $(echo $asked | head -c 300)"
pass "no module request for any of the $(wc -l < "$TMPDIR/names") names callers gave"
grep -q '^-q -- netdev-' /run/modprobe.log && fail "a netdev- module was requested: $(grep netdev- /run/modprobe.log)"
pass "no netdev-* module request at all"

# Point 5: a name with control characters comes back on one line, escaped.
nl_name=$(printf 'a\nb')
out=$(asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ApplySchedule sss "$nl_name" '{}' \
        netconf 2>&1) && fail "a name with a newline was taken"
assert_eq "$(wc -l <<<"$out")" 1 "lines of the refusal of a name with a newline"
assert_contains "$out" "interface: 'a\\nb' is not an interface name: it has control characters" "its refusal"
out=$(call ApplySchedules 'a(ss)ass' 1 "$(printf 'x\001y')" '{}' 0 netconf 2>&1) && fail "a name with \\x01 was taken"
assert_eq "$(wc -l <<<"$out")" 1 "lines of the refusal of a name with \\x01"
assert_contains "$out" "interface: 'x\\x01y' is not an interface name: it has control characters" "its refusal"
out=$(call GetLink s "$nl_name" 2>&1) && fail "GetLink of a name with a newline answered"
assert_eq "$(wc -l <<<"$out")" 1 "lines of GetLink's error for a name with a newline"
assert_contains "$out" "no link named 'a\\nb'" "GetLink's error"
out=$(call ApplySchedule sss '%2ehid' '{}' netconf 2>&1) && fail "a name with '%' was taken"
assert_contains "$out" "'%2ehid' is not an interface name: it has '%', which no interface name has" "a name with '%'"

# Point 5: an interface called ".hid" (valid in Linux) gets its schedule over the bus.
make_veth .hid hidp 4
write_mqprio_schedule "$TMPDIR/hid.json" .hid 300000 400000
assert_eq "$(asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ApplySchedule sss .hid \
        "$(cat "$TMPDIR/hid.json")" netconf)" "bas true 0" "ApplySchedule(.hid)"
assert_eq "$(qdisc_at .hid root | jq -r .kind)" mqprio ".hid's root (tc)"
assert_eq "$(etf_delta .hid 100:1)" 300000 ".hid queue 0's etf delta (tc)"
[ -e "$state/schedules.d/%2ehid.json" ] || fail ".hid's document is not kept as %2ehid.json: $(ls -a "$state/schedules.d")"
pass ".hid's document is kept as $state/schedules.d/%2ehid.json"
got=$(busctl --system --json=short call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager GetSchedule s .hid)
assert_eq "$(jq -r '.data[1]' <<<"$got")" netconf "GetSchedule(.hid) origin"
assert_eq "$("$TBSCTL" --json status .hid | jq -r .origin)" netconf ".hid's origin (tbsctl status)"
assert_eq "$(call GetLink s .hid)" 'o "/org/tsn/Tbs/link/_2ehid"' "GetLink(.hid)"
assert_eq "$(link_state .hid)" configured ".hid's state"
assert_eq "$(asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager RemoveSchedule ss .hid netconf)" "" \
        "RemoveSchedule(.hid)"
[ "$(qdisc_at .hid root | jq -r .kind)" != mqprio ] || fail ".hid's mqprio stayed after RemoveSchedule"
pass ".hid's tree removed"
[ ! -e "$state/schedules.d/%2ehid.json" ] || fail ".hid's document stayed"
pass ".hid's document dropped"

kill -0 "$TBSD_PID" || fail "tbsd died"
"$TBSCTL" status mp0 >/dev/null || fail "tbsd stopped serving"
pass "tbsd still serving"
