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

# libtbs's full version (the file name of libtbs.so.0's target), as
# libtbs/meson.build sets it.
LIBTBS_VERSION=$(sed -n "s/^ *version : '\([0-9.]*\)',\$/\1/p" "$SRC/libtbs/meson.build")
[ -n "$LIBTBS_VERSION" ] || { echo "FAIL: no version of libtbs in libtbs/meson.build" >&2; exit 1; }

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

# source_files DIR PATTERN: the names of the source tree's DIR/PATTERN files
# (what meson lists when it configures: docs, examples, contrib).
source_files() {
        (cd "$SRC/$1" 2>/dev/null && for f in $2; do [ -f "$f" ] && echo "$f"; done) || true
}

# expected_files_in BINDIR SBINDIR DATADIR MANDIR SYSCONFDIR UNITDIR LIBDIR
# INCLUDEDIR SYSUSERSDIR [NETCONF [LIBEXECDIR]]: every path an install must create, one a
# line, sorted; folders end in "/" (only the empty schedules folder).
# NETCONF "yes": with the NETCONF server's files (meson -Dnetconf, the
# package tbsd-netconf).
expected_files_in() {
        {
        source_files docs '*.md' | sed "s|^|$3/doc/tbsd/docs/|"
        source_files examples '*.json' | sed "s|^|$3/doc/tbsd/examples/|"
        source_files examples/devices '*.json' | sed "s|^|$3/doc/tbsd/examples/devices/|"
        source_files contrib/grafana '*.json' | sed "s|^|$3/tbsd/grafana/|"
        source_files contrib/prometheus '*.yml' | sed "s|^|$3/tbsd/prometheus/|"
        cat <<EOL
$3/doc/tbsd/README.md
$5/default/tbsd
$9/tbsd.conf
$7/libtbs.so
$7/libtbs.so.0
$7/libtbs.so.$LIBTBS_VERSION
$7/pkgconfig/libtbs.pc
$8/tbs/tbs.h
$1/tbsctl
$2/tbsd
$6/tbsd.service
$3/dbus-1/system.d/org.tsn.Tbs.conf
$3/dbus-1/system-services/org.tsn.Tbs.service
$3/dbus-1/interfaces/org.tsn.Tbs.xml
$4/man8/tbsd.8
$4/man8/tbsctl.8
$4/man5/tbsd.schedule.5
$4/man3/libtbs.3
$3/bash-completion/completions/tbsctl
$5/tbsd/schedules.d/
EOL
        if [ "${10:-}" = yes ]; then
                cat <<EOL
$7/yuma/libtbsd.so
$3/tbsd-netconf/startup-cfg.xml
${11}/tbsd/tbsd-netconf-subsystem
$6/tbsd-netconf.service
$6/tbsd.service.d/tbsd-netconf.conf
$9/tbsd-netconf.conf
$4/man8/tbsd-netconf.8
EOL
                netconf_yang_files | sed "s|^|$3/yuma/modules/tbsd/|"
        fi
        } | LC_ALL=C sort
}

# netconf_yang_files: the YANG files the server module needs installed,
# one name a line: the modules netconf/tbsd-sil.c loads
# (ncxmod_load_module(), ncxmod_load_deviation(), their names from the
# #defines of netconf/), and every module they import, found in netconf/;
# an import that is neither there nor one yuma123 ships
# (/usr/share/yuma/modules) fails. Read from the sources, not from
# netconf/meson.build, so a module left out of the install is missed.
netconf_yang_files() {
        local macros name todo=() seen=" " mod imp
        macros=$(grep -o 'ncxmod_load_\(module\|deviation\)((const xmlChar \*) [A-Z_]*' "$SRC/netconf/tbsd-sil.c" |
                sed 's/.* //') || true
        [ -n "$macros" ] || fail "netconf/tbsd-sil.c loads no module (ncxmod_load_module)"
        for m in $macros; do
                name=$(sed -n "s/^#define $m \"\([^\"]*\)\".*/\1/p" "$SRC"/netconf/*.h | head -n 1)
                [ -n "$name" ] || fail "netconf/tbsd-sil.c loads $m, which no header of netconf/ defines"
                todo+=("$name")
        done
        while [ ${#todo[@]} -gt 0 ]; do
                mod=${todo[0]}
                todo=("${todo[@]:1}")
                case $seen in *" $mod "*) continue ;; esac
                seen="$seen$mod "
                if [ ! -f "$SRC/netconf/$mod.yang" ]; then
                        find /usr/share/yuma/modules -name "$mod.yang" -o -name "$mod@*.yang" | grep -q . ||
                                fail "the server module needs the YANG module $mod: not in netconf/, not shipped by yuma123"
                        continue
                fi
                echo "$mod.yang"
                for imp in $(sed -n 's/^ *import  *\([A-Za-z0-9_.-]*\) *{.*/\1/p' "$SRC/netconf/$mod.yang"); do
                        todo+=("$imp")
                done
        done
}

# expected_files: expected_files_in for the build folder's options.
expected_files() {
        local unitdir sysusersdir
        unitdir=$(build_option systemdsystemunitdir)
        [ -n "$unitdir" ] || unitdir=$(build_option prefix)/lib/systemd/system
        sysusersdir=$(build_option sysusersdir)
        [ -n "$sysusersdir" ] || sysusersdir=$(build_option prefix)/lib/sysusers.d
        expected_files_in "$(abs_dir bindir)" "$(abs_dir sbindir)" "$(abs_dir datadir)" \
                "$(abs_dir mandir)" "$(abs_dir sysconfdir)" "$unitdir" "$(abs_dir libdir)" \
                "$(abs_dir includedir)" "$sysusersdir" "$(netconf_built)" "$(abs_dir libexecdir)"
}

# netconf_built: "yes" when the build folder has the NETCONF server module.
netconf_built() {
        if [ -e "$BUILD/netconf/libtbsd.so" ]; then echo yes; else echo no; fi
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

# check_libtbs_user ROOT LIBDIR INCLUDEDIR: tests/package/libtbs-user.c
# compiles and links against `pkg-config --cflags --libs libtbs` of the files
# installed under ROOT (LIBDIR and INCLUDEDIR as the installed system has
# them; PKG_CONFIG_SYSROOT_DIR puts ROOT in front), needs libtbs.so.0, and
# runs with that library.
check_libtbs_user() {
        local root=$1 libdir=$2 includedir=$3 flags out
        command -v cc >/dev/null || fail "no C compiler"
        command -v pkg-config >/dev/null || fail "pkg-config not found"
        flags=$(PKG_CONFIG_LIBDIR=$root$libdir/pkgconfig PKG_CONFIG_PATH='' PKG_CONFIG_SYSROOT_DIR=$root \
                pkg-config --cflags --libs libtbs) || fail "pkg-config --cflags --libs libtbs failed"
        grep -qF -- "-I$root$includedir/tbs" <<<"$flags" || fail "libtbs.pc's Cflags miss $includedir/tbs: $flags"
        pass "pkg-config --cflags --libs libtbs: $flags"
        # shellcheck disable=SC2086 # the flags are words
        cc -Wall -Werror -o "$WORK/libtbs-user" "$SRC/tests/package/libtbs-user.c" $flags ||
                fail "a program does not build with pkg-config --cflags --libs libtbs"
        readelf -d "$WORK/libtbs-user" | grep -q 'NEEDED.*\[libtbs\.so\.0\]' ||
                fail "the program does not need libtbs.so.0: $(readelf -d "$WORK/libtbs-user" | grep NEEDED)"
        out=$(LD_LIBRARY_PATH=$root$libdir "$WORK/libtbs-user") || fail "the program built against libtbs failed"
        [ "$out" = "packet: tbs_open_txtime_socket: a packet socket needs a protocol (an EtherType such as 0x22f0)" ] ||
                fail "the program built against libtbs printed: $out"
        pass "a program built with pkg-config --cflags --libs libtbs links libtbs.so.0 and runs"
        # shellcheck disable=SC2086
        cc -Wall -Werror -o "$WORK/txtime-sender" "$SRC/examples/txtime-sender.c" $flags ||
                fail "examples/txtime-sender.c does not build with pkg-config --cflags --libs libtbs"
        pass "examples/txtime-sender.c builds with pkg-config --cflags --libs libtbs"
}

# check_libtbs_so ROOT LIBDIR: the library's SONAME, links and exports.
check_libtbs_so() {
        local so=$1$2/libtbs.so.$LIBTBS_VERSION exported wanted
        [ "$(readlink "$1$2/libtbs.so.0")" = "libtbs.so.$LIBTBS_VERSION" ] || fail "libtbs.so.0 does not point to libtbs.so.$LIBTBS_VERSION"
        [ "$(readlink "$1$2/libtbs.so")" = libtbs.so.0 ] || fail "libtbs.so does not point to libtbs.so.0"
        readelf -d "$so" | grep -q 'SONAME.*\[libtbs\.so\.0\]' || fail "libtbs's SONAME is not libtbs.so.0"
        # Exactly the functions of libtbs.sym, all in version LIBTBS_0.
        exported=$(objdump -T "$so" | awk '$2 == "g" && $NF ~ /^tbs_/ { print $(NF-1), $NF }' | LC_ALL=C sort)
        wanted=$(sed -n 's/^ *\(tbs_[a-z0-9_]*\);$/LIBTBS_0 \1/p' "$SRC/libtbs/libtbs.sym" | LC_ALL=C sort)
        [ "$exported" = "$wanted" ] || { diff <(echo "$wanted") <(echo "$exported") || true; fail "libtbs.so exports other symbols than libtbs/libtbs.sym"; }
        objdump -T "$so" | awk '$2 == "g" && $4 != "*UND*"' | grep -qv ' tbs_\| LIBTBS_0$' &&
                fail "libtbs.so exports more than tbs_*: $(objdump -T "$so" | awk '$2 == "g" && $4 != "*UND*"')"
        pass "libtbs.so.0 -> libtbs.so.$LIBTBS_VERSION, SONAME libtbs.so.0, exports the $(wc -l <<<"$wanted") functions of libtbs.sym"
}
