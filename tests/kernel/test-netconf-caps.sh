# issue 40 point 4: yuma123's netconfd with tbsd's server module
# (netconf/, libtbsd.so) behind OpenSSH's sshd, on loopback, as an
# unprivileged user; two clients nobody here wrote, python3-ncclient and
# yangcli, see the module's capability and fetch its YANG (get-schema).
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
# The server module reads tbsd's schedules at netconfd's start (and
# refuses to start without tbsd): a tbsd with nothing to do.
mkdir -p "$TMPDIR/conf"
start_system_bus
start_tbsd "$TMPDIR/conf" --state-dir "$TMPDIR/state" --schedule-group nogroup
start_netconf 65534
nc=$NC

out=$(HOME=/run/home /usr/bin/python3 - "$nc/userkey" <<'EOP'
import sys
from ncclient import manager
with manager.connect(host="127.0.0.1", port=8830, username="root", key_filename=sys.argv[1],
                     hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
    for c in m.server_capabilities:
        if "tbsd" in c or "ieee802-dot1q-sched" in c or c.startswith("urn:ietf:params:netconf:base:"):
            print("cap", c)
    text = m.get_schema("tbsd", version="2026-12-07").data
    print("schema", [l for l in text.splitlines() if l.strip()][0], "|", [l.strip() for l in text.splitlines() if "namespace" in l][0])
EOP
)
echo "$out"
assert_contains "$out" "cap urn:tsn:tbsd?module=tbsd&revision=2026-12-07" "ncclient: the capabilities"
assert_contains "$out" "cap urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched?module=ieee802-dot1q-sched&revision=2026-12-07" "ncclient: the gate parameters' module"
assert_contains "$out" "cap urn:ietf:params:netconf:base:1.1" "ncclient: NETCONF 1.1"
assert_contains "$out" 'schema module tbsd { | namespace "urn:tsn:tbsd";' "ncclient: get-schema tbsd"

# yangcli keeps ~/.yuma too (root's home is read-only here): it runs as
# tbsnc with a copy of the key, logging in as root.
cp "$nc/userkey" "$nc/userkey.pub" /run/nchome/
chown 64999:64999 /run/nchome/userkey /run/nchome/userkey.pub
set +e
out=$(cd /run/nchome && setpriv --reuid=64999 --regid=64999 --clear-groups env HOME=/run/nchome \
        timeout 60 yangcli --server=127.0.0.1 --ncport=8830 --user=root \
        --private-key=/run/nchome/userkey --public-key=/run/nchome/userkey.pub --batch-mode \
        --run-command='get-schema identifier=tbsd version=2026-12-07 format=yang' 2>&1)
rc=$?
set -e
[ "$rc" = 0 ] || fail "yangcli exited with $rc: $out"
assert_contains "$out" "tbsd@2026-12-07" "yangcli: the server's modules"
assert_contains "$out" 'namespace "urn:tsn:tbsd";' "yangcli: get-schema tbsd"
stop_netconf
