#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Kernel instructions per message from tcg-icount snapshots.

usage: icount-report.py RESULTS_DIR [TOP] [--per-kib]

RESULTS_DIR holds the guest's kallsyms, its 'windows' file (lines
"provider first_snapshot second_snapshot wire_octets") and the plugin's
snap.N files.  For each provider the instructions executed in its window
are attributed to kernel symbols and divided by the TCP segments received
in the window (tcp_v4_rcv calls): one per message in ib_write_lat, where
each message is one segment and no pure ACK is sent.  For bandwidth
tools, where segments and messages differ, --per-kib also gives the
totals, and the symbols, per KiB that crossed the veth.
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
    """Blocks {(vaddr, insns): execs}, and {vcpu: (user, kernel)} totals."""
    blocks = {}
    vcpus = {}
    with open(path) as f:
        for line in f:
            if line.startswith('# vcpu '):
                _, _, cpu, _, user, _, kernel = line.split()
                vcpus[int(cpu)] = (int(user), int(kernel))
            if line.startswith('#'):
                continue
            vaddr, insns, execs = line.split()
            blocks[(int(vaddr, 16), int(insns))] = int(execs)
    return blocks, vcpus


def window(top, first, second, addrs, names):
    a, va = load_snap(os.path.join(top, 'snap.%d' % first))
    b, vb = load_snap(os.path.join(top, 'snap.%d' % second))
    cpus = {c: tuple(x - y for x, y in zip(vb[c], va.get(c, (0, 0))))
            for c in sorted(vb)}
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
    return per_sym, entries, cpus


def group(name):
    if '[' in name:
        return name.split('[')[1].rstrip(']')
    return 'kernel'


def main():
    per_kib = '--per-kib' in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != '--per-kib']
    top = args[0]
    limit = int(args[1]) if len(args) > 1 else 40
    addrs, names = load_syms(os.path.join(top, 'kallsyms'))
    runs = []
    with open(os.path.join(top, 'windows')) as f:
        for line in f:
            f = line.split()
            per_sym, entries, cpus = window(top, int(f[1]), int(f[2]),
                                            addrs, names)
            msgs = entries['tcp_v4_rcv'] or 1
            kib = int(f[3]) / 1024 if per_kib and len(f) > 3 else 0
            runs.append((f[0], per_sym, msgs, kib, cpus))
    for prov, per_sym, msgs, kib, cpus in runs:
        total = sum(per_sym.values())
        print('%s: %d messages (tcp_v4_rcv calls), %d kernel instructions '
              'per message' % (prov, msgs, total // msgs) +
              (', %d per wire KiB' % (total / kib) if kib else ''))
        # a CPU that busy-polls never idles: its total is the round trip
        for cpu, (user, kernel) in cpus.items():
            print('  vCPU %d, all it ran: user %d + kernel %d = %d per '
                  'message' % (cpu, user // msgs, kernel // msgs,
                               (user + kernel) // msgs))
        groups = collections.Counter()
        for name, n in per_sym.items():
            groups[group(name)] += n
        for g, n in groups.most_common():
            print('  %-12s %8d' % (g, n // msgs) +
                  ('  %8d per KiB' % (n / kib) if kib else ''))
    print()
    # per message, or per wire KiB (None: no octets counted, no column)
    unit = [(kib or None) if per_kib else msgs
            for _, _, msgs, kib, _ in runs]
    head = ''.join('%12s' % prov for prov, _, _, _, _ in runs)
    print('%-40s%s   instructions per %s' %
          ('symbol', head, 'wire KiB' if per_kib else 'message'))
    order = collections.Counter()
    for (_, per_sym, _, _, _), u in zip(runs, unit):
        for name, n in per_sym.items():
            if u:
                order[name] = max(order[name], n / u)
    for name, _ in order.most_common(limit):
        cols = ''.join('%12d' % (per_sym[name] / u) if u else '%12s' % '-'
                       for (_, per_sym, _, _, _), u in zip(runs, unit))
        print('%-40s%s' % (name[:40], cols))


if __name__ == '__main__':
    main()
