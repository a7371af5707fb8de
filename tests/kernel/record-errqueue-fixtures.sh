# Not a test: records the error queue messages under
# tests/unit/fixtures/errqueue/ (see the README there). Run as
#   tests/kernel/uml-run --keep --timeout 120 tests/kernel/record-errqueue-fixtures.sh
# and copy the .bin/.json files from the kept results folder.
rec=$TBS_BUILD_DIR/tests/tools/errqueue-record
make_veth va vb 4
ip addr add 192.0.2.1/24 dev va
ip addr add 192.0.2.2/24 dev vb
ip neigh add 192.0.2.2 lladdr "$(cat /sys/class/net/vb/address)" dev va

# Priority 1 -> queue 0, an etf with room to spare (on time); priority 2 ->
# queue 1, an etf with delta 0 (dequeued at its launch time: late).
tc qdisc add dev va root handle 100: mqprio num_tc 3 map 2 0 1 2 2 2 2 2 2 2 2 2 2 2 2 2 \
        queues 1@0 1@1 2@2 hw 0
tc qdisc add dev va parent 100:1 etf clockid CLOCK_TAI delta 5000000
tc qdisc add dev va parent 100:2 etf clockid CLOCK_TAI delta 0

# The test kernel has no IPv6 (no CONFIG_IPV6): udp6 is recorded elsewhere.
for kind in packet udp4; do
        case $kind in
        udp4) dest=192.0.2.2 ;;
        *) dest= ;;
        esac
        "$rec" "$kind" va "$TBS_OUT/$kind.bin" 1 2 $dest > "$TBS_OUT/$kind.json" ||
                fail "errqueue-record $kind"
        cat "$TBS_OUT/$kind.json"
done
tc -s qdisc show dev va
pass "recorded"
