# Not a test: records raw PTP_SYS_OFFSET* answers of the 82576's PHC (igb)
# for tests/unit/fixtures/phc/ (see the README there). Run as
#   tests/nic/qemu-run --keep --timeout 150 tests/nic/record-phc-samples.sh
# and copy the files from the kept results folder.
rec=$TBS_BUILD_DIR/tests/tools/phc-record
dev=$NIC0
phc=$(phc_index "$dev")
ip link set "$dev" up
# Put the PHC near TAI: system time, then 37 s ahead.
phc_ctl "$dev" set adj 37 >/dev/null
{
        echo "device /dev/ptp$phc ($dev, $(ethtool -i "$dev" | awk '/^driver/ { print $2 }'))"
        echo "before: PHC - CLOCK_REALTIME $(phc_minus_realtime "$dev") ns (phc_ctl cmp)"
        "$rec" "/dev/ptp$phc" "$TBS_OUT"
        echo "after: PHC - CLOCK_REALTIME $(phc_minus_realtime "$dev") ns (phc_ctl cmp)"
} | tee "$TBS_OUT/phc-record.txt"
