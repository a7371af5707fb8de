#!/bin/bash
# The bash completion of tbsctl offers the commands, the options, schedule
# files for validate, and interface names: here tbsd is not reachable (the
# system bus address points nowhere), so they come from /sys/class/net.
# (test-empty-start.sh checks the names that come from a running tbsd.)
. "$(dirname "$0")/lib.sh"

export PATH=$BUILD/cli:$PATH
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$WORK/no-bus
# shellcheck disable=SC1091
. "$SRC/shell-completion/bash/tbsctl"

# complete WORDS...: the completions of the last word (may be "").
complete_words() {
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMPREPLY=()
        _tbsctl
        printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

check() {
        local want=$1
        shift
        local got
        got=$(complete_words "$@")
        [ "$got" = "$want" ] || fail "tbsctl completion of '$*': expected '$want', got '$got'"
        pass "'$*' -> '$got'"
}

check "stats status" tbsctl st
check "apply" tbsctl --json ap
check "--json" tbsctl --js
check "caps clock" tbsctl -j c
check "" tbsctl reload ""
check "" tbsctl monitor ""

links=$(LC_ALL=C ls -1 /sys/class/net | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
[ -n "$links" ] || fail "no interfaces in /sys/class/net"
check "$links" tbsctl status ""
check "$links" tbsctl --json caps ""
check "" tbsctl caps lo ""
check "lo" tbsctl stats l
check "" tbsctl txtime-params lo ""
check "$links" tbsctl import ""
check "lo" tbsctl import -o /nonexistent/x.json l
check "" tbsctl import lo ""
check "--force" tbsctl import lo --fo
check "-o" tbsctl import lo -o

mkdir -p "$WORK/sched/sub"
touch "$WORK/sched/eth0.json" "$WORK/sched/eth1.json" "$WORK/sched/notes.txt"
check "$WORK/sched/eth0.json $WORK/sched/eth1.json $WORK/sched/sub" tbsctl validate "$WORK/sched/"
# import -o FILE: any file name (the schedule is created there)
check "$WORK/sched/eth0.json $WORK/sched/eth1.json" tbsctl import lo -o "$WORK/sched/e"
check "$WORK/sched/notes.txt" tbsctl import --output "$WORK/sched/n"
