# tbsctl import: trees installed by hand with tc (mqprio + etf, mqprio + cbs,
# taprio txtime-assist + etf) come back as schedule files that validate and that
# `tbsd --once` finds already in place ("unchanged", no handle changes);
# trees a schedule cannot express (htb root, a child of another kind) are
# refused with one line naming what. -o writes atomically and replaces an
# existing file only with --force.
set +e
modprobe -d /run/modroot sch_htb || fail "modprobe sch_htb"
modprobe -d /run/modroot sch_fq_codel || fail "modprobe sch_fq_codel"
modprobe -d /run/modroot sch_ingress || fail "modprobe sch_ingress"
set -e
make_veth va vb 4
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

handles() { qdisc_json va | jq -c '[.[] | {kind, handle, parent}] | sort_by(.parent)'; }

# import_case NAME: import va into the folder, validate it as tbsctl and
# tbsd see it, apply it once: nothing may change.
import_case() {
        local before out
        rm -f "$conf/va.json"
        before=$(handles)
        "$TBSCTL" import va -o "$conf/va.json" || fail "$1: import failed"
        pass "$1: imported"
        cat "$conf/va.json"
        "$TBSCTL" validate "$conf/va.json" || fail "$1: tbsctl validate refused the import"
        pass "$1: tbsctl validate accepts it"
        "$TBSD" --check --config-dir "$conf" || fail "$1: tbsd --check refused the import"
        pass "$1: tbsd --check accepts it"
        out=$("$TBSD" --once --config-dir "$conf" || true)
        assert_eq "$out" "va: unchanged" "$1: tbsd --once with the import"
        assert_eq "$(handles)" "$before" "$1: handles after --once"
}

# mqprio + etf, as an operator's script would set it up.
tc qdisc add dev va root handle 100: mqprio num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 \
        queues 1@0 1@1 2@2 hw 0
tc qdisc add dev va parent 100:1 handle 101: etf clockid CLOCK_TAI delta 300000
tc qdisc add dev va parent 100:2 handle 102: etf clockid CLOCK_TAI delta 500000 deadline_mode skip_sock_check
import_case "mqprio+etf"
doc=$(cat "$conf/va.json")
assert_eq "$(jq -c '.root | [.qdisc, .handle, .num_tc, .hw_offload]' <<<"$doc")" '["mqprio","100:",3,false]' "mqprio root"
assert_eq "$(jq -c .root.queues <<<"$doc")" \
        '[{"count":1,"offset":0},{"count":1,"offset":1},{"count":2,"offset":2}]' "mqprio queues"
assert_eq "$(jq -c '[.txqueues[] | [.queue, .delta_ns, .offload, .deadline_mode, .skip_sock_check]]' <<<"$doc")" \
        '[[0,300000,false,false,false],[1,500000,false,true,true]]' "etf children"

# Standard output is the same document; -o refuses to replace a file
# without --force and leaves it alone; --force replaces it.
assert_eq "$("$TBSCTL" import va)" "$doc" "import to standard output"
# Reading a dump needs no privilege (and no daemon: none runs here).
assert_eq "$(setpriv --reuid 65534 --regid 65534 --clear-groups "$TBSCTL" import va)" "$doc" \
        "import as uid 65534"
echo keep > "$conf/other.txt"
set +e
err=$("$TBSCTL" import va -o "$conf/other.txt" 2>&1)
rc=$?
set -e
assert_eq "$rc" 1 "import over an existing file without --force: exit status"
assert_eq "$err" "tbsctl: $conf/other.txt: exists; use --force to replace it" "import over an existing file"
assert_eq "$(cat "$conf/other.txt")" keep "the existing file is untouched"
"$TBSCTL" import va -o "$conf/other.txt" --force
assert_eq "$(cat "$conf/other.txt")" "$doc" "--force replaces it"
assert_eq "$(stat -c %a "$conf/other.txt")" 644 "the written file's mode"
assert_eq "$(find "$conf" -name '.tbsctl-import.*' | wc -l)" 0 "no temporary file left"
rm -f "$conf/other.txt"

# mqprio + cbs (with the etf children): a credit-based shaper on queue 2.
tc qdisc replace dev va parent 100:3 handle 103: cbs idleslope 20000 sendslope -980000 \
        hicredit 30 locredit -1470 offload 0
import_case "mqprio+cbs"
assert_eq "$(jq -c '[.txqueues[] | select(.qdisc == "cbs") | [.queue, .idle_slope_kbps, .send_slope_kbps, .hi_credit_bytes, .lo_credit_bytes, .offload]]' "$conf/va.json")" \
        '[[2,20000,-980000,30,-1470,false]]' "cbs child"
assert_eq "$(jq -c '[.txqueues[] | .qdisc]' "$conf/va.json")" '["etf","etf","cbs"]' "children of mqprio+cbs"
# cbs's inner qdisc replaced: the format has no key for it. An ingress
# qdisc is no part of the egress tree and is not in the way.
tc qdisc add dev va ingress
"$TBSCTL" import va >/dev/null || fail "an ingress qdisc stopped the import"
pass "an ingress qdisc does not stop the import"
tc qdisc replace dev va parent 103:1 handle 203: fq_codel
set +e
err=$("$TBSCTL" import va 2>&1 >/dev/null)
rc=$?
set -e
assert_eq "$rc" 1 "a qdisc inside cbs: exit status"
assert_eq "$err" "tbsctl: va: cannot import: qdisc 203: is neither the root nor on a TX queue of it (a qdisc inside a TX queue's qdisc, such as cbs's), which a schedule cannot express" \
        "a qdisc inside cbs refused"
tc qdisc del dev va ingress

# taprio txtime-assist + etf, cycle time not the sum, with an extension.
tc qdisc del dev va root
tc qdisc add dev va root handle 100: taprio num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 \
        queues 1@0 1@1 2@2 base-time 1000 \
        sched-entry S 01 300000 sched-entry S 02 300000 sched-entry S 04 400000 \
        cycle-time 1200000 cycle-time-extension 5000 \
        flags 0x1 txtime-delay 200000 clockid CLOCK_TAI
tc qdisc replace dev va parent 100:1 handle 101: etf clockid CLOCK_TAI delta 300000 skip_sock_check
import_case "taprio txtime-assist+etf"
doc=$(cat "$conf/va.json")
assert_eq "$(jq -c '.root | [.qdisc, .mode, .base_time_ns, .cycle_time_ns, .cycle_time_extension_ns, .txtime_delay_ns, .clockid]' <<<"$doc")" \
        '["taprio","txtime-assist",1000,1200000,5000,200000,"CLOCK_TAI"]' "taprio root"
assert_eq "$(jq -c '[.root.entries[] | [.command, .gate_mask, .interval_ns]]' <<<"$doc")" \
        '[["set-gates","0x1",300000],["set-gates","0x2",300000],["set-gates","0x4",400000]]' "taprio entries"
assert_eq "$(jq -c '[.txqueues[] | [.queue, .delta_ns, .skip_sock_check]]' <<<"$doc")" '[[0,300000,true]]' "etf child"

# A child a schedule cannot declare: refused, one line, nothing written.
tc qdisc replace dev va parent 100:3 handle 103: fq_codel
rm -f "$conf/va.json"
set +e
err=$("$TBSCTL" import va -o "$conf/va.json" 2>&1)
rc=$?
set -e
assert_eq "$rc" 1 "fq_codel child: exit status"
assert_eq "$err" "tbsctl: va: cannot import: txqueue 2: fq_codel 103: on 100:3: a schedule puts etf, cbs or the root's default (pfifo) on a TX queue" \
        "fq_codel child refused"
[ ! -e "$conf/va.json" ] || fail "a refused import wrote a file"
pass "a refused import writes nothing"

# An htb root.
tc qdisc del dev va root
tc qdisc add dev va root handle 1: htb default 10
set +e
err=$("$TBSCTL" import va 2>&1 >/dev/null)
rc=$?
set -e
assert_eq "$rc" 1 "htb root: exit status"
assert_eq "$err" "tbsctl: va: cannot import: root qdisc htb 1: is none of mqprio, taprio, etf and cbs, the roots a schedule declares" \
        "htb root refused"

# The kernel's own root, and an interface that does not exist.
tc qdisc del dev va root
set +e
err=$("$TBSCTL" import va 2>&1 >/dev/null)
assert_eq "$?" 1 "default root: exit status"
set -e
assert_eq "$err" "tbsctl: va: cannot import: the root is the kernel's default qdisc (noqueue), not an mqprio, taprio, etf or cbs tree: nothing to import" \
        "default root refused"
set +e
err=$("$TBSCTL" import nosuch0 2>&1 >/dev/null)
assert_eq "$?" 1 "missing interface: exit status"
set -e
assert_eq "$err" "tbsctl: nosuch0: no such interface" "missing interface"
