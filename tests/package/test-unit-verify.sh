#!/bin/bash
# systemd-analyze verify accepts the generated unit (and refuses a broken
# copy of it, so the check can fail); systemd-analyze security reports the
# exposure that docs/service.md states; the sandbox leaves the daemon what
# its code uses.
. "$(dirname "$0")/lib.sh"

command -v systemd-analyze >/dev/null || fail "systemd-analyze not found (Debian package systemd)"

root=$WORK/root
install_to "$root"
unit_path=$(expected_files | grep '/tbsd.service$')
unit=$root$unit_path
sbindir=$(abs_dir sbindir)
mandir=$(abs_dir mandir)

# verify checks that ExecStart's binary exists and that the Documentation=
# man pages are found; point both at the DESTDIR install. The dependencies
# (dbus.socket, network-pre.target, ...) come from this machine's systemd.
mkdir -p "$WORK/verify"
sed "s|^ExecStart=$sbindir/tbsd|ExecStart=$root$sbindir/tbsd|" "$unit" > "$WORK/verify/tbsd.service"
grep -q "^ExecStart=$root" "$WORK/verify/tbsd.service" || fail "could not point ExecStart at the DESTDIR binary"
if ! out=$(cd "$WORK/verify" && MANPATH=$root$mandir systemd-analyze verify "$WORK/verify/tbsd.service" 2>&1); then
        echo "$out"
        fail "systemd-analyze verify failed"
fi
[ -z "$out" ] || { echo "$out"; fail "systemd-analyze verify printed warnings"; }
pass "systemd-analyze verify: clean"

# The same check on a copy with a misspelt directive and a missing man page must complain.
mkdir -p "$WORK/broken"
sed -e 's/^ProtectSystem=/ProtectSytem=/' -e 's|^Documentation=.*|Documentation=man:tbsd-nonexistent(8)|' \
        "$WORK/verify/tbsd.service" > "$WORK/broken/tbsd.service"
out=$(cd "$WORK/broken" && MANPATH=$root$mandir systemd-analyze verify "$WORK/broken/tbsd.service" 2>&1) || true
case $out in
*ProtectSytem*tbsd-nonexistent*|*tbsd-nonexistent*ProtectSytem*) pass "a broken copy is refused" ;;
*) echo "$out"; fail "systemd-analyze verify did not report the broken copy" ;;
esac

# Exposure score, offline (systemd >= 252), and the number in the docs.
out=$(systemd-analyze security --offline=yes --root="$root" "$unit" 2>&1) || { echo "$out"; fail "systemd-analyze security failed"; }
score=$(sed -n 's/.*Overall exposure level for tbsd.service: \([0-9.]*\).*/\1/p' <<<"$out")
[ -n "$score" ] || { echo "$out"; fail "no exposure level in systemd-analyze security's output"; }
echo "$out" | grep '✗' || true
documented=$(sed -n 's/.*exposure level \*\*\([0-9.]*\)\*\*.*/\1/p' "$SRC/docs/service.md" | head -1)
# The goal was 2.0 until tbsd began to hand applications their sockets
# (OpenTxtimeSocket): AF_PACKET, AF_INET/AF_INET6, CAP_NET_RAW and no IP
# address filter cost 0.8 before scaling (docs/service.md).
assert_le=$(python3 -c 'import sys; print(float(sys.argv[1]) <= 2.5)' "$score")
[ "$assert_le" = True ] || fail "exposure $score is above 2.5, the goal"
[ "$score" = "$documented" ] || fail "exposure is $score but docs/service.md says ${documented:-nothing}"
pass "exposure level $score, as docs/service.md states"

# What the daemon's code needs is left to it.
directive() { sed -n "s/^$1=//p" "$unit"; }
[ "$(directive CapabilityBoundingSet)" = "CAP_NET_ADMIN CAP_NET_RAW" ] ||
        fail "CapabilityBoundingSet is not exactly CAP_NET_ADMIN CAP_NET_RAW"
families=" $(directive RestrictAddressFamilies) "
for f in AF_UNIX AF_NETLINK; do
        [[ $families == *" $f "* ]] || fail "RestrictAddressFamilies lacks $f"
done
# The sockets handed to applications (daemon/broker/txtime-socket.c).
grep -q 'socket(AF_PACKET' "$SRC/daemon/broker/txtime-socket.c" && [[ $families != *" AF_PACKET "* ]] &&
        fail "the daemon creates AF_PACKET sockets for applications, RestrictAddressFamilies lacks it"
if grep -q 'AF_INET6 : AF_INET' "$SRC/daemon/broker/txtime-socket.c"; then
        [[ $families == *" AF_INET "* && $families == *" AF_INET6 "* ]] ||
                fail "the daemon creates AF_INET/AF_INET6 sockets for applications, RestrictAddressFamilies lacks them"
fi
# A socket belongs to the cgroup that created it: an IP filter on the unit
# would drop the datagrams applications send on the UDP sockets tbsd made.
[ -z "$(directive IPAddressDeny)" ] || fail "IPAddressDeny= would filter the applications' UDP sockets"
directive DeviceAllow | grep -qx 'char-ptp r' || fail "no DeviceAllow=char-ptp r for /dev/ptp*"
[ "$(directive RuntimeDirectory)" = tbsd ] || fail "RuntimeDirectory is not tbsd"
grep -q 'PMC_DEFAULT_RUNTIME_DIR "/run/tbsd"' "$SRC/daemon/clock/pmc-client.h" ||
        fail "pmc_client's runtime folder moved: RuntimeDirectory= must follow it"
pass "CAP_NET_ADMIN and CAP_NET_RAW only; AF_UNIX AF_NETLINK AF_PACKET AF_INET AF_INET6; no IP filter; char-ptp r; /run/tbsd"
if grep -rq --include='*.c' 'adjtimex(' "$SRC"/daemon; then
        # ProtectClock= and @system-service both block adjtimex(), even a read.
        grep -q '^ProtectClock=yes' "$unit" && fail "ProtectClock=yes blocks the adjtimex() the daemon calls"
        # glibc's adjtimex() is the clock_adjtime(CLOCK_REALTIME) system call.
        for call in adjtimex clock_adjtime; do
                directive SystemCallFilter | tr ' ' '\n' | grep -qx "$call" ||
                        fail "the daemon calls adjtimex() but SystemCallFilter= does not allow $call"
        done
        pass "adjtimex() and clock_adjtime() (kernel TAI offset) are allowed"
else
        grep -q '^ProtectClock=yes' "$unit" || fail "the daemon calls no adjtimex(): ProtectClock=yes should be set"
        pass "no adjtimex() in the daemon, ProtectClock=yes"
fi
if grep -rq --include='*.c' '/proc/sys/' "$SRC"/daemon; then
        grep -q '^ProcSubset=pid' "$unit" && fail "ProcSubset=pid hides /proc/sys, which the daemon reads"
        pass "/proc/sys stays readable"
fi
if grep -rq --include='*.c' 'socket(AF_INET' "$SRC"/daemon; then
        [[ $families == *" AF_INET "* ]] || grep -q 'socket(AF_UNIX' "$SRC/daemon/probe/caps-probe.c" ||
                fail "the daemon opens AF_INET sockets without an AF_UNIX fallback"
fi

# The NETCONF server's unit (meson -Dnetconf): verify (next to tbsd.service,
# which it requires) and its exposure, as docs/netconf.md states.
if [ "$(netconf_built)" = yes ]; then
        ncunit=$root$(expected_files | grep '/tbsd-netconf.service$')
        cp "$ncunit" "$WORK/verify/tbsd-netconf.service"
        if ! out=$(cd "$WORK/verify" && MANPATH=$root$mandir SYSTEMD_UNIT_PATH="$WORK/verify:" \
                systemd-analyze verify "$WORK/verify/tbsd-netconf.service" 2>&1); then
                echo "$out"
                fail "systemd-analyze verify tbsd-netconf.service failed"
        fi
        [ -z "$out" ] || { echo "$out"; fail "systemd-analyze verify tbsd-netconf.service printed warnings"; }
        pass "systemd-analyze verify tbsd-netconf.service: clean"
        out=$(systemd-analyze security --offline=yes --root="$root" "$ncunit" 2>&1) ||
                { echo "$out"; fail "systemd-analyze security tbsd-netconf.service failed"; }
        score=$(sed -n 's/.*Overall exposure level for tbsd-netconf.service: \([0-9.]*\).*/\1/p' <<<"$out")
        documented=$(sed -n 's/.*tbsd-netconf.service.*exposure level \*\*\([0-9.]*\)\*\*.*/\1/p' "$SRC/docs/netconf.md" | head -1)
        [ -n "$score" ] && [ "$score" = "$documented" ] ||
                { echo "$out"; fail "tbsd-netconf.service's exposure is $score but docs/netconf.md says ${documented:-nothing}"; }
        [ "$(sed -n 's/^CapabilityBoundingSet=//p' "$ncunit")" = "" ] || fail "tbsd-netconf.service has capabilities"
        pass "tbsd-netconf.service: no capabilities, exposure level $score as docs/netconf.md states"
fi
