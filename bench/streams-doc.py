#!/usr/bin/env python3
"""A streams document of about 10 kB that is costly to compute (bench/bounds.sh):
80 streams (the most a file takes), 79 of them every 40 us and one every
2 ms, so the cycle holds 3951 windows (the computation takes 4096), each
stream placed where no earlier one's windows are. It validates as far as
the gate list, which is then refused for having more than 80 entries."""
import json

streams = [{"name": f"stream-{i:02d}-axis-ctrl", "traffic_class": 1 + i % 2,
            "period_ns": 40000, "max_frame_bytes": 60, "frames_per_period": 1} for i in range(79)]
streams.append({"name": "slow-telemetry", "traffic_class": 1, "period_ns": 2000000, "max_frame_bytes": 60})
doc = {"interface": "b0", "root": {
    "qdisc": "taprio", "num_tc": 3, "priority_map": [0] * 16,
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 1, "offset": 2}],
    "base_time_ns": 0, "mode": "full-offload", "link_speed_mbps": 10000, "guard_frame_bytes": 60,
    "streams": streams}, "txqueues": []}
print(json.dumps(doc, indent=1))
