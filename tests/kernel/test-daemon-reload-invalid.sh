# A schedule file that cannot be read or taken never removes a tree: each
# of these keeps its link exactly as it was (same qdisc handles, state
# configured) with a StateReason and an Event saying why, and the Reload()
# error names every one of them with its reason, by tbsctl reload and by
# SIGHUP alike:
#   ri0 syntax error (truncated mid-object), ri1 empty, ri2 larger than the
#   limit, ri3 a directory in its place, ri4 a file that gives more bytes
#   than its size says (read as changed while read), ri5 cut short by a full
#   disk during a rewrite, ri6 refused as unsafe (world-writable),
#   ri7 refused as a symbolic link to a file naming ri7 (its target is not
#   read).
# Only a file really gone removes a tree; a valid file naming another
# interface now moves the link; a renamed file keeps the tree, valid or
# not. Then valid versions of every broken file are applied normally.
#
# A folder writable by others is refused as a whole (nothing changes).
#
# The folder is a small tmpfs of its own, so that it can be filled up.
n=8
for i in $(seq 0 $((n - 1))) 8 9 10 11; do
        make_veth "ri$i" "ri${i}p" 4
done
conf=$TMPDIR/conf
mkdir -p "$conf"
mount -t tmpfs -o size=4m,mode=0755 tmpfs "$conf"
for i in $(seq 0 $((n - 1))) 8 9 11; do
        write_mqprio_schedule "$conf/ri$i.json" "ri$i" 200000 500000
done
start_system_bus
start_tbsd "$conf"
start_monitor
for i in $(seq 0 $((n - 1))) 8 9 11; do
        wait_configured "ri$i"
        eval "before$i=\$(handles ri$i)"
done
assert_contains "$before0" "root=100:=mqprio" "ri0's tree"

# --- break every file, each its own way -------------------------------
write_mqprio_schedule "$TMPDIR/full.json" ri0 300000 500000
head -c 150 "$TMPDIR/full.json" > "$conf/ri0.json"
: > "$conf/ri1.json"
{ write_mqprio_schedule /dev/stdout ri2 300000 500000; head -c 1100000 /dev/zero | tr '\0' ' '; } > "$conf/ri2.json"
rm "$conf/ri3.json"; mkdir "$conf/ri3.json"
# A /proc file is a regular file whose size (0) is not what it gives: to
# the reader, exactly a file that grew between its fstat() and its read.
mount --bind /proc/version "$conf/ri4.json"
write_mqprio_schedule "$conf/ri6.json" ri6 300000 500000
chmod 0666 "$conf/ri6.json"
write_mqprio_schedule "$TMPDIR/ri7-target.json" ri7 300000 500000
rm "$conf/ri7.json"; ln -s "$TMPDIR/ri7-target.json" "$conf/ri7.json"
# ri8's file names ri10 now (ri8 goes, ri10 comes); ri9's file is renamed;
# ri11's is renamed and the new name holds an invalid version.
write_mqprio_schedule "$conf/ri8.json" ri10 200000 500000
mv "$conf/ri9.json" "$conf/ri9-new.json"
rm "$conf/ri11.json"
echo '{"interface": "ri11", "root": 5}' > "$conf/ri11-new.json"
# Disk full during a rewrite of ri5.json: the folder is filled up (the
# filler is a dot file, which is not a schedule), the rewrite frees ri5's
# one page and gets just that page: the new version (8 KiB, padded with
# white space) stops after 4096 bytes, inside its padding.
{ printf '{"interface": "ri5",'; head -c 8000 /dev/zero | tr '\0' ' '; tail -c +2 "$TMPDIR/full.json" | sed 's/"interface": "ri0",//'; } > "$TMPDIR/ri5-big.json"
dd if=/dev/zero of="$conf/.filler" bs=4096 2>/dev/null || true
set +e
cat "$TMPDIR/ri5-big.json" > "$conf/ri5.json" 2>"$TMPDIR/enospc"; rc=$?
set -e
assert_eq "$rc" 1 "the rewrite of ri5.json ran out of space"
assert_contains "$(cat "$TMPDIR/enospc")" "No space left on device" "the rewrite's error"
assert_eq "$(stat -c %s "$conf/ri5.json")" 4096 "ri5.json cut short at one page"

# strace: the symbolic link's target is never opened.
strace -qq -p "$TBSD_PID" -e trace=openat,open -o "$TMPDIR/opens" &
strace_pid=$!
wait_until 10 grep -Eq '^TracerPid:[[:space:]]*[1-9]' /proc/$TBSD_PID/status || fail "strace did not attach"
set +e
out=$("$TBSCTL" reload 2>&1); rc=$?
set -e
kill "$strace_pid"; wait "$strace_pid" 2>/dev/null || true
echo "$out"
assert_eq "$rc" 1 "reload with broken files fails"
grep -q "openat(.*\"$conf\"" "$TMPDIR/opens" || fail "strace did not see the reload: $(cat "$TMPDIR/opens")"
if grep -q "ri7-target" "$TMPDIR/opens"; then
        fail "the refused link's target was opened: $(grep ri7-target "$TMPDIR/opens")"
fi
pass "the refused symbolic link's target was not opened"

error_of() { # the reload error's line for file $1
        grep -F "$conf/$1: " <<<"$out" || fail "the reload error does not name $1: $out"
}
assert_contains "$(error_of ri0.json)" "syntax error: unexpected end of file" "reload error (ri0)"
assert_contains "$(error_of ri1.json)" "the file is empty" "reload error (ri1)"
assert_contains "$(error_of ri2.json)" "the file is larger than 1048576 bytes" "reload error (ri2)"
assert_contains "$(error_of ri3.json)" "not a regular file" "reload error (ri3)"
assert_contains "$(error_of ri4.json)" "the file changed while it was read; not used" "reload error (ri4)"
assert_contains "$(error_of ri5.json)" "syntax error: unexpected end of file" "reload error (ri5)"
assert_contains "$(error_of ri6.json)" "is writable by others; refusing it" "reload error (ri6)"
assert_contains "$(error_of ri7.json)" "is a symbolic link; refusing it" "reload error (ri7)"
assert_contains "$(error_of ri11-new.json)" "root: must be an object" "reload error (ri11-new)"
assert_eq "$(grep -c "$conf/" <<<"$out")" "$((n + 1))" "one line per invalid file in the reload error"

check_kept() { # every broken file's link exactly as it was
        local i reason v
        for i in $(seq 0 $((n - 1))); do
                v=before$i
                assert_eq "$(handles "ri$i")" "${!v}" "ri$i's tree unchanged"
                assert_eq "$(busctl --system get-property org.tsn.Tbs "/org/tsn/Tbs/link/ri$i" org.tsn.Tbs.Link State)" \
                        's "configured"' "ri$i State on the bus"
                reason=$(busctl --system get-property org.tsn.Tbs "/org/tsn/Tbs/link/ri$i" org.tsn.Tbs.Link StateReason)
                assert_contains "$reason" "the new version of $conf/ri$i.json is invalid (" "ri$i StateReason"
                assert_contains "$reason" "the previous version stays in force" "ri$i StateReason"
                assert_eq "$(etf_delta "ri$i" 100:1)" 200000 "ri$i's etf delta (the previous schedule)"
        done
}
check_kept
for i in $(seq 0 $((n - 1))); do
        expect_event "ri$i" failed
done
# A valid file naming another interface moves the link: ri8's tree goes.
wait_configured ri10
assert_eq "$(tc -j qdisc show dev ri8 | jq -r '.[] | select(.root) | .kind')" noqueue "ri8 back to its default root"
expect_event ri8 removed
assert_contains "$(grep 'ri8: removed: ' "$TBS_OUT/tbsd.log")" "$conf/ri8.json declares ri10 now" "ri8's removal event"
# A renamed valid file: same tree, the new file.
assert_eq "$(handles ri9)" "$before9" "ri9's tree unchanged after the rename"
assert_eq "$("$TBSCTL" --json status ri9 | jq -r .schedule_file)" "$conf/ri9-new.json" "ri9's file"
# A renamed file whose new version is invalid: the schedule in force stays.
assert_eq "$(handles ri11)" "$before11" "ri11's tree unchanged after a rename to an invalid file"
assert_eq "$(link_state ri11)" configured "ri11 still configured"
assert_contains "$("$TBSCTL" --json status ri11 | jq -r .state_reason)" \
        "$conf/ri11-new.json is invalid (root: must be an object, got 5); the schedule of $conf/ri11.json stays in force" \
        "ri11's StateReason"

# SIGHUP: the same, logged.
reloads() { grep -c ' reloaded ' "$TBS_OUT/monitor.log"; }
reloaded_since() { [ "$(reloads)" -gt "$1" ]; }
r0=$(reloads)
errors0=$(grep -c "$conf/ri5.json: .*syntax error" "$TBS_OUT/tbsd.log")
kill -HUP "$TBSD_PID"
wait_until 10 reloaded_since "$r0" || fail "no reload after SIGHUP"
check_kept
assert_eq "$(grep -c "$conf/ri5.json: .*syntax error" "$TBS_OUT/tbsd.log")" $((errors0 + 1)) "ri5's error logged by the SIGHUP reload"
pass "SIGHUP keeps every tree"

# --- valid versions again: applied normally ---------------------------
rm "$conf/.filler"
umount "$conf/ri4.json"
rmdir "$conf/ri3.json"
rm "$conf/ri7.json"
for i in $(seq 0 $((n - 1))); do
        write_mqprio_schedule "$conf/ri$i.json" "ri$i" 300000 500000
done
chmod 0644 "$conf/ri6.json"
write_mqprio_schedule "$conf/ri11-new.json" ri11 300000 500000
"$TBSCTL" reload || fail "reload with every file valid again"
assert_eq "$(etf_delta ri11 100:1)" 300000 "ri11's renamed file applied once valid"
for i in $(seq 0 $((n - 1))); do
        wait_configured "ri$i"
        assert_eq "$(etf_delta "ri$i" 100:1)" 300000 "ri$i's new delta applied"
        reason=$("$TBSCTL" --json status "ri$i" | jq -r .state_reason)
        case "$reason" in
        *"stays in force"*) fail "ri$i's StateReason still speaks of the invalid version: $reason" ;;
        esac
done
pass "every fixed file applied, StateReason clear"

# A folder writable by others is refused as a whole: the reload fails with
# the reason and changes nothing, even with a file gone meanwhile.
after1=$(handles ri1)
chmod 0777 "$conf"
mv "$conf/ri1.json" "$TMPDIR/ri1.json"
set +e
out=$("$TBSCTL" reload 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "reload of a folder writable by others fails"
assert_contains "$out" "$conf: is writable by others; refusing the schedules folder" "reload error"
assert_eq "$(handles ri1)" "$after1" "ri1 untouched by a refused folder"
assert_eq "$(link_state ri1)" configured "ri1 still configured"
chmod 0755 "$conf"
mv "$TMPDIR/ri1.json" "$conf/ri1.json"

# Only an unlinked file removes a tree.
rm "$conf/ri0.json" "$conf/ri11-new.json"
"$TBSCTL" reload
assert_eq "$(tc -j qdisc show dev ri0 | jq -r '.[] | select(.root) | .kind')" noqueue "ri0 back to its default root"
expect_event ri0 removed
assert_eq "$(tc -j qdisc show dev ri11 | jq -r '.[] | select(.root) | .kind')" noqueue "ri11 back to its default root"
kill -0 "$TBSD_PID" || fail "tbsd died"
