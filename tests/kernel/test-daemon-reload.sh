# Reloads: only what changed is applied; a broken new file leaves its
# interface as it was; a deleted file removes tbsd's qdiscs; 200 rapid
# reloads do not grow tbsd's memory or open files.
make_veth rl0 rl0p 4
make_veth rl1 rl1p 4
make_veth rl2 rl2p 4
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/rl0.json" rl0 200000 500000
write_mqprio_schedule "$conf/rl1.json" rl1 200000 500000
write_mqprio_schedule "$conf/rl2.json" rl2 200000 500000
start_system_bus
start_tbsd "$conf"
start_monitor
wait_configured rl2
before0=$(handles rl0)
before1=$(handles rl1)

# rl0 changes one delta, rl1's new file is broken, rl2's file is deleted.
write_mqprio_schedule "$conf/rl0.json" rl0 210000 500000
echo '{"interface": "rl1", "root": {"qdisc": "mqprio", "num_tc": 99}}' > "$conf/rl1.json"
rm "$conf/rl2.json"
set +e
out=$("$TBSCTL" reload 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "reload with a broken file fails"
assert_contains "$out" "rl1.json: root.num_tc" "reload names the broken file and field"

assert_eq "$(etf_delta rl0 100:1)" 210000 "rl0 new delta applied"
assert_eq "$(tc -j qdisc show dev rl0 | jq -r '.[] | select(.parent == "100:2") | .handle')" \
        "$(tr ' ' '\n' <<<"$before0" | awk -F= '$1 == "100:2" { print $2 }')" "rl0's unchanged child kept its handle"
assert_eq "$(handles rl1)" "$before1" "rl1 left exactly as it was"
assert_eq "$(link_state rl1)" configured "rl1 still configured with its previous schedule"
expect_event rl1 failed
assert_eq "$(tc -j qdisc show dev rl2 | jq -r '.[] | select(.root) | .kind')" noqueue "rl2 back to its default root"
set +e
"$TBSCTL" status rl2 >/dev/null 2>&1; rc=$?
set -e
assert_eq "$rc" 1 "rl2 is no longer a link"
expect_event rl2 removed

# 200 rapid reloads: memory and open files do not grow.
write_mqprio_schedule "$conf/rl1.json" rl1 200000 500000
reloads() { grep -c "reloaded: " "$TBS_OUT/tbsd.log" || true; }
n0=$(reloads)
for i in $(seq 1 20); do kill -HUP "$TBSD_PID"; done
# Signals coalesce: wait until the last one was handled (no reload for a while).
wait_until 10 sh -c "[ \$(grep -c 'reloaded: ' '$TBS_OUT/tbsd.log') -gt $n0 ]" || fail "SIGHUP did not reload"
prev=-1
while [ "$(reloads)" != "$prev" ]; do prev=$(reloads); "$TBSCTL" list >/dev/null; done
rss0=$(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)
fds0=$(ls /proc/$TBSD_PID/fd | wc -l)
for i in $(seq 1 200); do
        if [ $((i % 2)) = 0 ]; then
                write_mqprio_schedule "$conf/rl0.json" rl0 220000 500000
        else
                write_mqprio_schedule "$conf/rl0.json" rl0 230000 500000
        fi
        "$TBSCTL" reload
done
rss1=$(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)
fds1=$(ls /proc/$TBSD_PID/fd | wc -l)
echo "tbsd after 200 reloads: VmRSS ${rss0} kB -> ${rss1} kB, open files $fds0 -> $fds1"
assert_eq "$fds1" "$fds0" "open files after 200 reloads"
[ "$rss1" -le $((rss0 + 256)) ] || fail "VmRSS grew from $rss0 kB to $rss1 kB over 200 reloads"
pass "VmRSS within 256 kB after 200 reloads"
assert_eq "$(etf_delta rl0 100:1)" 220000 "rl0 delta after the last reload"

# A reload does not read files again whose version (stat: inode, size,
# mode, owner, mtime, ctime) is the one read last time, and still sees a
# change that keeps the size. Files written less than 2 s before a read
# are always read again, hence the pause before the stamping reload.
sleep 3
"$TBSCTL" reload
reload_opens() { # the schedule files tbsd opens during one reload
        strace -qq -p "$TBSD_PID" -e trace=openat -o "$TMPDIR/opens" &
        local st=$!
        wait_until 10 sh -c "grep -q '^TracerPid:[[:space:]]*[1-9]' /proc/$TBSD_PID/status" ||
                fail "strace did not attach to tbsd"
        # The reply comes after the reload's system calls, which strace saw
        # (the tracee waits for it at each one); TERM makes it flush and detach.
        "$TBSCTL" reload
        kill "$st"; wait "$st" 2>/dev/null || true
        # strace saw the reload: the folder itself is listed every time
        grep -q "openat(.*\"$conf\", O_RDONLY" "$TMPDIR/opens" || fail "no reload seen: $(cat "$TMPDIR/opens")"
        # files are opened relative to the folder: openat(FD, "NAME.json", ...)
        grep -oE '[a-z0-9]+\.json"' "$TMPDIR/opens" | tr -d '"' | sort -u | tr '\n' ' '
}
assert_eq "$(reload_opens)" "" "files opened by a reload with nothing changed"
write_mqprio_schedule "$conf/rl1.json" rl1 300000 500000
assert_eq "$(reload_opens)" "rl1.json " "files opened by a reload after rl1.json changed (same size)"
assert_eq "$(etf_delta rl1 100:1)" 300000 "rl1 new delta applied"
assert_eq "$(link_state rl0)" configured "rl0 still configured"
kill -0 "$TBSD_PID" || fail "tbsd died"
