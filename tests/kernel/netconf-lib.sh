# Sourced by the netconf kernel tests: sshd on 127.0.0.1:8830 with the
# netconf subsystem, and netconfd with tbsd's modules and server module
# (libtbsd.so) as an unprivileged user (docs/netconf.md).
#
# start_netconf [GID]: netconfd as uid 64999 (user tbsnc), with GID (the
# group of tbsd --schedule-group) as its group when given, without
# capabilities. Sets NC, NETCONFD_PID; $NC/userkey logs in as root, the
# NACM superuser (--superuser=root; NC_SUPERUSER= for none, as the unit),
# and as ncop, a user NACM's rules judge. sshd's netconf subsystem is the
# package's, tbsd-netconf-subsystem.
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
Subsystem netconf "$TBS_BUILD_DIR/netconf/tbsd-netconf-subsystem --ncxserver-sockname=8830@$NC/ncxserver.sock"
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
# after each commit) or is "package": as tbsd-netconf.service, netconfd's
# own startup file ~/.yuma/startup-cfg.xml, the package's NACM rules
# (netconf/startup-cfg.xml) copied there when there is none, as the unit's
# ExecStartPre does. NC_ARGS: more options.
run_netconfd() {
        local startup=--no-startup superuser=--superuser=${NC_SUPERUSER-root}
        [ "$superuser" != --superuser= ] || superuser=
        if [ "${NC_STARTUP:-}" = package ]; then
                if [ ! -e /run/nchome/.yuma/startup-cfg.xml ]; then
                        install -D -m 0600 -o 64999 "$TBS_SOURCE_DIR/netconf/startup-cfg.xml" \
                                /run/nchome/.yuma/startup-cfg.xml
                        chown 64999 /run/nchome/.yuma
                fi
                startup=
        elif [ -n "${NC_STARTUP:-}" ]; then
                # netconfd wants the file there: an empty configuration first.
                if [ ! -e "$NC_STARTUP" ]; then
                        echo '<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"/>' > "$NC_STARTUP"
                        chown 64999 "$NC_STARTUP"
                fi
                startup=--startup=$NC_STARTUP
        fi
        # The server module's wait for tbsd (docs/netconf.md, "When tbsd
        # does not answer"): 2 s, scaled as the tests' times are.
        : "${TBSD_NETCONF_ANSWER_MS:=$(awk -v f="${TBS_TEST_TIMEOUT_FACTOR:-1}" 'BEGIN { printf "%d", 2000 * f }')}"
        setpriv --reuid=64999 --regid="$NC_GID" --groups "$NC_GID" env HOME=/run/nchome \
                TBSD_NETCONF_ANSWER_MS="$TBSD_NETCONF_ANSWER_MS" netconfd --modpath="$TBS_SOURCE_DIR/netconf:/usr/share/yuma/modules" \
                --runpath="$TBS_BUILD_DIR/netconf" --module=tbsd --module=ietf-interfaces --module=iana-if-type \
                $startup $superuser --port=8830 --ncxserver-sockname="$NC/ncxserver.sock" \
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

# start_tbsd_netconf: a system bus, tbsd (folder $conf, state folder
# $state, nogroup as the schedule group) and netconfd in nogroup.
start_tbsd_netconf() {
        mkdir -p "$conf"
        start_system_bus
        start_tbsd "$conf" --state-dir "$state" --schedule-group nogroup
        start_netconf 65534
}

# client ARGS: tests/kernel/nc-client.py (python3-ncclient) with the key,
# as root or NC_USER.
client() { HOME=/run/home /usr/bin/python3 "$TBS_SOURCE_DIR/tests/kernel/nc-client.py" "$NC/userkey" "$@"; }

IF_NS='xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"'
TYPE='<type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type>'
SCHED_NS='xmlns="urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched" xmlns:sched="urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched"'
# Three traffic classes: priorities 1 and 2 to classes 1 and 2, class 2 on queues 2-3.
ROOT3='<num-tc>3</num-tc>
  <priority-map><priority>1</priority><traffic-class>1</traffic-class></priority-map>
  <priority-map><priority>2</priority><traffic-class>2</traffic-class></priority-map>
  <queues><traffic-class>0</traffic-class><count>1</count><offset>0</offset></queues>
  <queues><traffic-class>1</traffic-class><count>1</count><offset>1</offset></queues>
  <queues><traffic-class>2</traffic-class><count>2</count><offset>2</offset></queues>'

# nc_gates IFACE NUMERATOR DENOMINATOR: the <config> of a taprio gate
# schedule of two entries (300 us class 0, 700 us classes 1 and 2), cycle
# NUMERATOR/DENOMINATOR s, software mode.
nc_gates() {
        cat <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces $IF_NS><interface>
<name>$1</name>$TYPE
<gate-parameter-table $SCHED_NS>
 <gate-enabled>true</gate-enabled>
 <admin-control-list>
  <gate-control-entry><index>0</index><operation-name>sched:set-gate-states</operation-name>
   <gate-states-value>1</gate-states-value><time-interval-value>300000</time-interval-value></gate-control-entry>
  <gate-control-entry><index>1</index><operation-name>sched:set-gate-states</operation-name>
   <gate-states-value>6</gate-states-value><time-interval-value>700000</time-interval-value></gate-control-entry>
 </admin-control-list>
 <admin-cycle-time><numerator>$2</numerator><denominator>$3</denominator></admin-cycle-time>
 <admin-base-time><seconds>0</seconds><nanoseconds>0</nanoseconds></admin-base-time>
</gate-parameter-table>
<schedule xmlns="urn:tsn:tbsd"><root>$ROOT3<mode>software</mode></root></schedule>
</interface></interfaces></config>
EOX
}

DC=urn:ieee:std:802.1Q:yang:ieee802-dot1dc-sched-if
# std_gates IFACE NUMERATOR DENOMINATOR [NODES]: a controller's <config>
# that knows only the published modules (issue 48): two entries (300 us
# class 0, 700 us classes 1 and 2), cycle NUMERATOR/DENOMINATOR s, the
# standard's nodes only; NODES (more of the table's nodes) after gate-enabled.
std_gates() {
        cat <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces $IF_NS><interface>
<name>$1</name>$TYPE
<gate-parameter-table xmlns="$DC" xmlns:q-sched="urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched">
 <gate-enabled>true</gate-enabled>${4:-}
 <admin-control-list>
  <gate-control-entry><index>0</index><operation-name>q-sched:set-gate-states</operation-name>
   <gate-states-value>1</gate-states-value><time-interval-value>300000</time-interval-value></gate-control-entry>
  <gate-control-entry><index>1</index><operation-name>q-sched:set-gate-states</operation-name>
   <gate-states-value>6</gate-states-value><time-interval-value>700000</time-interval-value></gate-control-entry>
 </admin-control-list>
 <admin-cycle-time><numerator>$2</numerator><denominator>$3</denominator></admin-cycle-time>
 <admin-base-time><seconds>0</seconds><nanoseconds>0</nanoseconds></admin-base-time>
</gate-parameter-table>
</interface></interfaces></config>
EOX
}

# nc_mq_iface IFACE DELTA: an <interface> entry with an mqprio root and a
# software etf of delta DELTA on queue 2.
nc_mq_iface() {
        cat <<EOX
<interface><name>$1</name>$TYPE
<schedule xmlns="urn:tsn:tbsd">
 <root>$ROOT3</root>
 <txqueues><queue>2</queue><delta-ns>$2</delta-ns><offload>false</offload></txqueues>
</schedule></interface>
EOX
}

# nc_config ENTRY...: the entries in a <config>'s <interfaces>.
nc_config() {
        echo "<config xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><interfaces $IF_NS>"
        printf '%s\n' "$@"
        echo "</interfaces></config>"
}

# yangcli as the user tbsnc (its ~/.yuma is /run/nchome's), NETCONF user
# root with the test's key, in batch mode running the yangcli script $1
# (copied to /run/nchome); its output on stdout, line-buffered.
yangcli_script() {
        cp "$NC/userkey" "$NC/userkey.pub" /run/nchome/
        cp "$1" /run/nchome/run.yc
        chown 64999 /run/nchome/userkey /run/nchome/userkey.pub /run/nchome/run.yc
        (cd /run/nchome && setpriv --reuid=64999 --regid=65534 --groups 65534 env HOME=/run/nchome \
                timeout "${YANGCLI_TIMEOUT:-90}" stdbuf -oL yangcli --server=127.0.0.1 --ncport=8830 --user=root \
                --private-key=/run/nchome/userkey --public-key=/run/nchome/userkey.pub --batch-mode \
                --run-script=/run/nchome/run.yc 2>&1)
}
