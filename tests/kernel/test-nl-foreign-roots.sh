# Roots of other kinds under an apply (tbsd --once, no daemon): a root that a
# rollback puts back exactly is replaced, and after a failed apply (etf
# offload on an ifb, refused by the kernel once the new root is in place)
# it is back as it was; a root that a rollback could not put back (classes
# and children a qdisc dump does not carry, options the kernel does not
# take back) is not replaced at all and keeps its classes.
set +e
modprobe -d /run/modroot ifb
for m in sch_htb sch_fq_codel sch_prio sch_fq sch_sfq sch_codel sch_tbf sch_cake sch_hfsc sch_drr \
        sch_multiq sch_red sch_pie sch_netem sch_sfb sch_skbprio sch_choke sch_hhf sch_plug sch_qfq; do
        modprobe -d /run/modroot "$m" || fail "modprobe $m"
done
set -e
ip link add ifb0 numtxqueues 4 numrxqueues 4 type ifb
ip link set ifb0 up
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/ifb0.json" ifb0 200000 500000
jq '.txqueues[0].offload = true' "$conf/ifb0.json" > "$conf/x" && mv "$conf/x" "$conf/ifb0.json"

# root_json: the root's kind, handle and options (fq_codel and codel dump
# their times rounded down to microseconds and may come back 1 us lower).
root_json() {
        tc -j qdisc show dev ifb0 |
                jq -c '[.[] | select(.root) | {kind, handle, options: (.options | del(.target, .interval))}]'
}

# Put back: replaced, and back after the failed apply.
for spec in "pfifo limit 100" "bfifo limit 10000" "pfifo_fast" "pfifo_head_drop limit 100" "fq_codel limit 1234" "fq" "sfq" \
        "codel" "cake bandwidth 10mbit" "pie" "hhf" "plug" "skbprio"; do
        kind=${spec%% *}
        tc qdisc del dev ifb0 root 2>/dev/null || true
        # shellcheck disable=SC2086
        tc qdisc add dev ifb0 root handle 7: $spec
        before=$(root_json)
        out=$("$TBSD" --once --config-dir "$conf" 2>/dev/null || true)
        assert_eq "$out" "ifb0: failed: txqueue 0 (etf on 100:1): Specified device does not support ETF offload" \
                "$kind root replaced, then the apply failed"
        assert_eq "$(root_json)" "$before" "$kind root put back"
done

# Not put back: left in place, with its classes, and the apply refused.
for spec in "htb default 10" "prio bands 4" "hfsc default 10" "drr" "qfq" "multiq" \
        "tbf rate 1mbit burst 32kbit latency 400ms" "netem delay 10ms" "sfb" \
        "red limit 400000 min 30000 max 90000 avpkt 1000 burst 55 probability 0.02 bandwidth 10mbit" \
        "choke limit 1000 bandwidth 10mbit"; do
        kind=${spec%% *}
        tc qdisc del dev ifb0 root 2>/dev/null || true
        # shellcheck disable=SC2086
        tc qdisc add dev ifb0 root handle 7: $spec
        [ "$kind" = htb ] && tc class add dev ifb0 parent 7: classid 7:10 htb rate 1mbit
        before=$(tc -j qdisc show dev ifb0)
        classes=$(tc class show dev ifb0)
        if [ "$kind" = htb ]; then assert_contains "$classes" "class htb 7:10" "htb class before"; fi
        out=$("$TBSD" --once --config-dir "$conf" 2>/dev/null || true)
        assert_contains "$out" "ifb0: failed: root qdisc $kind 7: is not tbsd's and could not be put back" \
                "$kind root not replaced"
        assert_eq "$(tc -j qdisc show dev ifb0)" "$before" "$kind tree untouched"
        assert_eq "$(tc class show dev ifb0)" "$classes" "$kind classes untouched"
done
