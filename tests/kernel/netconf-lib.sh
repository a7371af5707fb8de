# Sourced by the netconf kernel tests: sshd on 127.0.0.1:8830 with the
# netconf subsystem, and netconfd with tbsd's modules and server module
# (libtbsd.so) as an unprivileged user (docs/netconf.md).
#
# start_netconf [GID]: netconfd as uid 64999 (user tbsnc), with GID (the
# group of tbsd --schedule-group) as its group when given, without
# capabilities. Sets NC, NETCONFD_PID; $NC/userkey logs in as root, the
# NACM superuser (--superuser=root), and as ncop, a user NACM's rules judge.
start_netconf() {
        local gid=${1:-64999}
        sil=$TBS_BUILD_DIR/netconf/libtbsd.so
        [ -e "$sil" ] || fail "$sil was not built (meson -Dnetconf=enabled needs libyuma-dev)"
        NC=/run/nc
        mkdir -p "$NC" /run/sshd /run/nchome
        chmod 0755 /run/sshd
        ssh-keygen -q -t ed25519 -N '' -f "$NC/hostkey"
        ssh-keygen -q -t ed25519 -N '' -f "$NC/userkey"
        cp "$NC/userkey.pub" "$NC/authorized_keys"
        cat > "$NC/sshd_config" <<EOC
Port 8830
ListenAddress 127.0.0.1
HostKey $NC/hostkey
PidFile $NC/sshd.pid
AuthorizedKeysFile $NC/authorized_keys
PasswordAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
Subsystem netconf "/usr/sbin/netconf-subsystem --ncxserver-sockname=8830@$NC/ncxserver.sock"
EOC
        # netconfd keeps a work folder in ~/.yuma, its home from the
        # password database: the guest sees the host's /etc read-only, so
        # the user is added to a copy bound over /etc/passwd. netconfd
        # accepts a session only on a port in --port (the subsystem passes
        # sshd's SSH_CONNECTION).
        cp /etc/passwd /run/passwd
        echo "tbsnc:x:64999:$gid:tbsd NETCONF:/run/nchome:/usr/sbin/nologin" >> /run/passwd
        # ncop: a NETCONF user who is not NACM's superuser (same key).
        echo "ncop:x:65000:65000:NETCONF operator:/run/ncop:/bin/sh" >> /run/passwd
        mkdir -p /run/ncop
        mount --bind /run/passwd /etc/passwd
        chown 64999:"$gid" /run/nchome
        chmod 0777 "$NC"
        NC_GID=$gid
        run_netconfd
        /usr/sbin/sshd -f "$NC/sshd_config" -E "$TBS_OUT/sshd.log" || fail "sshd did not start"
        # netconfd runs as tbsnc: its log is in its home, copied to the results.
        trap 'cp /run/nchome/netconfd.log "$TBS_OUT/" 2>/dev/null || true' EXIT
        wait_netconfd
}

# run_netconfd: netconfd as tbsnc in the background (NETCONFD_PID), its
# log appended to /run/nchome/netconfd.log. Without a startup
# configuration (--no-startup) unless NC_STARTUP names one (--startup=FILE:
# netconfd loads it at its start and saves the running datastore there
# after each commit). NC_ARGS: more options.
run_netconfd() {
        local startup=--no-startup
        if [ -n "${NC_STARTUP:-}" ]; then
                # netconfd wants the file there: an empty configuration first.
                if [ ! -e "$NC_STARTUP" ]; then
                        echo '<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"/>' > "$NC_STARTUP"
                        chown 64999 "$NC_STARTUP"
                fi
                startup=--startup=$NC_STARTUP
        fi
        setpriv --reuid=64999 --regid="$NC_GID" --groups "$NC_GID" env HOME=/run/nchome \
                netconfd --modpath="$TBS_SOURCE_DIR/netconf:/usr/share/yuma/modules" \
                --runpath="$TBS_BUILD_DIR/netconf" --module=tbsd --module=ietf-interfaces --module=iana-if-type \
                "$startup" --superuser=root --port=8830 --ncxserver-sockname="$NC/ncxserver.sock" \
                ${NC_ARGS:-} --log=/run/nchome/netconfd.log --log-append --log-level=${NC_LOG_LEVEL:-info} \
                >>"$TBS_OUT/netconfd.out" 2>&1 &
        NETCONFD_PID=$!
}

# wait_netconfd: netconfd listens, with tbsd's server module loaded.
wait_netconfd() {
        wait_until 10 test -S "$NC/ncxserver.sock" ||
                fail "netconfd did not start: $(cat /run/nchome/netconfd.log "$TBS_OUT/netconfd.out" 2>&1)"
        pass "netconfd (uid $(ps -o uid= -p "$NETCONFD_PID" | tr -d ' ')) and sshd started"
        if grep -q "SIL code for module 'tbsd' not found" /run/nchome/netconfd.log; then
                fail "netconfd did not load libtbsd.so"
        fi
        pass "netconfd loaded tbsd's server module"
}

# stop_netconfd: netconfd only (sshd stays); its socket goes.
stop_netconfd() {
        kill "$NETCONFD_PID"
        wait "$NETCONFD_PID" 2>/dev/null || true
        rm -f "$NC/ncxserver.sock"
}

stop_netconf() {
        kill "$(cat "$NC/sshd.pid")" "$NETCONFD_PID"
}
