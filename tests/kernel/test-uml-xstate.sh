#!/bin/bash
# Debian 12's linux.uml (or, with --kernel 6.12, Debian 13's) on a host whose
# XSAVE area is larger than UML's 832-byte buffer (AVX-512, AMX): reproduces
# the fault and shows it contained.
# Runs on the host: boots the kernel twice with a one-line init, without and
# with tests/kernel/uml-xstate.so preloaded (as uml-run does). Without: a host
# with a larger area must show the fault ("ptrace set fp regs failed, errno =
# 14") and one without must boot; with: every host reaches init.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../guest-run.sh"
factor=$(guest_timeout_factor) || exit 2
limit=$(guest_scaled 60 "$factor")
# --kernel 6.12: Debian 13's linux.uml from prepare-uml612's cache (as uml-run --kernel 6.12).
case "${1:-} ${2:-}" in
"--kernel 6.12")
        uml=$("$here/prepare-uml612")/linux.uml || { echo "FAIL: no Linux 6.12 user-mode-linux (prepare-uml612 said why above)"; exit 1; } ;;
" "|"--kernel 6.1")
        uml=$(command -v linux.uml) || { echo "FAIL: linux.uml not found (Debian package user-mode-linux)"; exit 1; } ;;
*) echo "usage: test-uml-xstate.sh [--kernel 6.1|6.12]"; exit 2 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/tbs-uml-xstate.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The host's XSAVE area for the features it enables (CPUID 0xD.0 EBX).
cat > "$work/xsave-size.c" <<'C'
#include <cpuid.h>
#include <stdio.h>
int main(void) {
        unsigned a, b, c, d;
        if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d))
                return 1;
        printf("%u\n", b);
        return 0;
}
C
cc -o "$work/xsave-size" "$work/xsave-size.c" || { echo "FAIL: cannot build the CPUID reader"; exit 1; }
size=$("$work/xsave-size") || { echo "FAIL: CPUID leaf 0xd unreadable"; exit 1; }
shim=$(ls "${TBS_BUILD_DIR:-$here/../../build}"/uml-xstate/uml-xstate-*.so 2>/dev/null | head -1)
if [ -z "$shim" ]; then
        shim=$work/uml-xstate.so
        cc -O2 -shared -fPIC -o "$shim" "$here/uml-xstate.c" || { echo "FAIL: cannot build uml-xstate.so"; exit 1; }
fi

boot() {        # boot LOG [PRELOAD]
        local log=$1
        # (a subshell: the kernel's abort is expected, not bash's news)
        ( timeout -k 5 "$limit" env ${2:+LD_PRELOAD="$2"} "$uml" mem=128M root=/dev/root rootfstype=hostfs \
                rootflags=/ ro init="$here/uml-xstate-init" con=null con0=null,fd:1 </dev/null >"$log" 2>&1 || true ) 2>/dev/null
        grep -q '^uml-xstate: init ran' "$log"
}

echo "host XSAVE area: $size bytes (UML 6.1 holds 832)"
rc=0
if boot "$work/plain.log"; then
        if [ "$size" -gt 832 ]; then
                echo "note: without the shim the kernel booted on a host with a ${size}-byte area (fixed host or kernel?)"
        else
                echo "ok: without the shim the kernel boots (the host's area fits)"
        fi
elif grep -q 'ptrace set fp regs failed, errno = 14' "$work/plain.log"; then
        if [ "$size" -gt 832 ]; then
                echo "ok: without the shim the fault is reproduced: ptrace set fp regs failed, errno = 14"
        else
                echo "FAIL: the fault on a host whose area fits ($size bytes)"; rc=1
        fi
else
        echo "FAIL: without the shim the kernel did not reach init, for another reason:"; tail -20 "$work/plain.log"; rc=1
fi
if boot "$work/shim.log" "$shim"; then
        echo "ok: with uml-xstate.so preloaded the kernel reaches init"
else
        echo "FAIL: with uml-xstate.so preloaded the kernel did not reach init:"; tail -20 "$work/shim.log"; rc=1
fi
exit $rc
