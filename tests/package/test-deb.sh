#!/bin/bash
# dpkg-buildpackage -us -uc -b builds the .deb from the committed tree (git
# archive HEAD, in a scratch folder: never the shared build folders), with
# DEB_BUILD_OPTIONS=nocheck (the unit suite runs in its own test). The
# package holds every file meson installs, with the Debian 12 unit folder,
# and declares its dependencies. Nothing is installed on this machine.
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
deb=$WORK/tbsd_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || { ls "$WORK"; fail "no $deb"; }
pass "dpkg-buildpackage -us -uc -b: $(basename "$deb") in $(( $(date +%s) - start )) s"

# The package's files: what meson installs, in the folders of a Debian 12
# package (debian/rules puts the unit in /lib/systemd/system).
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' > "$WORK/contents"
missing=0
while read -r path; do
        case $path in
        /usr/share/man/*) path=$path.gz ;;           # dh_installman compresses
        esac
        if grep -qxF "$path" "$WORK/contents"; then
                pass "in the .deb: $path"
        else
                echo "FAIL: not in the .deb: $path" >&2
                missing=1
        fi
done < <(expected_files_in /usr/bin /usr/sbin /usr/share /usr/share/man /etc /lib/systemd/system)
[ "$missing" = 0 ] || { cat "$WORK/contents"; fail "files missing from the .deb"; }

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

if command -v lintian >/dev/null; then
        lintian --fail-on error "$deb" || fail "lintian reports errors"
        pass "lintian: no errors"
fi
