# issue 40 point 4 (skeleton): yuma123's netconfd with tbsd's server module
# (netconf/tbsd-sil.c) behind OpenSSH's sshd, on loopback, as an
# unprivileged user; two clients nobody here wrote, python3-ncclient and
# yangcli, see the module's capability and fetch its YANG (get-schema).
sil=$TBS_BUILD_DIR/netconf/libtbsd.so
[ -e "$sil" ] || fail "$sil was not built (meson -Dnetconf=enabled needs libyuma-dev)"
nc=/run/nc
mkdir -p "$nc" /run/sshd /run/nchome
chmod 0755 /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$nc/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$nc/userkey"
cp "$nc/userkey.pub" "$nc/authorized_keys"
cat > "$nc/sshd_config" <<EOC
Port 8830
ListenAddress 127.0.0.1
HostKey $nc/hostkey
PidFile $nc/sshd.pid
AuthorizedKeysFile $nc/authorized_keys
PasswordAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
Subsystem netconf "/usr/sbin/netconf-subsystem --ncxserver-sockname=8830@$nc/ncxserver.sock"
EOC

# netconfd as a user of its own (uid 64999, no group but its own): its
# socket is all it needs. It keeps a work folder in ~/.yuma, its home
# from the password database: the guest sees the host's /etc read-only,
# so the user is added to a copy bound over /etc/passwd. netconfd accepts
# a session only on a port in --port (the subsystem passes sshd's
# SSH_CONNECTION).
cp /etc/passwd /run/passwd
echo "tbsnc:x:64999:64999:tbsd NETCONF:/run/nchome:/usr/sbin/nologin" >> /run/passwd
mount --bind /run/passwd /etc/passwd
chown 64999:64999 /run/nchome
chmod 0777 "$nc"
setpriv --reuid=64999 --regid=64999 --clear-groups env HOME=/run/nchome \
        netconfd --modpath="$TBS_SOURCE_DIR/netconf" --runpath="$TBS_BUILD_DIR/netconf" --module=tbsd \
        --no-startup --port=8830 --ncxserver-sockname="$nc/ncxserver.sock" \
        --log=/run/nchome/netconfd.log --log-level=info >"$TBS_OUT/netconfd.out" 2>&1 &
NETCONFD_PID=$!
/usr/sbin/sshd -f "$nc/sshd_config" -E "$TBS_OUT/sshd.log" || fail "sshd did not start"
# netconfd runs as nobody: its log is in its home, copied to the results.
trap 'cp /run/nchome/netconfd.log "$TBS_OUT/" 2>/dev/null || true' EXIT
wait_until 10 test -S "$nc/ncxserver.sock" ||
        fail "netconfd did not start: $(cat /run/nchome/netconfd.log "$TBS_OUT/netconfd.out" 2>&1)"
pass "netconfd (uid $(ps -o uid= -p "$NETCONFD_PID" | tr -d ' ')) and sshd started"
if grep -q "SIL code for module 'tbsd' not found" /run/nchome/netconfd.log; then
        fail "netconfd did not load libtbsd.so"
fi
pass "netconfd loaded tbsd's server module"

out=$(HOME=/run/home /usr/bin/python3 - "$nc/userkey" <<'EOP'
import sys
from ncclient import manager
with manager.connect(host="127.0.0.1", port=8830, username="root", key_filename=sys.argv[1],
                     hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
    for c in m.server_capabilities:
        if "tbsd" in c or c.startswith("urn:ietf:params:netconf:base:"):
            print("cap", c)
    text = m.get_schema("tbsd", version="2026-12-07").data
    print("schema", [l for l in text.splitlines() if l.strip()][0], "|", [l.strip() for l in text.splitlines() if "namespace" in l][0])
EOP
)
echo "$out"
assert_contains "$out" "cap urn:tsn:tbsd?module=tbsd&revision=2026-12-07" "ncclient: the capabilities"
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
kill "$(cat "$nc/sshd.pid")" "$NETCONFD_PID"
