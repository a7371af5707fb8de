#!/bin/bash
# meson install into a DESTDIR puts exactly the expected files in place, and
# the installed files agree with each other: the activation file names the
# unit and the bus name the unit declares, the unit starts the installed
# tbsd, the policy lets root own the name; a program builds against libtbs
# with its pkg-config file and runs.
. "$(dirname "$0")/lib.sh"

root=$WORK/root
install_to "$root"
expected_files > "$WORK/expected"
installed_files "$root" > "$WORK/installed"
if ! diff -u "$WORK/expected" "$WORK/installed"; then
        fail "installed files differ from the expected list (- expected, + installed)"
fi
pass "$(wc -l < "$WORK/expected") paths installed, no more, no less"

datadir=$(abs_dir datadir)
sbindir=$(abs_dir sbindir)
unit=$root$(grep '/tbsd.service$' "$WORK/expected")
activation=$root$datadir/dbus-1/system-services/org.tsn.Tbs.service
policy=$root$datadir/dbus-1/system.d/org.tsn.Tbs.conf

[ -x "$root$sbindir/tbsd" ] || fail "tbsd is not executable"
grep -qx "ExecStart=$sbindir/tbsd --log-prefix \$TBSD_SCHEDULE_OPTIONS \$TBSD_OPTIONS" "$unit" || fail "ExecStart does not run $sbindir/tbsd: $(grep ExecStart= "$unit")"
pass "the unit starts $sbindir/tbsd --log-prefix \$TBSD_OPTIONS"
grep -qx 'BusName=org.tsn.Tbs' "$unit" || fail "unit has no BusName=org.tsn.Tbs"
grep -qx 'Type=notify' "$unit" || fail "unit is not Type=notify"
grep -q '^Alias=' "$unit" && fail "unit still has an Alias= (activation goes through SystemdService=tbsd.service)"
grep -qx 'Name=org.tsn.Tbs' "$activation" || fail "activation file does not name org.tsn.Tbs"
grep -qx 'SystemdService=tbsd.service' "$activation" || fail "activation file does not start tbsd.service"
pass "activation file: org.tsn.Tbs -> SystemdService=tbsd.service, the unit's BusName"

python3 - "$policy" <<'EOPY' || fail "bus policy does not let root own org.tsn.Tbs"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "busconfig"
own = [a for p in root.iter("policy") if p.get("user") == "root"
       for a in p.iter("allow") if a.get("own") == "org.tsn.Tbs"]
assert own, "no <allow own=org.tsn.Tbs/> for root"
EOPY
pass "bus policy parses and lets root own org.tsn.Tbs"
python3 -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' \
        "$root$datadir/dbus-1/interfaces/org.tsn.Tbs.xml" || fail "introspection XML does not parse"
cmp -s "$root$datadir/dbus-1/interfaces/org.tsn.Tbs.xml" "$SRC/dbus/org.tsn.Tbs.xml" ||
        fail "installed introspection XML differs from dbus/org.tsn.Tbs.xml"
pass "introspection XML installed as in the source"
bash -n "$root$datadir/bash-completion/completions/tbsctl" || fail "completion script has a syntax error"
pass "completion script parses"

check_libtbs_so "$root" "$(abs_dir libdir)"
check_libtbs_user "$root" "$(abs_dir libdir)" "$(abs_dir includedir)"
