#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check a Prometheus text exposition (format 0.0.4) the way promtool and
node_exporter's textfile collector read it.

  check-metrics.py FILE            check a file ("-" for standard input)
  check-metrics.py --render TOOL DOC.json...   check TOOL's output on the documents
  --families  print the metric family names (one a line) after checking

Checks: prometheus_client's parser reads every sample; every line is HELP,
TYPE or a sample; each family has one HELP and one TYPE line before its
samples, and its samples are contiguous; names and label names are valid;
counters end in _total; no series appears twice; values are numbers; no
"# EOF" (the textfile collector refuses OpenMetrics). The same samples,
rewritten to OpenMetrics (counter families without _total, # EOF), must
also pass prometheus_client's stricter OpenMetrics parser.
Exit status 0 when all holds; each problem on stderr."""
import re
import subprocess
import sys

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.openmetrics.parser import text_string_to_metric_families as om_families

NAME = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*$')
LABEL = re.compile(r'^[a-zA-Z_][a-zA-Z0-9_]*$')
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
PAIR = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)')
TYPES = {'counter', 'gauge', 'histogram', 'summary', 'untyped'}


def check(text):
    errors = []
    helps, types, seen_series, finished = {}, {}, set(), set()
    current = None
    if not text.endswith('\n'):
        errors.append('the exposition must end with a newline')
    for n, line in enumerate(text.splitlines(), 1):
        where = f'line {n}'
        if line.startswith('#'):
            parts = line.split(' ', 3)
            if line == '# EOF':
                errors.append(f'{where}: "# EOF" is OpenMetrics; the textfile collector refuses it')
                continue
            if len(parts) < 4 or parts[1] not in ('HELP', 'TYPE'):
                errors.append(f'{where}: a comment that is neither HELP nor TYPE: {line}')
                continue
            kind, name, rest = parts[1], parts[2], parts[3]
            if not NAME.match(name):
                errors.append(f'{where}: bad metric name {name!r}')
            table = helps if kind == 'HELP' else types
            if name in table:
                errors.append(f'{where}: second {kind} line for {name}')
            if name in finished or (current and current != name and name in helps.keys() | types.keys()):
                errors.append(f'{where}: {kind} of {name} after its samples')
            table[name] = rest
            if kind == 'TYPE':
                if rest not in TYPES:
                    errors.append(f'{where}: unknown type {rest!r}')
                if rest == 'counter' and not name.endswith('_total'):
                    errors.append(f'{where}: counter {name} does not end in _total')
            if current and current != name:
                finished.add(current)
            current = name
            continue
        m = SAMPLE.match(line)
        if not m:
            errors.append(f'{where}: not a sample: {line!r}')
            continue
        name, _, labels, value = m.groups()
        if name != current:
            errors.append(f'{where}: sample of {name} outside its family (HELP/TYPE first, samples together)')
        if name not in helps or name not in types:
            errors.append(f'{where}: {name} has no HELP or TYPE line')
        pairs = []
        if labels:
            pos = 0
            while pos < len(labels):
                pm = PAIR.match(labels, pos)
                if not pm:
                    errors.append(f'{where}: bad label set {{{labels}}}')
                    break
                pairs.append((pm.group(1), pm.group(2)))
                pos = pm.end()
            names = [p[0] for p in pairs]
            if len(set(names)) != len(names):
                errors.append(f'{where}: a label given twice')
        try:
            float(value)
        except ValueError:
            errors.append(f'{where}: value {value!r} is not a number')
        key = (name, tuple(sorted(pairs)))
        if key in seen_series:
            errors.append(f'{where}: series given twice: {line}')
        seen_series.add(key)

    try:
        parsed = list(text_string_to_metric_families(text))
        n_samples = sum(len(f.samples) for f in parsed)
        if n_samples != len(seen_series):
            errors.append(f'prometheus_client read {n_samples} samples, the lines hold {len(seen_series)}')
    except Exception as e:  # the parser raises ValueError and friends
        errors.append(f'prometheus_client cannot parse it: {e}')

    # The same content as OpenMetrics: counter families are named without _total.
    om = []
    for line in text.splitlines():
        parts = line.split(' ', 3)
        if line.startswith('# ') and len(parts) == 4 and types.get(parts[2]) == 'counter':
            line = f'# {parts[1]} {parts[2][:-len("_total")]} {parts[3]}'
        om.append(line)
    try:
        list(om_families('\n'.join(om) + '\n# EOF\n'))
    except Exception as e:
        errors.append(f'not valid once rewritten to OpenMetrics: {e}')
    return errors, list(types)


def main():
    args = sys.argv[1:]
    families = False
    if args and args[0] == '--families':
        families = True
        args = args[1:]
    if args and args[0] == '--render':
        text = subprocess.run(args[1:], check=True, capture_output=True, text=True).stdout
    elif args:
        text = sys.stdin.read() if args[0] == '-' else open(args[0]).read()
    else:
        sys.exit(__doc__)
    errors, names = check(text)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        sys.exit(1)
    if families:
        print('\n'.join(names))
    else:
        print(f'ok: {len(names)} families, {sum(1 for l in text.splitlines() if not l.startswith("#"))} samples')


if __name__ == '__main__':
    main()
