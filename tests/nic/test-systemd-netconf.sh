# issue 48 point 6: the service as installed. Run by tbs-test.service in a
# qemu-run --systemd guest (tests/nic/guest-systemd): the project's Debian
# packages installed and docs/netconf.md's set-up done, systemd as PID 1
# has started tbsd.service, tbsd-netconf.service and ssh.service as the
# package ships them. Checked: the units active and their hardening as the
# kernel sees it in the processes (/proc/PID/status, namespaces, mounts)
# and as `systemctl show` reports it; then a controller (python3-ncclient)
# commits a gate schedule over port 830 as docs/netconf.md's set-up says,
# and `tc -j` shows it.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"

booted_ms=$(( ($(date +%s%N) - TBS_BOOT_STARTED_NS) / 1000000 ))
pass "docs/netconf.md's set-up (dpkg -i and the rest) took $TBS_SETUP_MS ms; systemd started, the package's units up and the test's unit running ${booted_ms} ms after exec of systemd"
TBSCTL=/usr/bin/tbsctl

# The package's files as shipped (the units and their hardening unchanged).
out=$(dpkg -V tbsd tbsd-netconf 2>&1) || true
assert_eq "$out" "" "dpkg -V tbsd tbsd-netconf (no file changed)"
for u in tbsd tbsd-netconf; do
        assert_eq "$(systemctl show -p FragmentPath --value "$u.service")" "/lib/systemd/system/$u.service" "$u's unit file"
        assert_eq "$(systemctl is-enabled "$u.service")" enabled "$u.service enabled by the package"
done

# unit_active UNIT: systemd reports the unit active (running).
unit_active() {
        [ "$(systemctl show -p ActiveState --value "$1")" = active ]
}
for u in tbsd.service tbsd-netconf.service ssh.service; do
        wait_until 60 unit_active "$u" ||
                fail "$u is $(systemctl show -p ActiveState,SubState,Result --value "$u" | tr '\n' ' '): $(journalctl -b -u "$u" --no-pager | tail -20)"
        assert_eq "$(systemctl show -p NRestarts --value "$u")" 0 "$u: restarts"
done
pass "tbsd.service, tbsd-netconf.service and ssh.service active"
# netconfd is Type=simple: it serves once its socket is there.
wait_until 60 test -S /run/tbsd-netconf/ncxserver.sock ||
        fail "netconfd's socket did not appear: $(journalctl -b -u tbsd-netconf --no-pager | tail -20)"
pass "netconfd's socket /run/tbsd-netconf/ncxserver.sock"

# status_field PID KEY: a line of /proc/PID/status.
status_field() {
        awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"
}
# root_mount_opts PID: the mount options of / in PID's mount namespace.
root_mount_opts() {
        awk '$5 == "/" { o = $6 } END { print o }' "/proc/$1/mountinfo"
}

# tbsd: root with CAP_NET_ADMIN and CAP_NET_RAW only (bits 12 and 13).
tbsd_pid=$(systemctl show -p MainPID --value tbsd.service)
[ "$tbsd_pid" -gt 0 ] || fail "tbsd.service has no main process"
assert_eq "$(status_field "$tbsd_pid" Uid)" 0 "tbsd's uid"
for k in CapPrm CapEff CapBnd; do
        assert_eq "$(status_field "$tbsd_pid" "$k")" 0000000000003000 "tbsd's $k (CAP_NET_ADMIN CAP_NET_RAW)"
done
assert_eq "$(status_field "$tbsd_pid" CapAmb)" 0000000000000000 "tbsd's CapAmb"
assert_eq "$(status_field "$tbsd_pid" NoNewPrivs)" 1 "tbsd's NoNewPrivs"
assert_eq "$(status_field "$tbsd_pid" Seccomp)" 2 "tbsd's Seccomp (a filter)"
case ",$(root_mount_opts "$tbsd_pid")," in
*,ro,*) pass "tbsd sees / read-only (ProtectSystem=strict)" ;;
*) fail "tbsd's / is mounted '$(root_mount_opts "$tbsd_pid")'" ;;
esac
[ "$(readlink "/proc/$tbsd_pid/ns/net")" = "$(readlink /proc/1/ns/net)" ] ||
        fail "tbsd is not in the host's network namespace"
pass "tbsd is in the host's network namespace"
tr '\0' ' ' < "/proc/$tbsd_pid/cmdline" | grep -q -- '--schedule-group=tbsnc' ||
        fail "tbsd's command line lacks the drop-in's --schedule-group=tbsnc: $(tr '\0' ' ' < "/proc/$tbsd_pid/cmdline")"
pass "tbsd runs with --schedule-group=tbsnc (tbsd.service.d/tbsd-netconf.conf)"
shown=$(systemctl show tbsd.service -p NoNewPrivileges -p ProtectSystem -p ProtectHome -p PrivateTmp \
        -p ProtectClock -p RestrictNamespaces -p MemoryDenyWriteExecute -p DevicePolicy -p UMask \
        -p CapabilityBoundingSet -p RestrictAddressFamilies -p SystemCallArchitectures -p Type)
echo "$shown"
for want in NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes ProtectClock=yes \
        RestrictNamespaces=yes MemoryDenyWriteExecute=yes DevicePolicy=closed UMask=0077 \
        "CapabilityBoundingSet=cap_net_admin cap_net_raw" \
        "RestrictAddressFamilies=AF_INET AF_INET6 AF_NETLINK AF_PACKET AF_UNIX" \
        SystemCallArchitectures=native Type=notify; do
        grep -qxF "$want" <<<"$shown" || fail "systemctl show tbsd.service: '$want' not reported"
done
pass "systemctl show tbsd.service reports its hardening"
assert_eq "$(busctl get-property org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Version >/dev/null 2>&1 && echo yes || echo no)" yes \
        "tbsd answers on the system bus"

# netconfd: the user tbsnc, no capability, its own user and network namespaces.
nc_pid=$(systemctl show -p MainPID --value tbsd-netconf.service)
[ "$nc_pid" -gt 0 ] || fail "tbsd-netconf.service has no main process"
assert_eq "$(tr '\0' '\n' < "/proc/$nc_pid/cmdline" | head -1)" /usr/sbin/netconfd "tbsd-netconf.service's process"
tbsnc_uid=$(id -u tbsnc)
assert_eq "$(status_field "$nc_pid" Uid)" "$tbsnc_uid" "netconfd's uid (tbsnc)"
for k in CapPrm CapEff CapBnd CapAmb; do
        assert_eq "$(status_field "$nc_pid" "$k")" 0000000000000000 "netconfd's $k"
done
assert_eq "$(status_field "$nc_pid" NoNewPrivs)" 1 "netconfd's NoNewPrivs"
assert_eq "$(status_field "$nc_pid" Seccomp)" 2 "netconfd's Seccomp (a filter)"
for ns in net user; do
        [ "$(readlink "/proc/$nc_pid/ns/$ns")" != "$(readlink "/proc/1/ns/$ns")" ] ||
                fail "netconfd shares PID 1's $ns namespace"
done
pass "netconfd has its own network (PrivateNetwork=) and user (PrivateUsers=) namespaces"
case ",$(root_mount_opts "$nc_pid")," in
*,ro,*) pass "netconfd sees / read-only (ProtectSystem=strict)" ;;
*) fail "netconfd's / is mounted '$(root_mount_opts "$nc_pid")'" ;;
esac
grep -q '/yuma/libtbsd\.so$' "/proc/$nc_pid/maps" || fail "netconfd did not map tbsd's server module"
pass "netconfd loaded libtbsd.so"
shown=$(systemctl show tbsd-netconf.service -p User -p PrivateUsers -p PrivateNetwork -p CapabilityBoundingSet \
        -p RestrictAddressFamilies -p ProtectSystem -p NoNewPrivileges)
echo "$shown"
for want in User=tbsnc PrivateUsers=yes PrivateNetwork=yes CapabilityBoundingSet= \
        RestrictAddressFamilies=AF_UNIX ProtectSystem=strict NoNewPrivileges=yes; do
        grep -qxF "$want" <<<"$shown" || fail "systemctl show tbsd-netconf.service: '$want' not reported"
done
pass "systemctl show tbsd-netconf.service reports its hardening"

# The exposure levels systemd-analyze security gives the units as systemd
# loaded them (drop-in included): the ones the documents state, which
# package-unit-verify computes offline.
# live_exposure UNIT: the overall exposure level of the loaded UNIT.
live_exposure() {
        systemd-analyze security --no-pager "$1" 2>&1 |
                sed -n "s/.*Overall exposure level for $1: \([0-9.]*\).*/\1/p"
}
assert_eq "$(live_exposure tbsd.service)" \
        "$(sed -n 's/.*exposure level \*\*\([0-9.]*\)\*\*.*/\1/p' "$TBS_SOURCE_DIR/docs/service.md" | head -1)" \
        "tbsd.service's exposure level (systemd-analyze security, docs/service.md)"
assert_eq "$(live_exposure tbsd-netconf.service)" \
        "$(sed -n 's/.*tbsd-netconf.service.*exposure level \*\*\([0-9.]*\)\*\*.*/\1/p' "$TBS_SOURCE_DIR/docs/netconf.md" | head -1)" \
        "tbsd-netconf.service's exposure level (systemd-analyze security, docs/netconf.md)"

# sshd on port 830.
ss -Hltn 'sport = :830' | grep -q . || fail "nothing listens on port 830: $(ss -ltn)"
pass "sshd listens on port 830"

# The controller, over port 830 with the keys of the set-up
# (guest-systemd made them): client_key USER ARGS... as USER.
client_key() {
        local who=$1
        shift
        NC_PORT=830 NC_USER=$who HOME=/run /usr/bin/python3 "$TBS_SOURCE_DIR/tests/kernel/nc-client.py" \
                "$TBS_KEYS/${who}_ed25519" "$@"
}
make_veth vs0 vs0p 4
tree=$(qdisc_shape vs0)
std_gates vs0 1 1000 > /run/std.xml
out=$(client_key cnc edit /run/std.xml)
assert_contains "$out" "rpc-error: access denied" "cnc's commit before root adds it to NACM's group cnc"
assert_eq "$(qdisc_shape vs0)" "$tree" "vs0's tree after the refusal (tc)"
cat > /run/nacm.xml <<'EOX'
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
 <nacm xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-acm">
  <groups><group><name>cnc</name><user-name>cnc</user-name></group></groups>
 </nacm>
</config>
EOX
assert_eq "$(client_key root edit /run/nacm.xml)" ok "root adds cnc to NACM's group cnc (edit-config + commit)"
assert_eq "$(client_key cnc edit /run/std.xml)" ok "cnc commits the standard-only gate schedule on vs0"

root=$(qdisc_at vs0 root)
echo "$root"
assert_eq "$(jq -r .kind <<<"$root")" taprio "vs0's root (tc)"
assert_eq "$(jq -c '.options | [.tc, .map[0:8]]' <<<"$root")" '[3,[0,0,0,0,1,1,2,2]]' "3 classes and their priorities (tc)"
assert_eq "$(jq -c '[.options.schedule // .options.admin.schedule | .[] | [.gatemask, .interval]]' <<<"$root")" \
        '[["0x1",300000],["0x6",700000]]' "vs0's gate list (tc)"
assert_eq "$(jq -r '.options.cycle_time // .options.admin.cycle_time' <<<"$root")" 1000000 "cycle 1/1000 s (tc)"
assert_eq "$("$TBSCTL" --json status vs0 | jq -r .origin)" netconf "vs0's origin (tbsctl status)"
assert_eq "$(stat -c '%U %a' /var/lib/tbsd/schedules.d/vs0.json)" "root 600" "tbsd's kept document (owner, mode)"
grep -q '<name>vs0</name>' /var/lib/tbsd-netconf/.yuma/startup-cfg.xml ||
        fail "netconfd's startup file lacks vs0"
pass "netconfd saved vs0 in its startup file"

failed=$(systemctl list-units --failed --plain --no-legend)
assert_eq "$failed" "" "failed units"
