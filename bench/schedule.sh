# The benchmark's schedule file, sourced by bench/guest.sh and the smaller
# guest scripts beside it (count-once.sh, memprobe.sh, once-vs-floor.sh),
# so that every figure is of the same file: mqprio with four classes, an
# etf per TX queue, queue 0's delta the argument.

# bench_schedule IFACE [DELTA0]: the file's text on stdout (a builtin only:
# no process per file, the bench writes thousands).
bench_schedule() {
        local text
        IFS= read -r -d '' text <<EOJ || true
{
  "interface": "$1",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 4,
    "priority_map": [0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1},
                {"count": 1, "offset": 2}, {"count": 1, "offset": 3} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": ${2:-200000}, "offload": false},
    {"queue": 1, "qdisc": "etf", "delta_ns": 300000, "offload": false},
    {"queue": 2, "qdisc": "etf", "delta_ns": 400000, "offload": false},
    {"queue": 3, "qdisc": "etf", "delta_ns": 500000, "offload": false}
  ],
  "allow": ["ptp-etf"]
}
EOJ
        printf '%s' "$text"
}
