#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tbsctl --json metrics says what the text exposition says.

  check-metrics-json.py TOOL DOC.json...

Runs `TOOL DOC.json...` (the Prometheus text, read with prometheus_client's
parser as the oracle) and `TOOL --json DOC.json...` (lib/metrics.c's
metrics_render_json()), and checks that the JSON is the documented
structure (an array of {"name", "type", "help", "samples": [{"labels",
"value"}]}, a histogram's samples with their "name" too: _bucket, _sum,
_count), lists the same families in the same order with the same type
and help, and the same samples with the same labels and values (numbers,
not strings). Exit status 0 when all holds; each problem on stderr."""
import json
import math
import subprocess
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tool, docs = sys.argv[1], sys.argv[2:]
    text = subprocess.run([tool] + docs, check=True, capture_output=True, text=True).stdout
    doc = json.loads(subprocess.run([tool, '--json'] + docs, check=True, capture_output=True, text=True).stdout)
    errors = []

    want = []
    for f in text_string_to_metric_families(text):
        # the parser strips _total from counter family names
        name = f.name + '_total' if f.type == 'counter' else f.name
        want.append((name, f.type, f.documentation,
                     [(s.name if f.type == 'histogram' else None, s.labels, s.value) for s in f.samples]))

    if not isinstance(doc, list):
        sys.exit('the JSON is not an array')
    got = []
    for i, f in enumerate(doc):
        if not isinstance(f, dict) or set(f) != {'name', 'type', 'help', 'samples'}:
            errors.append(f'family {i}: keys {sorted(f) if isinstance(f, dict) else f!r}')
            continue
        samples = []
        for s in f['samples']:
            keys = {'name', 'labels', 'value'} if f.get('type') == 'histogram' else {'labels', 'value'}
            if set(s) != keys or not all(isinstance(v, str) for v in s['labels'].values()):
                errors.append(f'{f["name"]}: bad sample {s!r}')
                continue
            if s['value'] is not None and (isinstance(s['value'], bool) or
                                           not isinstance(s['value'], (int, float))):
                errors.append(f'{f["name"]}: value is not a number: {s!r}')
                continue
            samples.append((s.get('name'), s['labels'], math.nan if s['value'] is None else float(s['value'])))
        got.append((f['name'], f['type'], f['help'], samples))

    if [g[0] for g in got] != [w[0] for w in want]:
        errors.append(f'families differ:\n  text: {[w[0] for w in want]}\n  json: {[g[0] for g in got]}')
    for g, w in zip(got, want):
        if g[1:3] != w[1:3]:
            errors.append(f'{g[0]}: type/help {g[1:3]} != {w[1:3]}')
        if len(g[3]) != len(w[3]):
            errors.append(f'{g[0]}: {len(g[3])} samples, text has {len(w[3])}')
            continue
        for (gn, gl, gv), (wn, wl, wv) in zip(g[3], w[3]):
            same = (math.isnan(gv) and math.isnan(wv)) or gv == wv
            if gn != wn or gl != wl or not same:
                errors.append(f'{g[0]}: sample {gn} {gl} {gv} != {wn} {wl} {wv}')
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        sys.exit(1)
    print(f'ok: {len(got)} families, {sum(len(g[3]) for g in got)} samples agree')


if __name__ == '__main__':
    main()
