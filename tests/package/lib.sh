# Helpers for the package tests (suite "package"), sourced by each test.
# They run on the host as any user and change nothing outside their own
# temporary folder. Environment: TBS_SOURCE_DIR, TBS_BUILD_DIR.
set -euo pipefail

: "${TBS_SOURCE_DIR:?}" "${TBS_BUILD_DIR:?}"
SRC=$TBS_SOURCE_DIR
BUILD=$TBS_BUILD_DIR

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

pass() {
        echo "ok: $*"
}

# A scratch folder removed on exit.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tbs-pkg.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# build_option NAME: a meson option of the build folder.
build_option() {
        [ -s "$WORK/buildoptions.json" ] ||
                meson introspect "$BUILD" --buildoptions > "$WORK/buildoptions.json"
        python3 -c 'import json, sys
for o in json.load(open(sys.argv[1])):
    if o["name"] == sys.argv[2]:
        print(o["value"])' "$WORK/buildoptions.json" "$1"
}

# abs_dir OPTION: an install folder option as an absolute path.
abs_dir() {
        local v
        v=$(build_option "$1")
        case $v in
        /*) echo "$v" ;;
        *) echo "$(build_option prefix)/$v" ;;
        esac
}

# expected_files_in BINDIR SBINDIR DATADIR MANDIR SYSCONFDIR UNITDIR: every
# path an install must create, one a line, sorted; folders end in "/" (only
# the empty schedules folder).
expected_files_in() {
        LC_ALL=C sort <<EOL
$1/tbsctl
$2/tbsd
$6/tbsd.service
$3/dbus-1/system.d/org.tsn.Tbs.conf
$3/dbus-1/system-services/org.tsn.Tbs.service
$3/dbus-1/interfaces/org.tsn.Tbs.xml
$4/man8/tbsd.8
$4/man8/tbsctl.8
$4/man5/tbsd.schedule.5
$3/bash-completion/completions/tbsctl
$5/tbsd/schedules.d/
EOL
}

# expected_files: expected_files_in for the build folder's options.
expected_files() {
        local unitdir
        unitdir=$(build_option systemdsystemunitdir)
        [ -n "$unitdir" ] || unitdir=$(build_option prefix)/lib/systemd/system
        expected_files_in "$(abs_dir bindir)" "$(abs_dir sbindir)" "$(abs_dir datadir)" \
                "$(abs_dir mandir)" "$(abs_dir sysconfdir)" "$unitdir"
}

# install_to DIR: meson install of the build folder into DESTDIR=DIR.
install_to() {
        meson install -C "$BUILD" --no-rebuild --quiet --destdir "$1" >"$WORK/install.log" 2>&1 ||
                { cat "$WORK/install.log"; fail "meson install --destdir $1 failed"; }
}

# installed_files DIR: what is in DIR, as expected_files prints it.
installed_files() {
        (cd "$1" && find . \( -type f -o -type l -o \( -type d -empty \) \) -printf '%y %P\n') |
                while read -r type path; do
                        if [ "$type" = d ]; then echo "/$path/"; else echo "/$path"; fi
                done | LC_ALL=C sort
}
