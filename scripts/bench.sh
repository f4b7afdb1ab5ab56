#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: build the non-debug bench kernel (cached) and the modules
# for it, boot the VM once, run the same perftest matrix over sw_ddp (TCP
# and SCTP), siw and rxe (scripts/guest/bench.sh), and report medians,
# spreads and ratios to siw as a table, a CSV and a PNG plot.
#
# Environment: BENCH_REPS, BENCH_LAT_REPS, BENCH_MIB, BENCH_LAT_ITERS,
# BENCH_PROVIDERS, BENCH_SIZES, BENCH_TOOLS, BENCH_INTEGRITY, BENCH_LOSS
# (see scripts/guest/bench.sh), SW_DDP_RESULTS (default results/bench).
set -euo pipefail

. "$(dirname "$0")/bench-lib.sh"
bench_prepare bench

for v in BENCH_REPS BENCH_LAT_REPS BENCH_MIB BENCH_LAT_ITERS BENCH_PROVIDERS \
	BENCH_SIZES BENCH_TOOLS BENCH_INTEGRITY BENCH_LOSS; do
	[ -n "${!v:-}" ] && echo "$v=\"${!v}\""
done > "$results/vm/bench.conf"

echo "bench: booting the bench VM (TCG; the whole matrix takes a while)"
VM_TIMEOUT=${VM_TIMEOUT:-5400} \
	"$tree/scripts/vm-run.sh" "$kdir" "$results/vm" "$tree/scripts/guest/bench.sh"

"$top/scripts/bench-report.py" "$results/vm/bench.csv" "$results"
