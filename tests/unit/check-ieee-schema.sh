#!/bin/bash
# check-ieee-schema.sh YANG_SCHEMA SOURCE_DIR: tbsd's texts of the IEEE
# modules (netconf/) have the schema of the published ones (issue 48):
# every data node's path, namespace, kind, type, config flag, must count
# and default, and every identity, as yuma123 reads them (yang-schema),
# equal to tests/unit/fixtures/ieee-*schema.facts. The one addition is
# tbsd's own gate-parameter-table of ieee802-dot1q-sched (its revision
# 2026-12-07, docs/netconf.md). Then with tbsd-deviations applied as
# netconfd applies it: exactly the deviated facts differ.
set -euo pipefail
dump=$1
src=$2
# Under the sanitizers (meson test --setup asan): yuma123's own leaks are
# not ours; leaks anywhere else still count.
export LSAN_OPTIONS="suppressions=$src/tests/unit/yuma-lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# (yuma123 is built without frame pointers: the slow unwinder finds its frames.)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
modules=(ietf-interfaces ieee802-dot1dc-sched-if ieee802-dot1q-sched ieee802-types ieee802-dot1q-types
        ieee802-dot1dc-cbsa-if ieee802-dot1q-cbsa)
modules+=(ieee802-dot1dc-preemption-if ieee802-dot1q-preemption ieee802-ethernet-mac-merge) # ieee-schema-preemption.facts
modpath=$src/netconf:/usr/share/yuma/modules
facts() { "$dump" "$modpath" "${modules[@]}" | grep -E '^(node|identity) ' | LC_ALL=C sort; }
want=$(cat "$src"/tests/unit/fixtures/ieee-*schema*.facts | grep -v '^#' | LC_ALL=C sort)
[ "$(wc -l <<<"$want")" -ge 60 ] || { echo "the fixture has too few facts"; exit 1; }

all=$(facts)
legacy=' /ietf-interfaces:interfaces/ietf-interfaces:interface/ieee802-dot1q-sched:gate-parameter-table'
own=$(grep -F -- "$legacy" <<<"$all" || true)
[ "$(wc -l <<<"$own")" -ge 40 ] || { echo "tbsd's own gate-parameter-table is missing: $own"; exit 1; }
got=$(grep -vF -- "$legacy" <<<"$all")
if [ "$got" != "$want" ]; then
        echo "tbsd's IEEE modules differ from the published schema (< published, > tbsd's):"
        diff <(echo "$want") <(echo "$got") || true
        exit 1
fi
echo "ok: $(wc -l <<<"$got") facts of the published modules, $(wc -l <<<"$own") of tbsd's own table"

# tbsd-deviations: no must left on the 802.1DC table, supported-* state,
# the 32-bit leaves a controller writes range-checked uint64s.
d='\/ieee802-dot1dc-sched-if:'
deviated=$(sed -E "/ \/ietf-interfaces:interfaces\/ietf-interfaces:interface${d}gate-parameter-table/ s/ must=[0-9]+/ must=0/
        /${d}gate-parameter-table${d}supported-/ s/ config must=/ state must=/
        /cbsa-if:cbsa-parameter-table\/ieee802-dot1dc-cbsa-if:oper-idle-slope / s/ default=0$//
        /${d}(admin-control-list${d}gate-control-entry${d}(index|time-interval-value)|admin-cycle-time${d}(numerator|denominator)|admin-cycle-time-extension|admin-base-time${d}nanoseconds|queue-max-sdu-table${d}queue-max-sdu) / s/ leaf uint32 config / leaf uint64 config /
        /\/ieee802-dot1dc-preemption-if:frame-preemption-parameters\/ieee802-dot1dc-preemption-if:(hold-advance|release-advance|hold-request) /d" <<<"$want")
got=$(YANG_SCHEMA_DEVIATION=tbsd-deviations facts | grep -vF -- "$legacy")
if [ "$got" != "$deviated" ]; then
        echo "tbsd-deviations does not deviate exactly what it says (< expected, > read):"
        diff <(echo "$deviated") <(echo "$got") || true
        exit 1
fi
[ "$deviated" != "$want" ] || { echo "the deviations change nothing"; exit 1; }
echo "ok: tbsd-deviations deletes $(grep -c ' must=[1-9]' <<<"$want") must statements, makes 3 limits state, checks 7 leaves' range, leaves oper-idle-slope without its default, removes hold-advance, release-advance and hold-request"
