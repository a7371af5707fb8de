# issue 40 point 2: schedules given over the bus (Manager.ApplySchedule,
# RemoveSchedule, GetSchedule), called with busctl (the oracle client):
# applied on two veths (tc -j), refusals change nothing, the store survives
# a restart and tbsd --once, the origin shows in tbsctl status, the schedule
# group may call them and not Reload. ApplySchedules: two interfaces in one
# call and one load, one bad document changes nothing, a kernel refusal of
# one puts both back, a removal in the same call, its bound.
# ValidateSchedules: the same checks, rights and bounds, nothing kept.
# ListSchedulesGeneration and ApplySchedulesIfGeneration (issue 48): an
# apply at a generation the kept documents left behind is refused with
# GenerationChanged and changes nothing; at the current one it applies.
make_veth as0 as0p 4
make_veth as1 as1p 4
make_veth fl0 fl0p 4
# ifb: the probe cannot tell whether it offloads etf, the kernel refuses it.
modprobe -d /run/modroot ifb
for i in ifb0 ifb1; do
        ip link add "$i" numtxqueues 4 numrxqueues 4 type ifb
        ip link set "$i" up
done
conf=$TMPDIR/conf
state=$TMPDIR/state
mkdir -p "$conf"
write_mqprio_schedule "$conf/fl0.json" fl0 200000 500000
write_mqprio_schedule "$TMPDIR/as0.json" as0 200000 500000
write_mqprio_schedule "$TMPDIR/as1.json" as1 300000 400000
start_system_bus
start_tbsd "$conf" --state-dir "$state" --schedule-group nogroup
wait_configured fl0

call() { busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager "$@"; }
asgroup_call() { setpriv --reuid=65534 --regid=100 --groups 65534 busctl --system call org.tsn.Tbs /org/tsn/Tbs \
        org.tsn.Tbs.Manager "$@"; }
call_json() { busctl --system --json=short call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager "$@"; }
# refused METHOD ARGS...: the call fails; its message on stdout.
refused() {
        local out
        if out=$(call "$@" 2>&1); then
                fail "$1 was not refused: $out"
        fi
        printf '%s\n' "$out"
}

# Two interfaces given their schedules over the bus.
assert_eq "$(call ApplySchedule sss as0 "$(cat "$TMPDIR/as0.json")" "netconf cnc-1")" "bas true 0" "ApplySchedule(as0)"
assert_eq "$(call ApplySchedule sss as1 "$(cat "$TMPDIR/as1.json")" "netconf cnc-1")" "bas true 0" "ApplySchedule(as1)"
assert_eq "$(qdisc_at as0 root | jq -r .kind)" mqprio "as0's root (tc)"
assert_eq "$(etf_delta as0 100:1)" 200000 "as0 queue 0's etf delta (tc)"
assert_eq "$(etf_delta as1 100:1)" 300000 "as1 queue 0's etf delta (tc)"
assert_eq "$(etf_delta as1 100:2)" 400000 "as1 queue 1's etf delta (tc)"
[ "$(cat "$TMPDIR/as0.json")" = "$(cat "$state/schedules.d/as0.json")" ] || fail "the document is not kept as given"
pass "the document is kept in $state/schedules.d"
assert_eq "$(link_state as0)" configured "as0's state"
assert_eq "$("$TBSCTL" --json status as0 | jq -r .origin)" "netconf cnc-1" "as0's origin (tbsctl status --json)"
assert_eq "$("$TBSCTL" --json status fl0 | jq -r .origin)" file "fl0's origin (tbsctl status --json)"
assert_contains "$("$TBSCTL" status as0)" "Origin: netconf cnc-1" "tbsctl status as0"
got=$(call_json GetSchedule s as1)
assert_eq "$(jq -r '.data[1]' <<<"$got")" "netconf cnc-1" "GetSchedule(as1) origin"
assert_eq "$(jq -r '.data[2]' <<<"$got")" "$state/schedules.d/as1.json" "GetSchedule(as1) path"
assert_eq "$(jq -r '.data[0]' <<<"$got" | jq -c .txqueues[0])" "$(jq -c .txqueues[0] "$TMPDIR/as1.json")" \
        "GetSchedule(as1) document"
assert_eq "$(call_json GetSchedule s fl0 | jq -r '.data[1]')" file "GetSchedule(fl0) origin"

# The same document again: nothing to do.
assert_eq "$(call ApplySchedule sss as0 "$(cat "$TMPDIR/as0.json")" "netconf cnc-1")" "bas false 0" \
        "ApplySchedule(as0) again"

# Refusals: one line naming the caller, the field and the reason; nothing changed.
before0=$(qdisc_shape as0)
before1=$(qdisc_shape as1)
out=$(refused ApplySchedule sss as0 "$(sed 's/"delta_ns": 200000/"delta_ns": "soon"/' "$TMPDIR/as0.json")" netconf)
assert_contains "$out" "ApplySchedule(as0) by uid 0: txqueues[0].delta_ns:" "a bad document's refusal"
out=$(refused ApplySchedule sss as0 "$(sed 's/"offload": "auto"/"offload": true/' "$TMPDIR/as0.json")" netconf)
assert_contains "$out" "ApplySchedule(as0) by uid 0: txqueues[0]" "the device check's refusal (no etf offload on veth)"
out=$(refused ApplySchedule sss nope0 "$(sed 's/as0/nope0/' "$TMPDIR/as0.json")" netconf)
assert_contains "$out" "interface: no interface nope0 here" "an unknown interface's refusal"
out=$(refused ApplySchedule sss as0 "$(cat "$TMPDIR/as1.json")" netconf)
assert_contains "$out" "interface: the document is for as1, not as0" "another interface's document"
out=$(refused ApplySchedule sss fl0 "$(cat "$conf/fl0.json")" netconf)
assert_contains "$out" "fl0 is configured by $conf/fl0.json" "an interface of the schedules folder"
out=$(refused ApplySchedule sss as0 "$(cat "$TMPDIR/as0.json")" "$(printf 'bad\torigin')")
assert_contains "$out" "origin: must be printable ASCII" "a bad origin"
assert_eq "$(qdisc_shape as0)" "$before0" "as0's tree after the refusals"
assert_eq "$(qdisc_shape as1)" "$before1" "as1's tree after the refusals"
[ "$(cat "$TMPDIR/as0.json")" = "$(cat "$state/schedules.d/as0.json")" ] || fail "a refusal changed the kept document"
pass "the kept document is unchanged"
[ ! -e "$state/schedules.d/nope0.json" ] || fail "a refused document was kept"
assert_eq "$("$TBSCTL" --json status as0 | jq -r .origin)" "netconf cnc-1" "as0's origin after the refusals"

# A file added to the folder for an interface the bus gave a schedule:
# the folder's duplicate rule refuses both, the tree in force stays.
write_mqprio_schedule "$conf/as1.json" as1 100000 100000
out=$(refused Reload)
assert_contains "$out" "interface \"as1\" is configured by 2 files" "Reload with as1 declared twice"
assert_eq "$(qdisc_shape as1)" "$before1" "as1's tree while declared twice"
rm "$conf/as1.json"
call Reload

# A document the kernel refuses: rolled back, the previous document kept
# and in force; with no previous one, nothing kept and no link left.
write_ifb() { # IFACE OFFLOAD1 -> the document
        write_mqprio_schedule "$TMPDIR/$1.json" "$1" 200000 500000
        jq ".txqueues[0].offload = false | .txqueues[1].offload = $2" "$TMPDIR/$1.json"
}
call ApplySchedule sss ifb0 "$(write_ifb ifb0 false)" netconf >/dev/null
ifb_before=$(qdisc_shape ifb0)
out=$(refused ApplySchedule sss ifb0 "$(write_ifb ifb0 true)" netconf)
assert_contains "$out" "ApplySchedule(ifb0) by uid 0: txqueue 1 (etf on 100:2): Specified device does not support ETF offload" \
        "the kernel's refusal"
assert_eq "$(qdisc_shape ifb0)" "$ifb_before" "ifb0's tree after the kernel's refusal"
assert_eq "$(jq -c .txqueues[1].offload "$state/schedules.d/ifb0.json")" false "ifb0's kept document is the previous one"
assert_eq "$(link_state ifb0)" configured "ifb0's state after the kernel's refusal"
out=$(refused ApplySchedule sss ifb1 "$(write_ifb ifb1 true)" netconf)
assert_contains "$out" "Specified device does not support ETF offload" "the kernel's refusal of a first document"
[ ! -e "$state/schedules.d/ifb1.json" ] || fail "a document the kernel refused was kept"
if "$TBSCTL" status ifb1 >/dev/null 2>&1; then fail "a link is left for ifb1"; fi
pass "no link left for ifb1"
[ "$(qdisc_at ifb1 root | jq -r .kind)" != mqprio ] || fail "ifb1 has an mqprio root"
pass "ifb1's tree as before"

# ApplySchedules: many interfaces in one call and one load.
loads() { grep -c "reloaded: configuration folder" "$TBS_OUT/tbsd.log" || true; }
write_mqprio_schedule "$TMPDIR/as0b.json" as0 250000 500000
write_mqprio_schedule "$TMPDIR/as1b.json" as1 350000 400000
n_loads=$(loads)
out=$(call ApplySchedules 'a(ss)ass' 2 as0 "$(cat "$TMPDIR/as0b.json")" as1 "$(cat "$TMPDIR/as1b.json")" 0 \
        "netconf cnc-2")
assert_eq "$out" 'asas 2 "as0" "as1" 0' "ApplySchedules(as0, as1)"
assert_eq "$(etf_delta as0 100:1)" 250000 "as0 queue 0's etf delta after ApplySchedules (tc)"
assert_eq "$(etf_delta as1 100:1)" 350000 "as1 queue 0's etf delta after ApplySchedules (tc)"
assert_eq "$("$TBSCTL" --json status as1 | jq -r .origin)" "netconf cnc-2" "as1's origin after ApplySchedules"
assert_eq "$(loads)" "$((n_loads + 1))" "one load for two interfaces (tbsd's log)"
assert_eq "$(call ApplySchedules 'a(ss)ass' 1 as0 "$(cat "$TMPDIR/as0b.json")" 0 "netconf cnc-2")" 'asas 0 0' \
        "ApplySchedules of the document in force: nothing changed"
# One bad document: nothing written, nothing applied.
mid0=$(qdisc_shape as0)
mid1=$(qdisc_shape as1)
out=$(refused ApplySchedules 'a(ss)ass' 2 as0 "$(cat "$TMPDIR/as0.json")" \
        as1 "$(sed 's/"delta_ns": 350000/"delta_ns": "soon"/' "$TMPDIR/as1b.json")" 0 netconf)
assert_contains "$out" "ApplySchedules(as1) by uid 0: txqueues[0].delta_ns:" "ApplySchedules with a bad document"
out=$(refused ApplySchedules 'a(ss)ass' 1 as0 "$(cat "$TMPDIR/as0.json")" 1 fl0 netconf)
assert_contains "$out" "ApplySchedules(fl0) by uid 0: interface: fl0 is configured by $conf/fl0.json" \
        "ApplySchedules removing an interface of the folder"
assert_eq "$(qdisc_shape as0)" "$mid0" "as0's tree after the refused ApplySchedules"
assert_eq "$(qdisc_shape as1)" "$mid1" "as1's tree after the refused ApplySchedules"
[ "$(cat "$TMPDIR/as0b.json")" = "$(cat "$state/schedules.d/as0.json")" ] || fail "a refused batch changed as0's document"
pass "as0's kept document is unchanged after the refused ApplySchedules"
# The kernel refuses one: every interface of the call gets its previous document back.
out=$(refused ApplySchedules 'a(ss)ass' 2 as0 "$(cat "$TMPDIR/as0.json")" ifb0 "$(write_ifb ifb0 true)" 0 netconf)
assert_contains "$out" "ApplySchedules(ifb0) by uid 0: txqueue 1 (etf on 100:2): Specified device does not support ETF offload" \
        "ApplySchedules with a document the kernel refuses"
assert_eq "$(qdisc_shape as0)" "$mid0" "as0's tree after the kernel refused ifb0's (tc)"
assert_eq "$(etf_delta as0 100:1)" 250000 "as0 queue 0's etf delta after the kernel refused ifb0's (tc)"
assert_eq "$(qdisc_shape ifb0)" "$ifb_before" "ifb0's tree after the kernel's refusal in ApplySchedules"
[ "$(cat "$TMPDIR/as0b.json")" = "$(cat "$state/schedules.d/as0.json")" ] || fail "as0's document was not put back"
assert_eq "$(jq -c .txqueues[1].offload "$state/schedules.d/ifb0.json")" false "ifb0's kept document after ApplySchedules"
assert_eq "$("$TBSCTL" --json status as0 | jq -r .origin)" "netconf cnc-2" "as0's origin after the kernel's refusal"
assert_eq "$(link_state as0)" configured "as0's state after the kernel's refusal"
# Bounded: at most 1024 interfaces in one call.
out=$(refused ApplySchedules 'a(ss)ass' 1025 $(for ((i = 0; i < 1025; i++)); do echo "x$i {}"; done) 0 netconf)
assert_contains "$out" "more than 1024 interfaces in one call" "ApplySchedules of 1025 interfaces"
# ValidateSchedules: ApplySchedules' checks, nothing kept, loaded or applied.
n_loads=$(loads)
out=$(call ValidateSchedules 'a(ss)' 2 as0 "$(cat "$TMPDIR/as0.json")" \
        as1 "$(sed 's/"delta_ns": 350000/"delta_ns": "soon"/' "$TMPDIR/as1b.json")")
assert_contains "$out" 'asas 1 "ValidateSchedules(as1) by uid 0: txqueues[0].delta_ns:' \
        "ValidateSchedules of a bad document: the problem, in ApplySchedules' words"
assert_eq "$(call ValidateSchedules 'a(ss)' 1 as0 "$(cat "$TMPDIR/as0.json")")" 'asas 0 0' \
        "ValidateSchedules of a good document: no problem"
out=$(asgroup_call ValidateSchedules 'a(ss)' 1 ifb0 "$(write_ifb ifb0 true)")
assert_contains "$out" 'asas 0 ' "ValidateSchedules by the schedule group of a document only the kernel refuses: no problem"
assert_eq "$(qdisc_shape as0)" "$mid0" "as0's tree after ValidateSchedules (tc)"
assert_eq "$(qdisc_shape as1)" "$mid1" "as1's tree after ValidateSchedules (tc)"
[ "$(cat "$TMPDIR/as0b.json")" = "$(cat "$state/schedules.d/as0.json")" ] || fail "ValidateSchedules changed as0's kept document"
assert_eq "$(loads)" "$n_loads" "no load for ValidateSchedules (tbsd's log)"
out=$(refused ValidateSchedules 'a(ss)' 1025 $(for ((i = 0; i < 1025; i++)); do echo "x$i {}"; done))
assert_contains "$out" "ValidateSchedules by uid 0: more than 1024 interfaces in one call" "ValidateSchedules of 1025 interfaces"
out=$(refused ValidateSchedules 'a(ss)' 1 "../as0" '{}')
assert_contains "$out" "ValidateSchedules by uid 0: interface: '../as0' is not an interface name" "ValidateSchedules of a path"
if out=$(setpriv --reuid=65534 --regid=100 --clear-groups busctl --system call org.tsn.Tbs /org/tsn/Tbs \
        org.tsn.Tbs.Manager ValidateSchedules 'a(ss)' 1 as0 "$(cat "$TMPDIR/as0.json")" 2>&1); then
        fail "a user in neither group may ValidateSchedules"
fi
assert_contains "$out" "for uid 0, the tbsd admin group and group 'nogroup' only" "ValidateSchedules by another user"

# A removal and a document in one call (the schedule group may call it), then as0 and as1 as before.
call ApplySchedule sss ifb1 "$(write_ifb ifb1 false)" netconf >/dev/null
out=$(setpriv --reuid=65534 --regid=100 --groups 65534 busctl --system call org.tsn.Tbs /org/tsn/Tbs \
        org.tsn.Tbs.Manager ApplySchedules 'a(ss)ass' 1 as1 "$(cat "$TMPDIR/as1.json")" 2 ifb1 nope1 "netconf cnc-1")
assert_eq "$out" 'asas 2 "as1" "ifb1" 0' "ApplySchedules by the schedule group: as1 given, ifb1 removed"
[ "$(qdisc_at ifb1 root | jq -r .kind)" != mqprio ] || fail "ifb1's tree stayed after ApplySchedules removed it"
[ ! -e "$state/schedules.d/ifb1.json" ] || fail "ifb1's document is still kept"
pass "ApplySchedules removed ifb1's tree and document"
assert_eq "$(call ApplySchedules 'a(ss)ass' 1 as0 "$(cat "$TMPDIR/as0.json")" 0 "netconf cnc-1")" 'asas 1 "as0" 0' \
        "ApplySchedules(as0) back"
assert_eq "$(qdisc_shape as0)" "$before0" "as0's tree back"
assert_eq "$(qdisc_shape as1)" "$before1" "as1's tree back"

# issue 48: the generation of the kept documents, and an apply conditional on it (the schedule group's).
mono_usec() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000)'; }
group_json() { setpriv --reuid=65534 --regid=100 --groups 65534 busctl --system --json=short call org.tsn.Tbs \
        /org/tsn/Tbs org.tsn.Tbs.Manager "$@"; }
listed=$(group_json ListSchedulesGeneration s "netconf cnc-1")
assert_eq "$(jq -r '[.data[0][][0]] | sort | join(" ")' <<<"$listed")" "as0 as1" "ListSchedulesGeneration: the documents"
stale=$(jq -r '.data[1]' <<<"$listed")
write_mqprio_schedule "$TMPDIR/as1b.json" as1 250000 400000
write_mqprio_schedule "$TMPDIR/as0b.json" as0 150000 500000
call ApplySchedule sss as1 "$(cat "$TMPDIR/as1b.json")" "netconf cnc-1" >/dev/null
now=$(jq -r '.data[1]' <<<"$(group_json ListSchedulesGeneration s "netconf cnc-1")")
[ "$now" != "$stale" ] || fail "the generation stayed $stale after as1 was changed"
shape0=$(qdisc_shape as0)
shape1=$(qdisc_shape as1)
kept0=$(cat "$state/schedules.d/as0.json")
if out=$(asgroup_call ApplySchedulesIfGeneration 'a(ss)asstt' 1 as0 "$(cat "$TMPDIR/as0b.json")" 0 "netconf cnc-1" \
        "$(($(mono_usec) + 30000000))" "$stale" 2>&1); then
        fail "ApplySchedulesIfGeneration at a stale generation was not refused: $out"
fi
assert_contains "$out" "the kept documents changed since generation $stale (now $now): nothing applied" \
        "ApplySchedulesIfGeneration at a stale generation (busctl)"
out=$(setpriv --reuid=65534 --regid=100 --groups 65534 gdbus call --system --dest org.tsn.Tbs --object-path /org/tsn/Tbs \
        --method org.tsn.Tbs.Manager.ApplySchedulesIfGeneration "[('as0', '$(jq -c . "$TMPDIR/as0b.json")')]" "@as []" \
        "netconf cnc-1" "uint64 $(($(mono_usec) + 30000000))" "uint64 $stale" 2>&1 || true)
assert_contains "$out" "org.tsn.Tbs.Error.GenerationChanged" "the refusal's error name (gdbus)"
assert_eq "$(qdisc_shape as0)$(qdisc_shape as1)" "$shape0$shape1" "the trees after the refusal (tc)"
assert_eq "$(cat "$state/schedules.d/as0.json")" "$kept0" "as0's kept document after the refusal"
out=$(asgroup_call ApplySchedulesIfGeneration 'a(ss)asstt' 1 as0 "$(cat "$TMPDIR/as0b.json")" 0 "netconf cnc-1" \
        "$(($(mono_usec) + 30000000))" "$now")
after=$(jq -r '.data[1]' <<<"$(group_json ListSchedulesGeneration s "netconf cnc-1")")
assert_eq "$out" "asast 1 \"as0\" 0 $after" "ApplySchedulesIfGeneration at the current generation: as0 given, the new one"
assert_eq "$(etf_delta as0 100:1)" 150000 "as0's etf delta after the conditional apply (tc)"
assert_eq "$(asgroup_call ApplySchedulesIfGeneration 'a(ss)asstt' 0 0 "netconf cnc-1" "$(($(mono_usec) + 30000000))" \
        "$after")" "asast 0 0 $after" "an empty conditional apply at the current generation: nothing changed"
assert_eq "$(call ApplySchedules 'a(ss)ass' 2 as0 "$(cat "$TMPDIR/as0.json")" as1 "$(cat "$TMPDIR/as1.json")" 0 \
        "netconf cnc-1")" 'asas 2 "as0" "as1" 0' "as0 and as1 back"
assert_eq "$(qdisc_shape as0)$(qdisc_shape as1)" "$before0$before1" "as0's and as1's trees back"

# The schedule group may call the schedule methods, not Reload.
asgroup() { setpriv --reuid=65534 --regid=100 --groups 65534 "$@"; }
out=$(asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ApplySchedule sss as0 \
        "$(cat "$TMPDIR/as0.json")" "netconf cnc-1")
assert_eq "$out" "bas false 0" "ApplySchedule by the schedule group"
if out=$(asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Reload 2>&1); then
        fail "the schedule group may Reload"
fi
assert_contains "$out" "privileged" "Reload by the schedule group"
if out=$(setpriv --reuid=65534 --regid=100 --clear-groups busctl --system call org.tsn.Tbs /org/tsn/Tbs \
        org.tsn.Tbs.Manager ApplySchedule sss as0 "$(cat "$TMPDIR/as0.json")" x 2>&1); then
        fail "a user in neither group may ApplySchedule"
fi
assert_contains "$out" "for uid 0, the tbsd admin group and group 'nogroup' only" "ApplySchedule by another user"

# A restart gives the same trees, and so does tbsd --once after the trees are gone.
kill "$TBSD_PID"
wait "$TBSD_PID" 2>/dev/null || true
start_tbsd "$conf" --state-dir "$state"
wait_configured as0
wait_configured as1
assert_eq "$(qdisc_shape as0)" "$before0" "as0's tree after a restart"
assert_eq "$("$TBSCTL" --json status as1 | jq -r .origin)" "netconf cnc-1" "as1's origin after a restart"
kill "$TBSD_PID"
wait "$TBSD_PID" 2>/dev/null || true
for d in as0 as1 fl0 ifb0; do tc qdisc del dev "$d" root; done
[ "$(qdisc_at as0 root | jq -r .kind)" != mqprio ] || fail "as0's tree is still there"
out=$("$TBSD" --once --config-dir "$conf" --state-dir "$state")
assert_eq "$out" "$(printf 'fl0: applied\nas0: applied\nas1: applied\nifb0: applied')" "tbsd --once"
assert_eq "$(qdisc_shape as0)" "$before0" "as0's tree after tbsd --once"
assert_eq "$(qdisc_shape as1)" "$before1" "as1's tree after tbsd --once"

# tbsd --remove without a daemon knows the kept document's root as tbsd's.
assert_eq "$("$TBSD" --remove as1 --config-dir "$conf" --state-dir "$state")" "as1: removed" \
        "tbsd --remove as1 without a daemon"
[ "$(qdisc_at as1 root | jq -r .kind)" != mqprio ] || fail "as1's tree stayed after tbsd --remove"

# RemoveSchedule: the tree goes, as when a file is unlinked.
start_tbsd "$conf" --state-dir "$state"
wait_configured as1
call RemoveSchedule ss as1 "netconf cnc-1"
[ "$(qdisc_at as1 root | jq -r .kind)" != mqprio ] || fail "as1's tree stayed after RemoveSchedule"
pass "RemoveSchedule(as1) removed the tree"
[ ! -e "$state/schedules.d/as1.json" ] || fail "as1's document is still kept"
out=$(refused RemoveSchedule ss as1 netconf)
assert_contains "$out" "no schedule was given for as1 with ApplySchedule" "RemoveSchedule of nothing"
out=$(refused RemoveSchedule ss fl0 netconf)
assert_contains "$out" "fl0 is configured by $conf/fl0.json" "RemoveSchedule of a folder's interface"
assert_eq "$(link_state as0)" configured "as0 after as1 went"
