# Not a test: records the ptp4l management replies under
# tests/unit/fixtures/ptp/ (see the README there). Run as
#   tests/kernel/uml-run --keep --timeout 120 tests/kernel/record-ptp-fixtures.sh
# and copy the .bin/.txt files from the kept results folder.
rec=$TBS_SOURCE_DIR/tests/tools/record-ptp-replies.py
make_ptp_netns_pair

ip netns exec m ptp4l -i p0 -S -2 --uds_address=/run/ptp4l-m -m >"$TBS_OUT/master.log" 2>&1 &
ip netns exec s ptp4l -i p1 -S -s -2 --uds_address=/run/ptp4l-s -m >"$TBS_OUT/slave.log" 2>&1 &

slave_state() {
        pmc -u -b 0 -s /run/ptp4l-s 'GET PORT_DATA_SET' | awk '$1 == "portState" { print $2 }'
}
is_slave() { [ "$(slave_state)" = SLAVE ]; }
wait_until 60 is_slave || fail "slave port $(slave_state) after 60 s"
sleep 2

python3 "$rec" reply /run/ptp4l-s "$TBS_OUT" \
        slave-port-data-set=0x2004 slave-time-status-np=0xc000 \
        slave-current-data-set=0x2001 slave-parent-data-set=0x2002 \
        slave-time-properties-data-set=0x2003 \
        slave-fault-log=0x0006 slave-default-data-set-d5=0x2000,5 \
        slave-port-data-set-ts1=0x2004,0,1 slave-clock-accuracy=0x2010
pmc -u -b 0 -s /run/ptp4l-s 'GET PORT_DATA_SET' 'GET TIME_STATUS_NP' 'GET CURRENT_DATA_SET' \
        'GET PARENT_DATA_SET' 'GET TIME_PROPERTIES_DATA_SET' > "$TBS_OUT/slave-pmc.txt"
python3 "$rec" reply /run/ptp4l-m "$TBS_OUT" \
        master-port-data-set=0x2004 master-time-status-np=0xc000 \
        master-current-data-set=0x2001 master-parent-data-set=0x2002
pmc -u -b 0 -s /run/ptp4l-m 'GET PORT_DATA_SET' 'GET TIME_STATUS_NP' 'GET CURRENT_DATA_SET' \
        'GET PARENT_DATA_SET' > "$TBS_OUT/master-pmc.txt"
ptp4l -v > "$TBS_OUT/ptp4l-version.txt" 2>&1 || true

# Port properties of the one-port slave, then a boundary clock with two
# ports: bc1 (p5) faces the grandmaster's second port, bc2 (p7) faces an
# idle namespace, so one port turns SLAVE and the other MASTER.
python3 "$rec" reply /run/ptp4l-s "$TBS_OUT" slave-port-properties-np=0xc004
ip netns add b
ip netns add x
ip link add p4 type veth peer name p5
ip link add p6 type veth peer name p7
ip link set p4 netns m
ip link set p5 netns b
ip link set p6 netns x
ip link set p7 netns b
for l in p4:m p5:b p6:x p7:b; do ip -n "${l#*:}" link set "${l%:*}" up; done
ip -n b link set lo up
ip netns exec m ptp4l -i p4 -S -2 --uds_address=/run/ptp4l-m2 -m >"$TBS_OUT/master2.log" 2>&1 &
ip netns exec b ptp4l -i p5 -i p7 -S -2 --priority1=200 --uds_address=/run/ptp4l-bc -m >"$TBS_OUT/bc.log" 2>&1 &
bc_states() {
        pmc -u -b 0 -s /run/ptp4l-bc 'GET PORT_DATA_SET' | awk '$1 == "portState" { print $2 }' | sort | tr '\n' ' '
}
bc_ready() { [ "$(bc_states)" = "MASTER SLAVE " ]; }
wait_until 60 bc_ready || fail "boundary clock ports: $(bc_states)"
python3 "$rec" reply /run/ptp4l-bc "$TBS_OUT" bc-port-data-set=0x2004 bc-port-properties-np=0xc004 \
        bc-time-status-np=0xc000
pmc -u -b 0 -s /run/ptp4l-bc 'GET PORT_DATA_SET' 'GET PORT_PROPERTIES_NP' > "$TBS_OUT/bc-pmc.txt"
