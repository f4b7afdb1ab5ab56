#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn KUnit KTAP results into one TAP line per test case.

usage: ktap.py FILE...

Each FILE is one suite's KTAP (/sys/kernel/debug/kunit/<suite>/results).
A result line is a leaf (a test case, or one parameter of a parameterised
case) unless the result line before it is indented deeper: KTAP prints a
subtest's children before the subtest's own result.  debugfs prints the
suite's plan (1..N cases) and its own result line whatever happened, so
fewer case results than the plan (cases that never ran or reported) count
as one failure, and so does a failed suite none of whose cases failed (its
init or exit), or a file with no suite result line at all.
"""
import re
import sys

RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)\s*(?:- )?([^#]*?)\s*(?:#\s*(.*))?$')
CASE_DEPTH = 4  # a suite's cases; their parameters are indented deeper
PLAN = re.compile(r'^' + ' ' * CASE_DEPTH + r'1\.\.(\d+)$')


def suite_results(path):
    suite = path.rsplit('/', 1)[-1].removesuffix('.ktap')
    with open(path, errors='replace') as f:
        lines = f.read().splitlines()

    out, names, prev_indent = [], {}, None
    plan, cases, suite_verdict = None, 0, None
    for line in lines:
        line = line.expandtabs(8)
        m = RESULT.match(line)
        if not m:
            sub = re.match(r'^(\s*)# Subtest: (.*)$', line)
            if sub:
                names[len(sub.group(1))] = sub.group(2).strip()
            p = PLAN.match(line)
            if p and plan is None:
                plan = int(p.group(1))
            continue
        indent, verdict, _, name, directive = m.groups()
        depth = len(indent)
        if depth == 0:
            suite_verdict = verdict
        elif depth == CASE_DEPTH:
            cases += 1
        leaf = prev_indent is None or prev_indent <= depth
        prev_indent = depth
        if not leaf or depth == 0:
            continue
        parent = names.get(depth, suite)
        label = (f'{suite}: {name}' if depth <= CASE_DEPTH
                 else f'{suite}: {parent}: {name}')
        skip = directive and directive.upper().startswith('SKIP')
        out.append(('ok' if verdict == 'ok' else 'not ok', label, skip))
    if suite_verdict is None:
        out.append(('not ok', f'{suite}: no suite result (crash?)', False))
    elif plan is not None and cases < plan:
        out.append(('not ok', f'{suite}: {cases} of {plan} cases reported',
                    False))
    elif suite_verdict == 'not ok' and all(v == 'ok' for v, _, _ in out):
        out.append(('not ok', f'{suite}: failed outside its cases', False))
    return out


def main():
    for path in sys.argv[1:]:
        for verdict, label, skip in suite_results(path):
            print(f'{verdict} - kunit: {label}' + (' # SKIP' if skip else ''))


if __name__ == '__main__':
    main()
