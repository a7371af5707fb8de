#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check-dashboard.py DASHBOARD.json METRICS_RENDER DOC.json...

The Grafana dashboard loads: valid JSON with a schemaVersion, a uid and a
title, panels with unique ids inside the 24-column grid, and every panel
(rows aside) has targets whose PromQL expr names at least one metric; every
metric named in an expr or a variable query is a family that lib/metrics.c
exports (the names come from METRICS_RENDER's output on the documents,
checked by check-metrics.py); and the panels the issue asks for are there
(link states, deadline misses per queue, invalid per queue, clock offsets,
launch-time offload, drift repairs, reloads, the metrics file's age, the
launch-time error and its probe drops), and the launch-time error has a
heat map panel of its buckets (format "heatmap", not recalculated). The
one series not tbsd's is node_exporter's node_textfile_mtime_seconds."""
import json
import os
import re
import subprocess
import sys

KEYWORDS = {'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless',
            'offset', 'inf', 'nan'}
REQUIRED = {'tbs_link_state', 'tbs_queue_deadline_misses_total', 'tbs_queue_invalid_total',
            'tbs_clock_master_offset_seconds', 'tbs_clock_phc_offset_seconds', 'tbs_launch_time_offload',
            'tbs_link_drift_repairs_total', 'tbs_config_last_reload_successful',
            'tbs_config_last_reload_success_timestamp_seconds', 'node_textfile_mtime_seconds',
            'tbs_launch_error_seconds_bucket', 'tbs_launch_probes_dropped_total'}
# Not tbsd's: node_exporter's textfile collector says when it last saw
# tbsd's file change (the staleness panel).
NODE_EXPORTER = {'node_textfile_mtime_seconds'}


def metric_names(expr):
    """Metric names in a PromQL expression: identifiers that are not
    functions, keywords, label names or strings."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    e = re.sub(r'\{[^}]*\}', '', e)
    e = re.sub(r'\[[^\]]*\]', '', e)
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', ' ', e)
    names = set()
    for m in re.finditer(r'(?<![\w$.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?', e):
        word, call = m.group(1), m.group(2)
        if call or word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names


# Labels every series has once scraped, beside its own.
TARGET_LABELS = {'instance', 'job', '__name__'}


def exported_labels(render, docs):
    """The label names of each family in METRICS_RENDER's samples."""
    text = subprocess.run([render] + docs, check=True, capture_output=True, text=True).stdout
    labels = {}
    for line in text.splitlines():
        m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ', line)
        if not m or line.startswith('#'):
            continue
        names = set(re.findall(r'(?:^|,)([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(2) or ''))
        labels.setdefault(m.group(1), set()).update(names)
    return labels


def selector_labels(expr):
    """(metric, label names of its matchers) of every name{...} selector."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    for m in re.finditer(r'([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}', e):
        yield m.group(1), set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)', m.group(2)))


def balanced(expr):
    pairs, stack = {')': '(', ']': '[', '}': '{'}, []
    for c in re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr):
        if c in '([{':
            stack.append(c)
        elif c in pairs:
            if not stack or stack.pop() != pairs[c]:
                return False
    return not stack


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    path, render, docs = sys.argv[1], sys.argv[2], sys.argv[3:]
    checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'check-metrics.py')
    out = subprocess.run([checker, '--families', '--render', render] + docs, check=True,
                         capture_output=True, text=True).stdout
    exported = set(out.split()) | NODE_EXPORTER
    labels = exported_labels(render, docs)
    errors = []

    with open(path) as f:
        dash = json.load(f)
    for key, kind in (('schemaVersion', int), ('uid', str), ('title', str), ('panels', list)):
        if not isinstance(dash.get(key), kind):
            errors.append(f'{key} missing or not a {kind.__name__}')
    used, ids = set(), set()
    for var in dash.get('templating', {}).get('list', []):
        q = var.get('query')
        q = q.get('query') if isinstance(q, dict) else q
        if var.get('type') == 'query':
            m = re.match(r'label_values\((.*),\s*\w+\)$', q or '')
            if not m:
                errors.append(f'variable {var.get("name")}: not a label_values() query: {q!r}')
                continue
            for name in metric_names(m.group(1)):
                used.add(name)
                if name not in exported:
                    errors.append(f'variable {var.get("name")}: {name} is not an exported metric')
    panels = list(dash.get('panels', []))
    for p in list(panels):
        panels.extend(p.get('panels', []))
    for p in panels:
        title = p.get('title', '?')
        if p.get('id') in ids:
            errors.append(f'panel {title}: id {p.get("id")} used twice')
        ids.add(p.get('id'))
        g = p.get('gridPos', {})
        if not all(isinstance(g.get(k), int) for k in 'hwxy') or g['x'] + g['w'] > 24:
            errors.append(f'panel {title}: bad gridPos {g}')
        if p.get('type') == 'row':
            continue
        if not p.get('type') or not p.get('targets'):
            errors.append(f'panel {title}: no type or no targets')
        for t in p.get('targets', []):
            expr = t.get('expr', '')
            names = metric_names(expr)
            if not balanced(expr):
                errors.append(f'panel {title}: unbalanced brackets in {expr!r}')
            if not names:
                errors.append(f'panel {title}: expr names no metric: {expr!r}')
            for n in names:
                used.add(n)
                if n not in exported:
                    errors.append(f'panel {title}: {n} is not an exported metric ({expr!r})')
            for n, ls in selector_labels(expr):
                # A family without samples in the fixtures (the daemon's) is not checked.
                if n in labels and ls - labels[n] - TARGET_LABELS:
                    errors.append(f'panel {title}: {n} has no label {", ".join(sorted(ls - labels[n] - TARGET_LABELS))} '
                                  f'({expr!r})')
    if not any(p.get('type') == 'heatmap' and p.get('options', {}).get('calculate') is False and
               any(t.get('format') == 'heatmap' and 'tbs_launch_error_seconds_bucket' in metric_names(t.get('expr', ''))
                   for t in p.get('targets', []))
               for p in panels):
        errors.append('no heat map panel of tbs_launch_error_seconds_bucket (type heatmap, format heatmap)')
    for n in sorted(REQUIRED - used):
        errors.append(f'no panel shows {n}')
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print(f'ok: {len(panels)} panels, metrics used: {", ".join(sorted(used))}')


if __name__ == '__main__':
    main()
