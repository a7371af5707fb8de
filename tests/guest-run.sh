# Sourced by tests/kernel/uml-run and tests/nic/qemu-run: the time budget
# of a guest and what happens when it runs out.
#
# A test's budget is its meson timeout times TBS_TEST_TIMEOUT_FACTOR
# (default 1; scripts/test raises it on a loaded machine and passes the
# same factor to `meson test --timeout-multiplier`). Meson's timeout is the
# one that fires, so that meson reports TIMEOUT, not FAIL: it sends SIGTERM
# to the runner, which then stops the whole guest at once and says so. The
# runner's own limit (guest_budget + GUEST_BACKSTOP_S) only matters when it
# is run by hand; it also prints a TIMEOUT line.

GUEST_BACKSTOP_S=${GUEST_BACKSTOP_S:-30}

# guest_timeout_factor: TBS_TEST_TIMEOUT_FACTOR checked (a number from 1 to
# 20, decimals allowed), or exit 2 with the reason.
guest_timeout_factor() {
        local f=${TBS_TEST_TIMEOUT_FACTOR:-1}
        if ! [[ $f =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v f="$f" 'BEGIN { exit !(f >= 1 && f <= 20) }'; then
                echo "$runner_name: TBS_TEST_TIMEOUT_FACTOR=$f: not a number from 1 to 20" >&2
                exit 2
        fi
        echo "$f"
}

# guest_scaled SECONDS FACTOR: SECONDS * FACTOR, rounded up.
guest_scaled() {
        awk -v s="$1" -v f="$2" 'BEGIN { v = s * f; printf "%d\n", (v == int(v)) ? v : int(v) + 1 }'
}

# guest_run BUDGET LOG CMD...: run CMD (the emulator) with standard input
# closed and its output in LOG, for at most BUDGET + GUEST_BACKSTOP_S
# seconds. Its process groups are killed when the runner is told to stop
# (meson's timeout, ^C): meson kills only the runner's group. Sets guest_status (the command's
# exit status; 124 or 137 when the backstop fired). Calls the runner's
# guest_on_timeout WHY when the run is cut short.
guest_run() {
        local budget=$1 log=$2 limit
        shift 2
        limit=$((budget + GUEST_BACKSTOP_S))
        guest_started=$SECONDS
        timeout -k 5 "$limit" "$@" </dev/null >"$log" 2>&1 &
        guest_pid=$!
        trap 'guest_stop "stopped by the test harness (meson timeout, or interrupted)"' TERM INT
        guest_status=0
        wait "$guest_pid" || guest_status=$?
        trap - TERM INT
        if [ "$guest_status" = 124 ] || [ "$guest_status" = 137 ]; then
                guest_on_timeout "no result after ${limit}s (budget ${budget}s + ${GUEST_BACKSTOP_S}s)"
        fi
}

guest_stop() {
        local p
        # timeout(1) leads a process group of its own, and linux.uml calls
        # setsid() too: kill each group, or the guest runs on orphaned.
        for p in $(pgrep -P "$guest_pid"); do
                kill -KILL -- "-$(ps -o pgid= -p "$p" | tr -d ' ')" "$p" 2>/dev/null
        done
        kill -KILL -- "-$guest_pid" "$guest_pid" 2>/dev/null
        guest_on_timeout "$1 after $((SECONDS - guest_started))s"
        exit 1
}
