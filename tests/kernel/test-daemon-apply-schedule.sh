# issue 40 point 2: schedules given over the bus (Manager.ApplySchedule,
# RemoveSchedule, GetSchedule), called with busctl (the oracle client):
# applied on two veths (tc -j), refusals change nothing, the store survives
# a restart and tbsd --once, the origin shows in tbsctl status, the schedule
# group may call them and not Reload.
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
