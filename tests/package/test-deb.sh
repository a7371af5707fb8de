#!/bin/bash
# dpkg-buildpackage -us -uc -b builds the .deb from the committed tree (git
# archive HEAD, in a scratch folder: never the shared build folders), with
# DEB_BUILD_OPTIONS=nocheck (the unit suite runs in its own test). The
# packages (tbsd, and libtbs0 + libtbs-dev as Debian's library policy has
# them) hold every file meson installs, each in its package, with the Debian
# 12 unit folder and the multiarch library folder, and declare their
# dependencies; a program builds against the unpacked libtbs-dev. Nothing is
# installed on this machine.
. "$(dirname "$0")/lib.sh"

for p in dpkg-buildpackage dh fakeroot; do
        command -v "$p" >/dev/null || fail "$p not found (Debian packages dpkg-dev, debhelper, fakeroot)"
done

src=$WORK/src
mkdir -p "$src"
if git -C "$SRC" rev-parse --verify -q HEAD >/dev/null; then
        echo "building the package of HEAD $(git -C "$SRC" rev-parse --short HEAD)" \
             "(uncommitted changes are not in it)"
        git -C "$SRC" archive HEAD | tar -x -C "$src"
else
        tar -C "$SRC" --exclude='./build*' --exclude=./.git -c . | tar -x -C "$src"
fi
[ -f "$src/debian/control" ] || fail "no debian/control in the tree"

start=$(date +%s)
if ! (cd "$src" && DEB_BUILD_OPTIONS="nocheck${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}" \
        dpkg-buildpackage -us -uc -b >"$WORK/build.log" 2>&1); then
        tail -50 "$WORK/build.log"
        fail "dpkg-buildpackage failed"
fi
version=$(cd "$src" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
deb=$WORK/tbsd_${version}_$arch.deb
libdeb=$WORK/libtbs0_${version}_$arch.deb
devdeb=$WORK/libtbs-dev_${version}_$arch.deb
ncdeb=$WORK/tbsd-netconf_${version}_$arch.deb
for d in "$deb" "$libdeb" "$devdeb" "$ncdeb"; do
        [ -f "$d" ] || { ls "$WORK"; fail "no $d"; }
done
pass "dpkg-buildpackage -us -uc -b: $(basename "$deb") $(basename "$libdeb") $(basename "$devdeb") $(basename "$ncdeb") in $(( $(date +%s) - start )) s"

# The packages' files: what meson installs, in the folders of Debian 12
# packages (debian/rules puts the unit in /lib/systemd/system; the library
# goes to the multiarch folder), each in the package it belongs to.
for d in "$deb" "$libdeb" "$devdeb" "$ncdeb"; do
        pkg=$(dpkg-deb -f "$d" Package)
        dpkg-deb -c "$d" | awk '{ print $6 }' | sed 's|^\./|/|' > "$WORK/contents.$pkg"
done
package_of() {
        case $1 in
        */libtbs.so.*) echo libtbs0 ;;
        */libtbs.so | */libtbs.pc | */tbs.h | */man3/*) echo libtbs-dev ;;
        */yuma/* | *tbsd-netconf*) echo tbsd-netconf ;;
        *) echo tbsd ;;
        esac
}
missing=0
while read -r path; do
        case $path in
        /usr/share/man/*) path=$path.gz ;;           # dh_installman compresses
        esac
        pkg=$(package_of "$path")
        # dh_compress compresses documents above 4 KiB, but not the examples
        # (debian/rules), which README has the operator copy as they are.
        case $path in
        /usr/share/doc/*/examples/*) ;;
        /usr/share/doc/*) grep -qxF "$path.gz" "$WORK/contents.$pkg" && path=$path.gz ;;
        esac
        if grep -qxF "$path" "$WORK/contents.$pkg"; then
                pass "in $pkg: $path"
        else
                echo "FAIL: not in $pkg: $path" >&2
                missing=1
        fi
done < <(expected_files_in /usr/bin /usr/sbin /usr/share /usr/share/man /etc /lib/systemd/system \
        "/usr/lib/$multiarch" /usr/include /usr/lib/sysusers.d yes /usr/libexec)
[ "$missing" = 0 ] || { head -n 100 "$WORK"/contents.*; fail "files missing from the packages"; }
grep -q 'libtbs' "$WORK/contents.tbsd" && fail "tbsd's package holds libtbs files: $(grep libtbs "$WORK/contents.tbsd")"
pass "tbsd's package holds none of libtbs"
if grep -v 'docs/netconf.md' "$WORK/contents.tbsd" | grep -q 'yuma\|netconf'; then
        fail "tbsd's package holds NETCONF files: $(grep 'yuma\|netconf' "$WORK/contents.tbsd")"
fi
pass "tbsd's package holds none of the NETCONF server"
ncfield() { dpkg-deb -f "$ncdeb" "$1"; }
case "$(ncfield Depends)" in
*netconfd*"tbsd (= $version)"*|*"tbsd (= $version)"*netconfd*) pass "tbsd-netconf depends on netconfd and tbsd: $(ncfield Depends)" ;;
*) fail "tbsd-netconf's Depends: $(ncfield Depends)" ;;
esac
grep -qx /usr/share/doc/libtbs-dev/examples/txtime-sender.c "$WORK/contents.libtbs-dev" ||
        fail "libtbs-dev does not ship examples/txtime-sender.c"
pass "libtbs-dev ships the example's source"

# Control fields: every library the binaries link comes from a package in
# Depends (dpkg-shlibdeps did its job), and the system bus is there.
field() { dpkg-deb -f "$deb" "$1"; }
depends=$(field Depends)
mkdir -p "$WORK/x"
dpkg-deb -x "$deb" "$WORK/x"
for bin in "$WORK/x/usr/sbin/tbsd" "$WORK/x/usr/bin/tbsctl"; do
        for so in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
                owner=$(dpkg -S "*/$so" 2>/dev/null | head -1 | cut -d: -f1) || true
                [ -n "$owner" ] || fail "no installed package has $so (needed by ${bin##*/})"
                grep -q "\b$owner\b" <<<"$depends" || fail "${bin##*/} needs $so from $owner, not in Depends: $depends"
        done
done
grep -q '\bdbus\b' <<<"$depends" || fail "Depends lacks dbus"
# ExecReload= runs /bin/kill, which procps (not essential) provides.
grep -q '^ExecReload=/bin/kill ' "$WORK/x/lib/systemd/system/tbsd.service" &&
        ! grep -q '\bprocps\b' <<<"$depends" && fail "ExecReload= uses /bin/kill but Depends lacks procps"
pass "Depends covers every linked library, dbus and procps: $depends"
grep -qw linuxptp <<<"$(field Recommends)" || fail "Recommends lacks linuxptp"
pass "Recommends: $(field Recommends)"

# Maintainer scripts: enable and start the unit on install, stop on remove.
mkdir -p "$WORK/control"
dpkg-deb -e "$deb" "$WORK/control"
grep -q "deb-systemd-helper enable 'tbsd.service'" "$WORK/control/postinst" || fail "postinst does not enable tbsd.service"
grep -q "deb-systemd-invoke \$_dh_action 'tbsd.service'" "$WORK/control/postinst" || fail "postinst does not start tbsd.service"
grep -q "ReloadConfig" "$WORK/control/postinst" || fail "postinst does not have dbus-daemon read the new policy first"
grep -q "deb-systemd-invoke stop 'tbsd.service'" "$WORK/control/prerm" || fail "prerm does not stop tbsd.service"
pass "maintainer scripts enable and start tbsd.service after reloading the bus policy, stop it on remove"

# The admin group: postinst runs systemd-sysusers on the package's file
# before it starts the unit (tbsd checks the group at each privileged call),
# and the package depends on a systemd-sysusers.
sysusers_line=$(grep -n '^ *systemd-sysusers .*tbsd\.conf' "$WORK/control/postinst" | head -1 | cut -d: -f1)
start_line=$(grep -n "deb-systemd-invoke \$_dh_action 'tbsd.service'" "$WORK/control/postinst" | head -1 | cut -d: -f1)
[ -n "$sysusers_line" ] || { cat "$WORK/control/postinst"; fail "postinst does not run systemd-sysusers tbsd.conf"; }
[ "$sysusers_line" -lt "$start_line" ] || fail "postinst starts tbsd before it creates the group"
grep -q 'systemd-sysusers' <<<"$depends" || fail "Depends lacks systemd-sysusers (systemd | systemd-standalone-sysusers | ...): $depends"
sysroot=$WORK/sysroot
mkdir -p "$sysroot/etc"
systemd-sysusers --root="$sysroot" "$WORK/x/usr/lib/sysusers.d/tbsd.conf" >/dev/null 2>&1 ||
        fail "systemd-sysusers refuses the package's tbsd.conf"
grep -q '^tbs:x:[0-9]*:$' "$sysroot/etc/group" || fail "the package's tbsd.conf does not create group tbs"
pass "postinst creates group tbs (systemd-sysusers tbsd.conf, checked with --root) before it starts tbsd"

# /etc/default/tbsd is a conffile: an operator's TBSD_OPTIONS survive upgrades.
grep -qx /etc/default/tbsd "$WORK/control/conffiles" ||
        { cat "$WORK/control/conffiles"; fail "/etc/default/tbsd is not a conffile"; }
grep -qx 'EnvironmentFile=-/etc/default/tbsd' "$WORK/x/lib/systemd/system/tbsd.service" ||
        fail "the package's unit does not read /etc/default/tbsd"
pass "/etc/default/tbsd is a conffile, read by the unit"

# README's commands work with the package's paths: the examples, uncompressed
# and valid for tbsd --check --no-probe; the dashboard and rules in /usr/share/tbsd.
n=0
for f in "$WORK"/x/usr/share/doc/tbsd/examples/*.json; do
        mkdir -p "$WORK/schedules.$n"
        cp "$f" "$WORK/schedules.$n/$(basename "$f")"
        "$WORK/x/usr/sbin/tbsd" --check --no-probe --config-dir "$WORK/schedules.$n" >"$WORK/check.log" 2>&1 ||
                { cat "$WORK/check.log"; fail "tbsd --check --no-probe refuses the package's $(basename "$f")"; }
        n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no example schedules in /usr/share/doc/tbsd/examples"
grep -q '/usr/share/doc/tbsd/examples/.*/etc/tbsd/schedules.d/' "$SRC/README.md" ||
        fail "README does not copy an example from /usr/share/doc/tbsd/examples"
readme_example=$(grep -o '/usr/share/doc/tbsd/examples/[a-z0-9-]*\.json' "$SRC/README.md" | head -1)
[ -f "$WORK/x$readme_example" ] || fail "README copies $readme_example, which the package does not hold"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/x/usr/share/tbsd/grafana/tbsd.json" ||
        fail "the package's Grafana dashboard does not parse"
pass "$n example schedules pass tbsd --check --no-probe, README's $readme_example among them; the dashboard parses"

# The library's packages as Debian's policy has them: the runtime package
# named after the SONAME, both Multi-Arch: same, the -dev package tied to
# its exact version, a symbols file with every exported function, and the
# library's own dependencies (libsystemd0) found by dpkg-shlibdeps.
libfield() { dpkg-deb -f "$libdeb" "$1"; }
devfield() { dpkg-deb -f "$devdeb" "$1"; }
[ "$(libfield Section)" = libs ] || fail "libtbs0's Section is '$(libfield Section)', not libs"
[ "$(devfield Section)" = libdevel ] || fail "libtbs-dev's Section is '$(devfield Section)', not libdevel"
[ "$(libfield Multi-Arch)" = same ] || fail "libtbs0 is not Multi-Arch: same"
[ "$(devfield Multi-Arch)" = same ] || fail "libtbs-dev is not Multi-Arch: same"
grep -qF "libtbs0 (= $version)" <<<"$(devfield Depends)" || fail "libtbs-dev does not depend on libtbs0 (= $version): $(devfield Depends)"
grep -q '\blibsystemd0\b' <<<"$(libfield Depends)" || fail "libtbs0 does not depend on libsystemd0: $(libfield Depends)"
pass "libtbs0 (libs, Multi-Arch: same, Depends: $(libfield Depends)); libtbs-dev (libdevel, Multi-Arch: same, Depends: $(devfield Depends))"
mkdir -p "$WORK/libcontrol"
dpkg-deb -e "$libdeb" "$WORK/libcontrol"
[ -f "$WORK/libcontrol/symbols" ] || fail "libtbs0 has no symbols file"
grep -qx 'libtbs.so.0 libtbs0 #MINVER#' "$WORK/libcontrol/symbols" || fail "libtbs0's symbols file does not name libtbs.so.0 libtbs0"
while read -r sym; do
        grep -q "^ $sym@LIBTBS_0 " "$WORK/libcontrol/symbols" || fail "libtbs0's symbols file lacks $sym"
done < <(sed -n 's/^ *\(tbs_[a-z0-9_]*\);$/\1/p' "$SRC/libtbs/libtbs.sym")
pass "libtbs0's symbols file lists every function of libtbs/libtbs.sym"
grep -q '^activate-noawait ldconfig$' "$WORK/libcontrol/triggers" || fail "libtbs0 does not trigger ldconfig"
pass "libtbs0 triggers ldconfig"

# The unpacked libtbs0 and libtbs-dev are enough to build and run a program.
mkdir -p "$WORK/dev"
dpkg-deb -x "$libdeb" "$WORK/dev"
dpkg-deb -x "$devdeb" "$WORK/dev"
check_libtbs_so "$WORK/dev" "/usr/lib/$multiarch"
check_libtbs_user "$WORK/dev" "/usr/lib/$multiarch" /usr/include

if command -v lintian >/dev/null; then
        lintian --fail-on error "$deb" "$libdeb" "$devdeb" || fail "lintian reports errors"
        pass "lintian: no errors"
fi
