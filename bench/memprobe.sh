# The daemon's memory in one minute (not the benchmark; bench/guest.sh
# takes its figures): 256 veth links of 4 queues, the daemon started with
# b0's schedule, one Reload() of the other 255, status and Describe()
# calls, an unchanged Reload() and an Apply(), then VmRSS, the heap's
# mallinfo2() (the daemon's debug log) and smaps per mapping; again after
# 8 s of quiet (the sampler paused and trimmed). Run from the source tree:
#
#   TBS_BUILD_DIR=$PWD/build-bench tests/kernel/uml-run --mem 1G --timeout 900 \
#           bench/memprobe.sh [plain|gdb|heaptrack]
#
# gdb: also glibc's malloc_info() of the daemon after the calls (its
# free chunks by size); heaptrack: the daemon runs under heaptrack and is
# killed at the end, so that `heaptrack_print --print-leaks 1` on the kept
# result folder (--keep) lists what it held then, by allocation site.
mode=${1:-plain}
n=256
for ((i = 0; i < n; i++)); do
  ip link add b$i numtxqueues 4 numrxqueues 4 type veth peer name p$i numtxqueues 4 numrxqueues 4 || fail "veth $i"
  ip link set b$i up; ip link set p$i up
done
work=$TMPDIR/mp; conf=$work/conf; mkdir -p $conf $work/base
. "$TBS_SOURCE_DIR/bench/schedule.sh"
for ((i = 0; i < n; i++)); do bench_schedule "b$i" > "$work/base/b$i.json"; done
cp $work/base/b0.json $conf/
start_system_bus
# The environment the daemon's unit gives it.
tun=$(sed -n 's/^Environment=GLIBC_TUNABLES=//p' "$TBS_BUILD_DIR/units/tbsd.service")
[ -n "$tun" ] || fail "no GLIBC_TUNABLES in $TBS_BUILD_DIR/units/tbsd.service"
case $mode in
heaptrack) mount -t tmpfs tmpfs /tmp   # heaptrack's fifo (hides the host's /tmp)
        GLIBC_TUNABLES=$tun heaptrack -o $TBS_OUT/ht "$TBSD" --config-dir $conf --log-level debug > $TBS_OUT/tbsd.log 2>&1 & ;;
*) GLIBC_TUNABLES=$tun "$TBSD" --config-dir $conf --log-level debug > $TBS_OUT/tbsd.log 2>&1 & ;;
esac
wait_until 60 busctl --system get-property org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Version || fail "no bus"
TBSD_PID=$(pgrep -x tbsd | head -1)
echo "PID $TBSD_PID"
for ((i = 1; i < n; i++)); do cp $work/base/b$i.json $conf/; done
"$TBSCTL" reload || fail reload
heaprss() { awk '/^[0-9a-f]+-[0-9a-f]+ / { name = $6 == "" ? "[anon]" : $6 } /^Rss:/ { rss[name] += $2 } END { print rss["[heap]"], rss["[anon]"] }' /proc/$TBSD_PID/smaps; }
sleep 1; echo "after-reload vmrss $(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status) heap+anon $(heaprss)"
echo "configured: $("$TBSCTL" --json list | jq '[.[] | select(.state == "configured")] | length')"
for c in 1 2 3 4 5; do "$TBSCTL" status b0 >/dev/null; done
for c in 1 2 3; do busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Describe s b$c >/dev/null 2>&1 || true; done
"$TBSCTL" reload; "$TBSCTL" apply b1 || true
sleep 1
echo "R vmrss $(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)"
awk '/^[0-9a-f]+-[0-9a-f]+ / { name = $6 == "" ? "[anon]" : $6 }
     /^Rss:/ { rss[name] += $2 } /^Anonymous:/ { anon[name] += $2 } /^Private_Dirty:/ { pd[name] += $2 }
     END { for (n in rss) if (rss[n] >= 8) printf "S smaps %6d %6d %6d %s\n", rss[n], anon[n], pd[n], n }' \
        "/proc/$TBSD_PID/smaps" | sort -k3 -n -r
grep "heap:" $TBS_OUT/tbsd.log | tail -3
awk '/^[0-9a-f]+-[0-9a-f]+ / { m = $1; name = $6 } /^Rss:/ && name == "" && $2 >= 32 { print "anonmap", m, $2 }' /proc/$TBSD_PID/smaps
if [ "$mode" = gdb ]; then
  gdb -batch -p $TBSD_PID -ex 'call (int) malloc_info(0, stderr)' >/dev/null 2>&1
  grep -A200 "<malloc" $TBS_OUT/tbsd.log | head -80
fi
sleep 8
echo "R vmrss_idle $(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)"
grep "heap:" $TBS_OUT/tbsd.log | tail -1
awk '/^[0-9a-f]+-[0-9a-f]+ / { name = $6 == "" ? "[anon]" : $6 } /^Rss:/ { rss[name] += $2 } END { print "heap-idle", rss["[heap]"] }' /proc/$TBSD_PID/smaps
if [ "$mode" = heaptrack ]; then kill -9 $TBSD_PID; wait; else kill $TBSD_PID; wait $TBSD_PID 2>/dev/null; fi
exit 0
