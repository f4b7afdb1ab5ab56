#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Kernel instructions per message from tcg-icount snapshots.

usage: icount-report.py RESULTS_DIR [TOP]

RESULTS_DIR holds the guest's kallsyms, its 'windows' file (lines
"provider first_snapshot second_snapshot") and the plugin's
snap.N files.  For each provider the instructions executed in its window
are attributed to kernel symbols and divided by the TCP segments received
in the window (tcp_v4_rcv calls): one per message in ib_write_lat, where
each message is one segment and no pure ACK is sent.
"""
import bisect
import collections
import os
import sys


def load_syms(path):
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1] not in 'tT':
                continue
            name = parts[2]
            if len(parts) > 3:
                name += ' ' + parts[3]
            syms.append((int(parts[0], 16), name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def load_snap(path):
    blocks = {}
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                continue
            vaddr, insns, execs = line.split()
            blocks[(int(vaddr, 16), int(insns))] = int(execs)
    return blocks


def window(top, first, second, addrs, names):
    a = load_snap(os.path.join(top, 'snap.%d' % first))
    b = load_snap(os.path.join(top, 'snap.%d' % second))
    per_sym = collections.Counter()
    entries = collections.Counter()
    for (vaddr, insns), execs in b.items():
        n = execs - a.get((vaddr, insns), 0)
        if n <= 0:
            continue
        i = bisect.bisect_right(addrs, vaddr) - 1
        name = names[i] if i >= 0 else '?'
        per_sym[name] += n * insns
        if i >= 0 and addrs[i] == vaddr:
            entries[name] += n
    return per_sym, entries


def group(name):
    if '[' in name:
        return name.split('[')[1].rstrip(']')
    return 'kernel'


def main():
    top = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    addrs, names = load_syms(os.path.join(top, 'kallsyms'))
    runs = []
    with open(os.path.join(top, 'windows')) as f:
        for line in f:
            prov, first, second = line.split()[:3]
            per_sym, entries = window(top, int(first), int(second),
                                      addrs, names)
            msgs = entries['tcp_v4_rcv'] or 1
            runs.append((prov, per_sym, msgs))
    for prov, per_sym, msgs in runs:
        total = sum(per_sym.values())
        print('%s: %d messages (tcp_v4_rcv calls), %d kernel instructions '
              'per message' % (prov, msgs, total // msgs))
        groups = collections.Counter()
        for name, n in per_sym.items():
            groups[group(name)] += n
        for g, n in groups.most_common():
            print('  %-12s %8d' % (g, n // msgs))
    print()
    head = ''.join('%12s' % prov for prov, _, _ in runs)
    print('%-40s%s   instructions per message' % ('symbol', head))
    order = collections.Counter()
    for _, per_sym, msgs in runs:
        for name, n in per_sym.items():
            order[name] = max(order[name], n / msgs)
    for name, _ in order.most_common(limit):
        cols = ''.join('%12d' % (per_sym[name] // msgs)
                       for _, per_sym, msgs in runs)
        print('%-40s%s' % (name[:40], cols))


if __name__ == '__main__':
    main()
