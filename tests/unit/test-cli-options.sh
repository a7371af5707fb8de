#!/bin/bash
# Every numeric option of tbsctl and tbsd as programs: a bad value is a
# usage error (exit 2) with one exact line on stderr, refused before any
# bus connection or file access; a good value gets past the parsing.
# Usage: test-cli-options.sh TBSCTL TBSD
set -u
tbsctl=$1 tbsd=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
# No bus here: a value that parses reaches client_connect() and exits 3.
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/no-bus"

fail() {
        echo "FAIL: $*"
        failures=$((failures + 1))
}

# NAME EXPECTED_RC EXPECTED_STDERR COMMAND...
expect() {
        local name=$1 want_rc=$2 want_err=$3 rc
        shift 3
        "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
        if [ "$rc" != "$want_rc" ]; then
                fail "$name: exit code $rc, expected $want_rc"
        fi
        if [ -n "$want_err" ] && [ "$(cat "$tmp/err")" != "$want_err" ]; then
                fail "$name: stderr"
                echo "  expected: $want_err"
                echo "  got:      $(cat "$tmp/err")"
        fi
}

watch_err() { echo "tbsctl: --watch: must be a number of seconds (such as 1 or 0.5) between 0.1 and 3600, got '$1'"; }

# tbsctl stats --watch: the issue's spinning inputs and the rest of strtod()'s
for v in inf 1e30 nan -1 0 0.05 3600.5 1abc 0x10 " 1" 1e1 99999999999999999999; do
        expect "--watch=$v" 2 "$(watch_err "$v")" "$tbsctl" stats eth0 "--watch=$v"
done
expect "stats SECONDS inf" 2 \
        "tbsctl: stats: SECONDS: must be a number of seconds (such as 1 or 0.5) between 0.1 and 3600, got 'inf'" \
        "$tbsctl" stats eth0 --watch inf
expect "interval given twice" 2 "tbsctl: stats: the interval is given twice (--watch=2 and '3')" \
        "$tbsctl" stats eth0 --watch=2 3
for v in 0.1 1 2.5 3600; do
        expect "--watch=$v parses" 3 "" "$tbsctl" stats eth0 "--watch=$v"
done
expect "stats SECONDS 0.5 parses" 3 "" "$tbsctl" stats eth0 --watch 0.5

# tbsctl --count, txtime-params and selftest QUEUE
# (at most 1000: the probes' reports must fit the socket's error queue, and
# the run lasts a millisecond per probe; issue 37 point 5)
for v in 0 1001 100000 1abc +5 -- 1.0; do
        expect "--count=$v" 2 "tbsctl: --count: must be an integer between 1 and 1000, got '$v'" \
                "$tbsctl" "--count=$v" selftest eth0
done
expect "--count=1000 parses" 3 "" "$tbsctl" --count=1000 selftest eth0
for v in 65535 4294967296 x 1x " 1"; do
        expect "txtime-params $v" 2 "tbsctl: txtime-params: QUEUE: must be an integer between 0 and 65534, got '$v'" \
                "$tbsctl" txtime-params eth0 "$v"
        expect "selftest $v" 2 "tbsctl: selftest: QUEUE: must be an integer between 0 and 65534, got '$v'" \
                "$tbsctl" selftest eth0 "$v"
done
expect "txtime-params 3 parses" 3 "" "$tbsctl" txtime-params eth0 3

# A value with a control character is escaped in the message
expect "--count escaped" 2 "tbsctl: --count: must be an integer between 1 and 1000, got '1\\x1b[2J'" \
        "$tbsctl" "--count=1"$'\e'"[2J" selftest eth0

# tbsd
mkdir "$tmp/conf"
for v in inf 0.05 3601 1e1 nan -1 " 2"; do
        expect "--clock-interval=$v" 2 \
                "tbsd: --clock-interval: must be a number of seconds (such as 1 or 0.5) between 0.1 and 3600, got '$v'" \
                "$tbsd" --check --config-dir "$tmp/conf" "--clock-interval=$v"
done
for v in inf 0.001 -0 3601 1abc; do
        expect "--stats-interval=$v" 2 \
                "tbsd: --stats-interval: must be 0 or a number of seconds (such as 1 or 0.5) between 0.01 and 3600, got '$v'" \
                "$tbsd" --check --config-dir "$tmp/conf" "--stats-interval=$v"
done
for v in 8 +3 " 3" 3x; do
        expect "--log-level=$v" 2 \
                "tbsd: --log-level: must be emerg, alert, crit, err, warning, notice, info, debug or a number from 0 to 7, got '$v'" \
                "$tbsd" --check --config-dir "$tmp/conf" "--log-level=$v"
done
expect "--config-dir not UTF-8" 2 "tbsd: --config-dir: must be valid UTF-8 without control characters, got '$tmp/\\xff'" \
        "$tbsd" --check --config-dir "$tmp/"$'\xff'
# --schedule-group-may: the rights-granting schedule keys, each once (issue 46).
may_err() { echo "tbsd: --schedule-group-may: '$1': expected a comma-separated list of allow, sockets and skip_sock_check, each once, got '$2'"; }
expect "--schedule-group-may=clock" 2 "$(may_err clock clock)" "$tbsd" --check --config-dir "$tmp/conf" --schedule-group-may=clock
expect "--schedule-group-may=allow,allow" 2 "$(may_err allow allow,allow)" \
        "$tbsd" --check --config-dir "$tmp/conf" --schedule-group-may=allow,allow
expect "--schedule-group-may=allow," 2 "$(may_err "" allow,)" "$tbsd" --check --config-dir "$tmp/conf" --schedule-group-may=allow,
expect "--schedule-group-may='allow sockets'" 2 "$(may_err "allow sockets" "allow sockets")" \
        "$tbsd" --check --config-dir "$tmp/conf" "--schedule-group-may=allow sockets"
expect "good --schedule-group-may" 0 "" "$tbsd" --check --config-dir "$tmp/conf" \
        --schedule-group-may=skip_sock_check,sockets,allow
expect "empty --schedule-group-may" 0 "" "$tbsd" --check --config-dir "$tmp/conf" --schedule-group-may=
expect "good tbsd values" 0 "" "$tbsd" --check --config-dir "$tmp/conf" --clock-interval=0.1 --stats-interval=0 --log-level=7

# tbsctl import's options: only for import, --force only with a file;
# an existing file is not replaced (refused before the kernel is asked).
expect "--output with another verb" 2 "tbsctl: --output and --force are only for import; see 'tbsctl --help'" \
        "$tbsctl" -o "$tmp/x.json" status
expect "--force without --output" 2 "tbsctl: --force needs --output; see 'tbsctl --help'" \
        "$tbsctl" import lo --force
expect "import without IFACE" 2 "tbsctl: import: wrong number of arguments; see 'tbsctl --help'" \
        "$tbsctl" import
echo keep > "$tmp/have.json"
expect "import over an existing file" 1 "tbsctl: $tmp/have.json: exists; use --force to replace it" \
        "$tbsctl" import lo -o "$tmp/have.json"
[ "$(cat "$tmp/have.json")" = keep ] || fail "import over an existing file: the file changed"
expect "import of a missing interface" 1 "tbsctl: nosuch0: no such interface" "$tbsctl" import nosuch0

# An option getopt refuses: one line with the program's short name (not
# the path it was started by) and the --help hint, for every command and
# for tbsd; nothing after it runs (exit 2 before the bus is asked).
for verb in status list "caps lo" "clock" "stats lo" "apply lo" "remove lo" reload "validate x.json" \
            "import lo" "schedule lo" "txtime-params lo 0" monitor metrics "selftest lo"; do
        # shellcheck disable=SC2086
        expect "$verb --bogus" 2 "tbsctl: unknown option '--bogus'; see 'tbsctl --help'" "$tbsctl" $verb --bogus
done
expect "tbsctl -x" 2 "tbsctl: unknown option '-x'; see 'tbsctl --help'" "$tbsctl" -jx status
expect "tbsctl --json=1" 2 "tbsctl: option '--json' takes no value; see 'tbsctl --help'" "$tbsctl" --json=1 list
expect "tbsctl --count" 2 "tbsctl: option '--count' needs a value; see 'tbsctl --help'" "$tbsctl" selftest lo --count
expect "tbsctl -o" 2 "tbsctl: option '-o' needs a value; see 'tbsctl --help'" "$tbsctl" import lo -o
expect "tbsctl --ver" 2 "tbsctl: ambiguous option '--ver'; see 'tbsctl --help'" "$tbsctl" --ver
expect "tbsd --bogus" 2 "tbsd: unknown option '--bogus'; see 'tbsd --help'" "$tbsd" --bogus
expect "tbsd --check=1" 2 "tbsd: option '--check' takes no value; see 'tbsd --help'" "$tbsd" --check=1
expect "tbsd --config-dir" 2 "tbsd: option '--config-dir' needs a value; see 'tbsd --help'" "$tbsd" --check --config-dir

if [ "$failures" -gt 0 ]; then
        echo "$failures failure(s)"
        exit 1
fi
echo "all passed"
