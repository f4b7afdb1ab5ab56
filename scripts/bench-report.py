#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`make bench` report: medians and spreads of the guest's runs, ratios to
siw, the issue's targets checked, a summary CSV and a gnuplot PNG.

usage: bench-report.py BENCH_CSV OUT_DIR
"""
import csv
import os
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

BASE = "siw"
ORDER = ["sw_ddp", "sw_ddp_sctp", "siw", "rxe"]


def key_name(tool, size, qps):
    s = {"8": "8", "4096": "4K", "65536": "64K", "1048576": "1M"}.get(size, size)
    return f"{tool} {s}" + (f" -q {qps}" if qps != "1" else "")


def load(path):
    runs = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            runs[(r["provider"], r["tool"], r["size"], r["qps"])].append(r)
    return runs


def result_col(tool):
    """The CSV column that holds a run's result."""
    return "lat_us" if tool.endswith("_lat") else "bw_MiBps"


def summarize(rows):
    lat = rows[0]["tool"].endswith("_lat")
    vals = [float(r[result_col(rows[0]["tool"])]) for r in rows]
    # Who sends the data: the client for Write and Send, the server
    # (Read responder) for Read; latency tools ping-pong.
    read = "_read_" in rows[0]["tool"]
    snd = "server_cycles_per_byte" if read else "client_cycles_per_byte"
    rcv = "client_cycles_per_byte" if read else "server_cycles_per_byte"
    return {
        "lat": lat,
        "median": statistics.median(vals),
        "min": min(vals),
        "max": max(vals),
        "n": len(vals),
        "snd_cpb": statistics.median(float(r[snd]) for r in rows),
        "rcv_cpb": statistics.median(float(r[rcv]) for r in rows),
        # absent from CSVs written before it was measured
        "kern_cpb": statistics.median(float(r["kernel_cycles_per_byte"])
                                      for r in rows)
        if rows[0].get("kernel_cycles_per_byte") else None,
    }


# The targets, as (provider, test, lowest or highest ratio to siw).
TARGETS = [
    ("sw_ddp", ("ib_write_bw", "65536", "1"), ">=", 1.25),
    ("sw_ddp", ("ib_send_bw", "65536", "1"), ">=", 1.25),
    ("sw_ddp", ("ib_read_bw", "65536", "1"), ">=", 1.25),
    ("sw_ddp", ("ib_write_lat", "8", "1"), "<=", 0.9),
    ("sw_ddp", ("ib_read_lat", "8", "1"), "<=", 0.9),
    ("sw_ddp", ("ib_write_bw", "4096", "1"), ">=", 1.0),
    ("sw_ddp", ("ib_read_bw", "4096", "1"), ">=", 1.0),
    ("sw_ddp", ("ib_send_bw", "4096", "1"), ">=", 1.0),
    ("sw_ddp_sctp", ("ib_write_bw", "65536", "1"), ">=", 0.5),
]


def main():
    src, out = sys.argv[1], sys.argv[2]
    runs = load(src)
    summ = {k: summarize(v) for k, v in runs.items()}
    provs = [p for p in ORDER if any(k[0] == p for k in summ)]
    tests = sorted({k[1:] for k in summ},
                   key=lambda t: (t[0].endswith("_lat"), t[0], int(t[1]), t[2]))

    def ratio(p, t):
        a, b = summ.get((p,) + t), summ.get((BASE,) + t)
        return a["median"] / b["median"] if a and b and b["median"] else None

    def paired(p, t):
        """Ratios round by round: each run against siw's of the same
        round, seconds apart (the host's drift falls on both)."""
        metric = result_col(t[0])
        base = {r["rep"]: float(r[metric]) for r in runs.get((BASE,) + t, [])}
        return [float(r[metric]) / base[r["rep"]]
                for r in runs.get((p,) + t, []) if base.get(r["rep"])]

    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["provider", "tool", "size", "qps", "unit", "median", "min",
                    "max", "runs", "ratio_to_siw", "sender_cycles_per_byte",
                    "receiver_cycles_per_byte", "kernel_cycles_per_byte"])
        for t in tests:
            for p in provs:
                s = summ.get((p,) + t)
                if not s:
                    continue
                r = ratio(p, t)
                w.writerow([p, *t, "us" if s["lat"] else "MiB/s",
                            f"{s['median']:.2f}", f"{s['min']:.2f}",
                            f"{s['max']:.2f}", s["n"],
                            f"{r:.3f}" if r else "", f"{s['snd_cpb']:.2f}",
                            f"{s['rcv_cpb']:.2f}",
                            f"{s['kern_cpb']:.2f}" if s["kern_cpb"] else ""])

    print()
    hdr = f"{'test':<22}" + "".join(f"{p:>26}" for p in provs)
    print(hdr)
    print("-" * len(hdr))
    for t in tests:
        line = f"{key_name(*t):<22}"
        for p in provs:
            s = summ.get((p,) + t)
            if not s:
                line += f"{'-':>26}"
                continue
            unit = "us" if s["lat"] else "MiB/s"
            r = ratio(p, t)
            cell = f"{s['median']:.1f}{unit} ±{(s['max'] - s['min']) / 2:.1f}"
            cell += f" ({r:.2f}x)" if r and p != BASE else ""
            line += f"{cell:>26}"
        print(line)
    print()
    # Busy time restates the throughput (perftest polls: its CPUs are
    # always busy); kernel time is the work done per octet.
    print("CPU in the kernel, both CPUs, median cycles per wire octet "
          "(ratio to siw):")
    for t in tests:
        if t[0].endswith("_lat"):
            continue
        line = f"{key_name(*t):<22}"
        base = summ.get((BASE,) + t)
        for p in provs:
            s = summ.get((p,) + t)
            cell = f"{s['kern_cpb']:.1f}" if s and s["kern_cpb"] else "-"
            if s and s["kern_cpb"] and base and base["kern_cpb"] and p != BASE:
                cell += f" ({s['kern_cpb'] / base['kern_cpb']:.2f}x)"
            line += f"{cell:>26}"
        print(line)
    print()
    print("Targets (issue 7), ratio to siw in this run:")
    for p, t, op, goal in TARGETS:
        r = ratio(p, t)
        if r is None:
            verdict = "not measured"
        else:
            ok = r >= goal if op == ">=" else r <= goal
            verdict = f"{r:.2f}x  {'met' if ok else 'NOT met':<8}"
            pr = paired(p, t)
            if len(pr) > 1:
                verdict += (f"  rounds {min(pr):.2f}x to {max(pr):.2f}x,"
                            f" median {statistics.median(pr):.2f}x")
        print(f"  {p:<12} {key_name(*t):<20} {op} {goal:<5} {verdict}")
    print("  (met or not: the ratio of the medians; rounds: each run against"
          " siw's of the same round)")

    integrity(os.path.join(os.path.dirname(src), "integrity.csv"))
    plot(out, provs, tests, ratio)
    print(f"\nCSV: {src}, {os.path.join(out, 'summary.csv')}")


def integrity(path):
    """What the numbers were bought with: tools/rdma_integrity under loss."""
    if not os.path.exists(path):
        return
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    print()
    print(f"Data integrity with {rows[0]['loss_pct']}% packet loss "
          "(tools/rdma_integrity, every byte checked):")
    for r in rows:
        line = f"  {r['provider']:<12} {r['result']:<7}" \
               f" {r['retransmits']:>5} retransmitted"
        if r["result"] != "ok" and r.get("detail"):
            line += f"  ({r['detail']})"
        print(line)


def plot(out, provs, tests, ratio):
    others = [p for p in provs if p != BASE]
    if not shutil.which("gnuplot") or not others or BASE not in provs:
        print(f"(no plot: gnuplot missing, or no {BASE} to compare with)")
        return
    dat = os.path.join(out, "ratios.dat")
    with open(dat, "w") as f:
        for t in tests:
            vals = [ratio(p, t) for p in others]
            f.write('"' + key_name(*t) + '" ' +
                    " ".join(f"{v:.3f}" if v else "NaN" for v in vals) + "\n")
    png = os.path.join(out, "bench.png")
    cols = " , ".join(f"'{dat}' using {i + 2}:xtic(1) title '{p}'"
                      for i, p in enumerate(others))
    script = f"""
set terminal pngcairo size 1200,600 noenhanced
set output '{png}'
set title 'Ratio to siw (same VM run; bandwidth: higher is better, latency: lower is better)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set xtics rotate by -40
set grid ytics
set yrange [0:*]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2
plot {cols}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"Plot: {png}")


if __name__ == "__main__":
    main()
