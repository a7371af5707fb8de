#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""recorded-alert-tests.py RULES OUT.yml PHASE_DIR...

Turn metrics files recorded from a running tbsd (--metrics-file) into a
`promtool test rules` file over RULES, one test group per PHASE_DIR, that
checks exactly which alerts fire in that phase.

A PHASE_DIR holds:
  0.prom, 1.prom  two successive copies of the metrics file
  mtimes          two lines: the file's modification time at each copy
  expect          the alerts that must fire, one per line:
                  ALERTNAME [LABEL=VALUE ...] with the labels device,
                  queue and reason where the alert has them; nothing else
                  may fire ('#' starts a comment)

Each recorded series becomes a promtool input series of one sample a
minute for 30 minutes, as a Prometheus scraping node_exporter's textfile
collector would see it: gauges keep the value of 1.prom; counters (and a
histogram's _bucket and _count) keep growing by what they grew between the
two copies. node_exporter's node_textfile_mtime_seconds follows the clock
when the file was rewritten between the copies, and stays put when not
(tbsd stopped). Every series gets instance="gw" and job="node".

At 20 minutes, past every rule's window and "for:", the test compares
count by (alertname, device, queue, reason) of the firing ALERTS with the
expectation, so a rule that fires where it must not, or stays silent
where it must, fails the test with promtool's list of both.
"""
import os
import sys

from prometheus_client.parser import text_string_to_metric_families

STEPS = 30
EVAL = '20m'
KEY = ('device', 'queue', 'reason')
TEXTFILE = '/var/lib/prometheus/node-exporter/tbsd.prom'


def samples(path):
    """{(name, sorted label items): (value, counter-like)} of a metrics file."""
    with open(path, encoding='utf-8') as f:
        text = f.read()
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            growing = fam.type == 'counter' or (fam.type == 'histogram' and
                                                 s.name.endswith(('_bucket', '_count')))
            out[(s.name, tuple(sorted(s.labels.items())))] = (s.value, growing)
    return out


def number(v):
    if v != v or v in (float('inf'), float('-inf')):
        raise SystemExit(f'a value promtool cannot take as a series value: {v}')
    if v == int(v) and abs(v) < 2**53:
        return str(int(v))
    return ('%.12f' % v).rstrip('0').rstrip('.')


def series_text(name, labels):
    esc = lambda v: v.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
    inner = ','.join(f'{k}="{esc(v)}"' for k, v in labels)
    return f'{name}{{{inner}}}'


def values(first, last, growing):
    if not growing:
        return f'{number(last)}x{STEPS}'
    step = max(last - first, 0)  # a counter that went back: tbsd restarted between the copies
    return f'{number(last)}+{number(step)}x{STEPS}'


def yaml_str(s):
    return "'" + s.replace("'", "''") + "'"


def phase(dirname):
    s0 = samples(os.path.join(dirname, '0.prom'))
    s1 = samples(os.path.join(dirname, '1.prom'))
    with open(os.path.join(dirname, 'mtimes'), encoding='utf-8') as f:
        m = [float(x) for x in f.read().split()]
    if len(m) != 2:
        raise SystemExit(f'{dirname}/mtimes: two modification times expected')
    lines = [f'  # {os.path.basename(os.path.normpath(dirname))}', '  - interval: 1m', '    input_series:']
    extra = (('instance', 'gw'), ('job', 'node'))
    for (name, labels), (v1, growing) in sorted(s1.items()):
        v0 = s0.get((name, labels), (v1, growing))[0]
        lines.append(f'      - series: {yaml_str(series_text(name, tuple(sorted(labels + extra))))}')
        lines.append(f'        values: {yaml_str(values(v0, v1, growing))}')
    rewritten = m[1] > m[0]
    lines.append(f'      - series: {yaml_str(series_text("node_textfile_mtime_seconds", (("file", TEXTFILE),) + extra))}')
    lines.append(f"        values: '{'0+60' if rewritten else '0'}x{STEPS}'")

    want = {}
    with open(os.path.join(dirname, 'expect'), encoding='utf-8') as f:
        for raw in f:
            words = raw.split('#', 1)[0].split()
            if not words:
                continue
            labels = {'alertname': words[0]}
            for w in words[1:]:
                k, sep, v = w.partition('=')
                if not sep or k not in KEY:
                    raise SystemExit(f'{dirname}/expect: "{w}": LABEL=VALUE with a label of {", ".join(KEY)}')
                labels[k] = v
            key = tuple(sorted(labels.items()))
            want[key] = want.get(key, 0) + 1
    lines += ['    promql_expr_test:',
              f'      - expr: count by (alertname, {", ".join(KEY)}) (ALERTS{{alertstate="firing"}})',
              f'        eval_time: {EVAL}',
              '        exp_samples:' + ('' if want else ' []')]
    for key, n in sorted(want.items()):
        lines.append(f'          - labels: {yaml_str(series_text("", key))}')
        lines.append(f'            value: {n}')
    return lines


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__.split('\n\n')[0])
    rules, out, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    lines = ['# Generated by tests/unit/recorded-alert-tests.py from metrics files',
             '# recorded from tbsd; see there.',
             'rule_files:', f'  - {os.path.realpath(rules)}', '', 'evaluation_interval: 1m', '', 'tests:']
    for d in dirs:
        lines += phase(d)
    with open(out, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
