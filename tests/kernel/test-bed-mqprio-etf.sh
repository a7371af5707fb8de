# The test bed itself: a 4-queue veth takes an mqprio root and etf children
# installed with tc, and tc -j reads them back as installed.
make_veth va vb 4

tc qdisc add dev va root handle 100: mqprio num_tc 3 \
        map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@1 2@2 hw 0
tc qdisc add dev va parent 100:1 etf clockid CLOCK_TAI delta 300000
tc qdisc add dev va parent 100:2 etf clockid CLOCK_TAI delta 500000 deadline_mode

root=$(qdisc_at va root)
assert_eq "$(jq -r .kind <<<"$root")" mqprio "root kind"
assert_eq "$(jq -r .handle <<<"$root")" "100:" "root handle"
assert_eq "$(jq -c .options.queues <<<"$root")" "[[0,0],[1,1],[2,3]]" "mqprio queues"
assert_eq "$(jq -c .options.map <<<"$root")" "[2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2]" "mqprio map"

q1=$(qdisc_at va 100:1)
assert_eq "$(jq -r .kind <<<"$q1")" etf "queue 0 kind"
assert_eq "$(jq -r .options.clockid <<<"$q1")" TAI "queue 0 clockid"
assert_eq "$(jq -r .options.delta <<<"$q1")" 300000 "queue 0 delta"
assert_eq "$(jq -r .options.deadline_mode <<<"$q1")" off "queue 0 deadline_mode"

q2=$(qdisc_at va 100:2)
assert_eq "$(jq -r .kind <<<"$q2")" etf "queue 1 kind"
assert_eq "$(jq -r .options.delta <<<"$q2")" 500000 "queue 1 delta"
assert_eq "$(jq -r .options.deadline_mode <<<"$q2")" on "queue 1 deadline_mode"

# Queues without etf keep the default child.
assert_eq "$(qdisc_at va 100:3 | jq -r .kind)" pfifo_fast "queue 2 kind"

# The statistics the engine will report are there.
assert_eq "$(jq -r '.packets' <<<"$q1")" 0 "queue 0 packets before traffic"
