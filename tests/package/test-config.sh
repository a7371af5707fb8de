#!/bin/bash
# What an operator configures besides the schedules, as meson installs it:
# the sysusers.d file creates the admin group tbsd checks by default
# (systemd-sysusers --root, /etc/group is the oracle); the unit reads
# TBSD_OPTIONS from the installed /etc/default/tbsd; that file sets it,
# documents only options tbsd has, and tbsd accepts its example line.
. "$(dirname "$0")/lib.sh"

command -v systemd-sysusers >/dev/null || fail "systemd-sysusers not found (Debian package systemd)"

root=$WORK/root
install_to "$root"
sysconfdir=$(abs_dir sysconfdir)
sysusers=$root$(expected_files | grep '/sysusers.d/tbsd.conf$')
unit=$root$(expected_files | grep '/tbsd.service$')
defaults=$root$sysconfdir/default/tbsd
tbsd=$BUILD/daemon/tbsd

# The group: the one tbsd's --admin-group defaults to, created from nothing.
group=$(sed -n 's/^static const char \*arg_admin_group = "\(.*\)";$/\1/p' "$SRC/daemon/tbsd.c")
[ -n "$group" ] || fail "no default admin group in daemon/tbsd.c"
"$tbsd" --help | grep -q -- "--admin-group NAME .*(default $group)" || fail "tbsd --help does not name the default group $group"
sysroot=$WORK/sysroot
mkdir -p "$sysroot/etc"
systemd-sysusers --root="$sysroot" "$sysusers" > "$WORK/sysusers.log" 2>&1 ||
        { cat "$WORK/sysusers.log"; fail "systemd-sysusers --root failed on $sysusers"; }
grep -q "^$group:x:[0-9]*:\$" "$sysroot/etc/group" || { cat "$sysroot/etc/group"; fail "group $group not created"; }
pass "systemd-sysusers creates group $group: $(grep "^$group:" "$sysroot/etc/group")"
# Run again on the result: nothing changes (the package runs it on every configure).
cp "$sysroot/etc/group" "$WORK/group.1"
systemd-sysusers --root="$sysroot" "$sysusers" >/dev/null 2>&1 || fail "a second systemd-sysusers run failed"
cmp -s "$WORK/group.1" "$sysroot/etc/group" || fail "a second systemd-sysusers run changed /etc/group"
pass "a second run keeps /etc/group as it was"

# The unit reads the defaults file (optional: "-") and passes TBSD_OPTIONS as words.
grep -qx "EnvironmentFile=-$sysconfdir/default/tbsd" "$unit" ||
        fail "the unit does not read $sysconfdir/default/tbsd: $(grep EnvironmentFile= "$unit" || echo none)"
grep -q '^ExecStart=.* \$TBSD_OPTIONS$' "$unit" || fail "ExecStart does not end in \$TBSD_OPTIONS: $(grep ExecStart= "$unit")"
pass "the unit reads $sysconfdir/default/tbsd and passes \$TBSD_OPTIONS"

# The file: only comments and assignments, TBSD_OPTIONS set, empty by default.
[ -f "$defaults" ] || fail "$sysconfdir/default/tbsd is not installed"
bad=$(grep -v -e '^#' -e '^$' -e '^[A-Z_]*=' "$defaults" || true)
[ -z "$bad" ] || fail "$sysconfdir/default/tbsd has lines that are neither comments nor assignments: $bad"
value=$(sh -c '. "$1"; printf %s "${TBSD_OPTIONS-unset}"' _ "$defaults")
[ "$value" = "" ] || fail "TBSD_OPTIONS is '$value' by default, not empty"
grep -q '@' "$defaults" && fail "an unreplaced @VARIABLE@ in $defaults: $(grep '@' "$defaults")"
pass "$sysconfdir/default/tbsd sets TBSD_OPTIONS, empty"

# Every option the comments name is one tbsd has (tbsd --help is the oracle).
help=$("$tbsd" --help)
n=0
while read -r opt; do
        grep -q -- "^ *\(-[a-z] \)\?$opt\b" <<<"$help" || fail "$sysconfdir/default/tbsd documents $opt, which tbsd --help does not list"
        n=$((n + 1))
done < <(grep '^#' "$defaults" | grep -o -- '--[a-z][a-z-]*' | sort -u)
[ "$n" -ge 4 ] || fail "$sysconfdir/default/tbsd documents only $n options"
pass "the $n options $sysconfdir/default/tbsd documents are tbsd's"

# The commented example, uncommented, is accepted by tbsd's option parser
# (a --check of an empty folder: exit 0; a misspelt option exits 2).
example=$(sed -n 's/^#TBSD_OPTIONS=//p' "$defaults")
[ -n "$example" ] || fail "no commented TBSD_OPTIONS example"
opts=$(sh -c 'eval "TBSD_OPTIONS=$1"; printf %s "$TBSD_OPTIONS"' _ "$example")
mkdir -p "$WORK/empty"
# shellcheck disable=SC2086 # split at white space, as systemd splits $TBSD_OPTIONS
"$tbsd" --check --no-probe --config-dir "$WORK/empty" $opts >"$WORK/check.log" 2>&1 ||
        { cat "$WORK/check.log"; fail "tbsd refuses the example options: $opts"; }
rc=0
"$tbsd" --check --no-probe --config-dir "$WORK/empty" --log-levle notice >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "tbsd with a misspelt option exited $rc, not 2 (the check above could not fail)"
pass "tbsd accepts the example: $opts"
