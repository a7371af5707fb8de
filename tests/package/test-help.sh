#!/bin/bash
# tbsd --help and tbsctl --help are complete and agree with the option and
# command tables in the code, the man pages and the bash completion.
. "$(dirname "$0")/lib.sh"

tbsd=$BUILD/daemon/tbsd
tbsctl=$BUILD/cli/tbsctl
comp=$SRC/shell-completion/bash/tbsctl

# tbsd: every long option of the getopt table is in --help and in tbsd(8).
help=$("$tbsd" --help) || fail "tbsd --help failed"
code_opts=$(sed -n '/struct option options\[\]/,/^ *};/p' "$SRC/daemon/tbsd.c" | grep -o '{ *"[a-z-]*"' | grep -o '[a-z-]*' | sort)
[ -n "$code_opts" ] || fail "no options found in daemon/tbsd.c"
help_opts=$(grep -o -- '--[a-z][a-z-]*' <<<"$help" | sed 's/^--//' | sort -u)
man_opts=$(grep -o -- '\\-\\-[a-z][a-z\\-]*' "$SRC/man/tbsd.8" | sed -e 's/\\//g' -e 's/^--//' | sort -u)
for o in $code_opts; do
        grep -qx -- "$o" <<<"$help_opts" || fail "tbsd --help does not mention --$o"
        grep -qx -- "$o" <<<"$man_opts" || fail "tbsd(8) does not document --$o"
done
for o in $help_opts; do
        grep -qx -- "$o" <<<"$code_opts" || fail "tbsd --help mentions --$o, which tbsd does not accept"
done
pass "tbsd: $(wc -w <<<"$code_opts") options, all in --help and tbsd(8)"
grep -q '/etc/tbsd/schedules.d\|schedules.d' <<<"$help" || fail "tbsd --help does not name the default folder"
"$tbsd" --version | grep -qx "tbsd [0-9.]*" || fail "tbsd --version"
set +e
"$tbsd" --no-such-option >/dev/null 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "tbsd with an unknown option exits $rc, tbsd(8) says 2"
pass "tbsd --version; usage error exits 2"

# tbsctl: the verbs table, --help, tbsctl(8) and the completion agree.
help=$("$tbsctl" --help) || fail "tbsctl --help failed"
code_verbs=$(sed -n '/static const Verb verbs\[\]/,/^};/p' "$SRC/cli/tbsctl.c" | grep -o '^ *{ *"[a-z-]*"' | grep -o '[a-z-]*' | sort)
[ -n "$code_verbs" ] || fail "no verbs found in cli/tbsctl.c"
comp_verbs=$(sed -n 's/.*local commands="\([^"]*\)".*/\1/p' "$comp" | tr ' ' '\n' | sort)
for v in $code_verbs; do
        grep -q "^  $v\b" <<<"$help" || fail "tbsctl --help does not list $v"
        grep -q "^\.B[IR]\? ${v//-/\\\\-}\b" "$SRC/man/tbsctl.8" || fail "tbsctl(8) does not document $v"
        grep -qx "$v" <<<"$comp_verbs" || fail "the bash completion does not offer $v"
done
for v in $comp_verbs; do
        grep -qx "$v" <<<"$code_verbs" || fail "the bash completion offers $v, which tbsctl does not have"
done
pass "tbsctl: $(wc -w <<<"$code_verbs") commands, all in --help, tbsctl(8) and the completion"
for o in --json --help --version; do
        grep -q -- "$o" <<<"$help" || fail "tbsctl --help does not mention $o"
        grep -q -- "${o//-/\\\\-}" "$SRC/man/tbsctl.8" || fail "tbsctl(8) does not document $o"
done
grep -q '3 tbsd not reachable' <<<"$help" || fail "tbsctl --help does not give the exit codes"
set +e
"$tbsctl" frobnicate >/dev/null 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "tbsctl with an unknown command exits $rc, tbsctl(8) says 2"
pass "tbsctl options and exit codes documented; usage error exits 2"
