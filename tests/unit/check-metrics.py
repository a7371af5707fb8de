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


HISTOGRAM_SUFFIXES = ('_bucket', '_sum', '_count')


def family_of(name, types):
    """The family a sample name belongs to: a histogram's _bucket, _sum and
    _count samples are its family's."""
    for suffix in HISTOGRAM_SUFFIXES:
        base = name[:-len(suffix)]
        if name.endswith(suffix) and types.get(base) == 'histogram':
            return base
    return name


def check_histograms(text, types):
    """Each histogram series: _bucket samples with an le label, ascending
    bounds, cumulative (never decreasing) counts, a last le="+Inf" bucket
    equal to _count, and a _sum."""
    errors, series = [], {}
    for line in text.splitlines():
        m = SAMPLE.match(line)
        if line.startswith('#') or not m:
            continue
        name, _, labels, value = m.groups()
        family = family_of(name, types)
        if types.get(family) != 'histogram':
            continue
        pairs = {a: b for a, b, _ in PAIR.findall(labels or '')}
        le = pairs.pop('le', None)
        s = series.setdefault((family, tuple(sorted(pairs.items()))), {'buckets': [], 'sum': None, 'count': None})
        if name.endswith('_bucket'):
            if le is None:
                errors.append(f'{line}: a bucket without le')
                continue
            s['buckets'].append((float(le), float(value)))
        elif name.endswith('_sum'):
            s['sum'] = float(value)
        elif name.endswith('_count'):
            s['count'] = float(value)
        else:
            errors.append(f'{line}: a histogram sample that is not _bucket, _sum or _count')
    for (family, labels), s in series.items():
        where = f'{family}{dict(labels)}'
        b = s['buckets']
        if not b or b[-1][0] != float('inf'):
            errors.append(f'{where}: no le="+Inf" bucket last')
        if any(x[0] >= y[0] for x, y in zip(b, b[1:])):
            errors.append(f'{where}: bucket bounds not ascending')
        if any(x[1] > y[1] for x, y in zip(b, b[1:])):
            errors.append(f'{where}: bucket counts not cumulative')
        if s['count'] is None or s['sum'] is None:
            errors.append(f'{where}: _count or _sum missing')
        elif b and b[-1][1] != s['count']:
            errors.append(f'{where}: +Inf bucket {b[-1][1]} != _count {s["count"]}')
    return errors


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
        sample_name, _, labels, value = m.groups()
        name = family_of(sample_name, types)
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
        key = (sample_name, tuple(sorted(pairs)))
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

    errors += check_histograms(text, types)

    # The same content as OpenMetrics: counter families are named without
    # _total. OpenMetrics forbids _sum on a histogram with negative buckets
    # (such a sum can go down; the text format allows it: tbs_launch_error_seconds,
    # docs/metrics.md), so those histograms lose _sum and _count there.
    negative = {family_of(m.group(1), types) for m in
                (SAMPLE.match(line) for line in text.splitlines() if '_bucket{' in line and 'le="-' in line)
                if m}
    om = []
    for line in text.splitlines():
        parts = line.split(' ', 3)
        if line.startswith('# ') and len(parts) == 4 and types.get(parts[2]) == 'counter':
            line = f'# {parts[1]} {parts[2][:-len("_total")]} {parts[3]}'
        m = SAMPLE.match(line)
        if m and not line.startswith('#') and m.group(1).endswith(('_sum', '_count')) and \
                family_of(m.group(1), types) in negative:
            continue
        om.append(line)
    try:
        list(om_families('\n'.join(om) + '\n# EOF\n'))
    except Exception as e:
        errors.append(f'not valid once rewritten to OpenMetrics: {e}')
    return errors, list(types)


def types_of(text):
    return {p[2]: p[3] for p in (line.split(' ', 3) for line in text.splitlines())
            if len(p) == 4 and p[0] == '#' and p[1] == 'TYPE'}


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
        # a histogram's series are named with its suffixes (what PromQL names)
        print('\n'.join(n + x for n in names for x in
                         ([''] + list(HISTOGRAM_SUFFIXES) if types_of(text).get(n) == 'histogram' else [''])))
    else:
        print(f'ok: {len(names)} families, {sum(1 for l in text.splitlines() if not l.startswith("#"))} samples')


if __name__ == '__main__':
    main()
