#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: build the non-debug bench kernel (cached) and the modules
# for it, boot the VM once, run the same perftest matrix over sw_ddp (TCP
# and SCTP), siw and rxe (scripts/guest/bench.sh), and report medians,
# spreads and ratios to siw as a table, a CSV and a PNG plot.
#
# Environment: BENCH_REPS, BENCH_MIB, BENCH_PROVIDERS, BENCH_SIZES,
# BENCH_TOOLS (see scripts/guest/bench.sh), SW_DDP_RESULTS (default
# results/bench).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
results=${SW_DDP_RESULTS:-$top/results/bench}
rm -rf "$results"
mkdir -p "$results/vm"

"$top/scripts/install-deps.sh" bench
kdir=$("$top/scripts/build-kernel.sh" bench)

# The modules are built for the bench kernel in a copy of the tree, so the
# tree's own build (for the debug kernel) is left alone.  The VM finds the
# modules next to the vm-run.sh it was started from.
tree=$results/tree
mkdir -p "$tree"
tar -C "$top" --exclude=./results --exclude=./.git -cf - . | tar -C "$tree" -xf -
make -C "$tree" KDIR="$kdir" clean >/dev/null
make -C "$tree" KDIR="$kdir" -j"$(nproc)" > "$results/build.log" 2>&1 ||
	{ tail -20 "$results/build.log"; exit 1; }

for v in BENCH_REPS BENCH_MIB BENCH_PROVIDERS BENCH_SIZES BENCH_TOOLS; do
	[ -n "${!v:-}" ] && echo "$v=\"${!v}\""
done > "$results/vm/bench.conf"

echo "bench: booting the bench VM (TCG; the whole matrix takes a while)"
VM_TIMEOUT=${VM_TIMEOUT:-5400} \
	"$tree/scripts/vm-run.sh" "$kdir" "$results/vm" "$tree/scripts/guest/bench.sh"

"$top/scripts/bench-report.py" "$results/vm/bench.csv" "$results"
