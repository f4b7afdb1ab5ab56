#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn KUnit KTAP results into one TAP line per test case.

usage: ktap.py FILE...

Each FILE is one suite's KTAP (/sys/kernel/debug/kunit/<suite>/results).
A result line is a leaf (a test case, or one parameter of a parameterised
case) unless the result line before it is indented deeper: KTAP prints a
subtest's children before the subtest's own result.  A suite whose own
result line is missing (a crash mid-suite) counts as one failure.
"""
import re
import sys

RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)\s*(?:- )?([^#]*?)\s*(?:#\s*(.*))?$')


def suite_results(path):
    suite = path.rsplit('/', 1)[-1].removesuffix('.ktap')
    with open(path, errors='replace') as f:
        lines = f.read().splitlines()

    out, names, prev_indent, finished = [], {}, None, False
    for line in lines:
        m = RESULT.match(line.expandtabs(8))
        if not m:
            sub = re.match(r'^(\s*)# Subtest: (.*)$', line.expandtabs(8))
            if sub:
                names[len(sub.group(1))] = sub.group(2).strip()
            continue
        indent, verdict, _, name, directive = m.groups()
        depth = len(indent)
        if depth == 0:
            finished = True
        leaf = prev_indent is None or prev_indent <= depth
        prev_indent = depth
        if not leaf or depth == 0:
            continue
        parent = names.get(depth, suite)
        label = f'{suite}: {name}' if depth <= 4 else f'{suite}: {parent}: {name}'
        skip = directive and directive.upper().startswith('SKIP')
        out.append(('ok' if verdict == 'ok' else 'not ok', label, skip))
    if not finished:
        out.append(('not ok', f'{suite}: suite did not finish (crash?)', False))
    return out


def main():
    for path in sys.argv[1:]:
        for verdict, label, skip in suite_results(path):
            print(f'{verdict} - kunit: {label}' + (' # SKIP' if skip else ''))


if __name__ == '__main__':
    main()
