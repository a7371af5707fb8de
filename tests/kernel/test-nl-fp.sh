# Frame preemption per traffic class (root.fp, issue 39 point 3) through
# `tbsd --once`, with `tc -j -d qdisc show` as the oracle. The answer
# depends on the kernel, as tbsd reads it from the kernel's own dump:
# - a kernel that dumps a taprio's fp (Linux 6.4 and later,
#   kernel612-nl-fp; asked below with tc): a software taprio takes
#   all-express fp and dumps it per class (16 entries); the same file again
#   is "unchanged"; tbsctl import of the tree applies as "unchanged"; an
#   mqprio with fp needs hw 1, which veth cannot do (the kernel's refusal
#   is tbsd's one line); a preemptible class in software is refused by
#   the validator (the kernel: "Preemption only supported with full
#   offload").
# - one that does not (Linux 6.1, kernel-nl-fp): taprio ignores TCA_TAPRIO_TC_ENTRY_FP without
#   an error and dumps entries without it; tbsd reads the root back, fails
#   the apply with one line naming the interface, and restores the tree.
make_veth va vb 4
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

# write_root QDISC KEYS: va's schedule, a root of 3 classes with KEYS (JSON members).
write_root() {
        printf '{"interface": "va", "root": {"qdisc": "%s", "handle": "100:", "num_tc": 3,
 "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
 "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2}], %s}}\n' \
                "$1" "$2" > "$conf/va.json"
}

write_taprio() { # FP_JSON
        write_root taprio '"clockid": "CLOCK_TAI", "base_time_ns": 1000, "mode": "software", "fp": '"$1"',
 "entries": [{"gate_mask": 1, "interval_ns": 300000}, {"gate_mask": 6, "interval_ns": 700000}]'
}

handles() { qdisc_json va | jq -c '[.[] | {kind, handle, parent}] | sort_by(.parent)'; }

# Which answer to expect is asked of the running kernel, not read from its
# version: a software taprio installed by tc (no fp asked) is dumped with
# fp per class (TCA_TAPRIO_TC_ENTRY_FP, Linux 6.4 and later) or without.
echo "kernel $(uname -r)"
make_veth fa fb 4
tc qdisc add dev fa root handle 1: taprio num_tc 2 map 0 1 queues 1@0 1@1 base-time 0 \
        sched-entry S 3 1000000 clockid CLOCK_TAI || fail "tc: a software taprio on fa"
kernel_fp=$(tc -j -d qdisc show dev fa | jq -c '.[] | select(.root == true) | .options.fp // empty')
ip link del fa
echo "the kernel dumps a taprio's fp: ${kernel_fp:-no}"

write_taprio '["E", "E", "E"]'
before=$(handles)
out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
echo "$out"

if [ -n "$kernel_fp" ]; then
        assert_eq "$out" "va: applied" "taprio with fp E E E"
        root=$(tc -j -d qdisc show dev va | jq -c '.[] | select(.root == true)')
        echo "$root"
        assert_eq "$(jq -r .kind <<<"$root")" taprio "root kind"
        assert_eq "$(jq -c .options.fp <<<"$root")" '["E","E","E","E","E","E","E","E","E","E","E","E","E","E","E","E"]' \
                "tc -j -d: fp per class"
        out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
        assert_eq "$out" "va: unchanged" "the same file again: compared with the kernel's fp"

        # import: the tree comes back as a file that applies unchanged
        "$TBSCTL" import va -o "$TMPDIR/imported.json" || fail "import failed"
        cat "$TMPDIR/imported.json"
        rm -f "$conf/va.json"
        cp "$TMPDIR/imported.json" "$conf/va.json"
        mid=$(handles)
        out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
        assert_eq "$out" "va: unchanged" "the import applied again"
        assert_eq "$(handles)" "$mid" "handles after the import's --once"
        # the import with fp added reads the same
        jq '.root.fp = ["E", "E", "E"]' "$TMPDIR/imported.json" > "$conf/va.json"
        out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
        assert_eq "$out" "va: unchanged" "the import with fp E E E"
        "$TBSD" --remove --config-dir "$conf" >/dev/null 2>&1 || true

        # mqprio: fp needs hw 1, which veth has no offload for
        write_root mqprio '"hw_offload": true, "fp": ["E", "E", "E"]'
        out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
        echo "$out"
        assert_contains "$out" "va:" "mqprio hw 1 with fp on veth: one line naming the interface"
        [ "$out" != "va: applied" ] || fail "mqprio hw 1 on veth reported applied"
        pass "mqprio hw 1 with fp on veth: refused"

        # Rollback (qdisc-rollback.c): an apply that fails after changing a
        # taprio with fp puts its schedule back with every class's fp, in
        # place; one that fails after replacing it re-creates it. An etf
        # with offload on an ifb (the probe does not know it; the kernel
        # refuses) is the failing step. No device here has preemptible
        # classes (veth and ifb have no MAC merge layer), so the classes are
        # express: unit test-qdisc-rollback shows preemptible ones are sent.
        rm -f "$conf/va.json"
        modprobe -d /run/modroot ifb
        ip link add fb0 numtxqueues 4 numrxqueues 4 type ifb
        ip link set fb0 up
        fb_root() { # HANDLE INTERVAL0
                printf '"qdisc": "taprio", "handle": "%s", "num_tc": 3, "clockid": "CLOCK_TAI",
 "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], "base_time_ns": 1000, "mode": "software",
 "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2}],
 "fp": ["E", "E", "E"],
 "entries": [{"gate_mask": 1, "interval_ns": %s}, {"gate_mask": 6, "interval_ns": 700000}]' "$1" "$2"
        }
        fb_tree() { tc -j -d qdisc show dev fb0 | jq -c '[.[] | select(.root) | {kind, handle, fp: .options.fp,
 schedule: [.options.schedule[].interval]}]'; }
        printf '{"interface": "fb0", "root": {%s}}\n' "$(fb_root 100: 300000)" > "$conf/fb0.json"
        out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
        assert_eq "$out" "fb0: applied" "taprio with fp on fb0"
        good=$(fb_tree)
        echo "fb0: $good"
        cp "$conf/fb0.json" "$TMPDIR/fb0-good.json"
        for h in 100: 200:; do
                printf '{"interface": "fb0", "root": {%s}, "txqueues": [{"queue": 0, "qdisc": "etf",
 "delta_ns": 300000, "offload": true, "skip_sock_check": true}]}\n' "$(fb_root $h 400000)" > "$conf/fb0.json"
                out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
                echo "$out"
                assert_contains "$out" "fb0: failed" "a failing apply over fb0's taprio (root $h)"
                assert_eq "$(fb_tree)" "$good" "fb0's taprio with its fp after the rollback (root $h)"
                cp "$TMPDIR/fb0-good.json" "$conf/fb0.json"
                out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
                assert_eq "$out" "fb0: unchanged" "the first file again after the rollback (root $h)"
        done
        rm -f "$conf/fb0.json"
else
        assert_contains "$out" "va: " "the refusal names the interface"
        assert_contains "$out" "root.fp: this kernel does not support frame preemption" "taprio with fp on a kernel without it"
        [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "more than one line: $out"
        pass "one line"
        assert_eq "$(handles)" "$before" "the previous tree restored"
        # again: never "unchanged" over a kernel without fp
        out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
        assert_contains "$out" "root.fp: this kernel does not support frame preemption" "the same file again"
        # without fp the same schedule applies as before the key existed
        jq 'del(.root.fp)' "$conf/va.json" > "$TMPDIR/nofp.json" && mv "$TMPDIR/nofp.json" "$conf/va.json"
        out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
        assert_eq "$out" "va: applied" "the schedule without fp"
        # a running taprio, then fp added: changed in place, then refused and restored
        mid=$(handles)
        write_taprio '["E", "E", "E"]'
        out=$("$TBSD" --once --config-dir "$conf" 2>&1 || true)
        echo "$out"
        assert_contains "$out" "root.fp: this kernel does not support frame preemption" "fp over a running taprio"
        assert_eq "$(handles)" "$mid" "the running tree kept"
fi
