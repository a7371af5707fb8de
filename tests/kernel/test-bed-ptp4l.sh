# The test bed itself: master and slave ptp4l with software time stamping
# over a veth pair in two network namespaces; pmc on the slave's socket
# sees its port leave LISTENING and a grandmaster appear.
make_ptp_netns_pair

ip netns exec m ptp4l -i p0 -S -2 --uds_address=/run/ptp4l-m -m >"$TBS_OUT/master.log" 2>&1 &
ip netns exec s ptp4l -i p1 -S -s -2 --uds_address=/run/ptp4l-s -m >"$TBS_OUT/slave.log" 2>&1 &

slave_state() {
        pmc -u -b 0 -s /run/ptp4l-s 'GET PORT_DATA_SET' | awk '$1 == "portState" { print $2 }'
}
not_listening() {
        local st
        st=$(slave_state)
        [ -n "$st" ] && [ "$st" != LISTENING ] && [ "$st" != INITIALIZING ]
}

wait_until 40 not_listening || fail "slave port still $(slave_state) after 40 s"
st=$(slave_state)
case "$st" in
UNCALIBRATED|SLAVE) pass "slave port state $st" ;;
*) fail "unexpected slave port state $st" ;;
esac

gm=$(pmc -u -b 0 -s /run/ptp4l-s 'GET TIME_STATUS_NP' | awk '$1 == "gmPresent" { print $2 }')
assert_eq "$gm" true "gmPresent on the slave"
master_state=$(pmc -u -b 0 -s /run/ptp4l-m 'GET PORT_DATA_SET' | awk '$1 == "portState" { print $2 }')
assert_eq "$master_state" MASTER "master port state"
