#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make icount`: exact kernel instruction counts per message, sw_ddp
# against siw, for ib_write_lat (8 bytes).  Boots the bench kernel with
# the tools/tcg-icount QEMU plugin, which counts every kernel translation
# block the guest executes; scripts/guest/icount.sh brackets a window in
# the middle of each provider's run; scripts/icount-report.py attributes
# the window's instructions to symbols and divides by its messages.
#
# Instructions are not time under TCG (memory accesses, helpers and
# device exits cost more), but they are repeatable to the instruction,
# where sampled time swings by 2x between boots.
#
# Environment: ICOUNT_TOOL (default ib_write_lat), ICOUNT_SIZE (message
# size, default 8), ICOUNT_PROVIDERS (default "sw_ddp siw"), ICOUNT_WINDOW
# (seconds, default 8), ICOUNT_TOP (symbols listed, default 60),
# SW_DDP_RESULTS (default results/icount).
#
# Known limit: siw's ib_write_bw at 64 KiB does not finish under the
# plugin.  siw's transmit thread (siw_tx/1) streams without a reschedule
# point, and the bench kernel does not preempt it: at the plugin's speed
# the guest reports RCU stalls on that CPU and the run ends at
# VM_TIMEOUT.  siw's ib_write_lat and sw_ddp's bandwidth runs count fine.
set -euo pipefail

. "$(dirname "$0")/bench-lib.sh"
bench_prepare icount
gcc -O2 -Wall -Werror -shared -fPIC -o "$results/icount.so" \
	"$top/tools/tcg-icount/icount.c" -lpthread

# The window's edges are syncfs(2) calls; nokaslr keeps System.map true.
trigger=$(awk '$3 == "__x64_sys_syncfs" { print $1 }' "$kdir/System.map")
[ -n "$trigger" ] || { echo "icount: no __x64_sys_syncfs in System.map" >&2; exit 1; }

for v in ICOUNT_TOOL ICOUNT_SIZE ICOUNT_PROVIDERS ICOUNT_WINDOW; do
	[ -n "${!v:-}" ] && echo "$v=\"${!v}\""
done > "$results/vm/icount.conf"

echo "icount: booting the bench kernel with the counting plugin"
VM_SMP=2 VM_TIMEOUT=${VM_TIMEOUT:-1500} VM_APPEND=nokaslr \
	VM_QEMU_ARGS="-plugin $results/icount.so,trigger=0x$trigger,out=$results/vm/snap" \
	"$tree/scripts/vm-run.sh" "$kdir" "$results/vm" "$tree/scripts/guest/icount.sh"

case ${ICOUNT_TOOL:-} in
*_bw) per=--per-kib ;;	# bandwidth: per octet, not per segment
*) per= ;;
esac
"$top/scripts/icount-report.py" "$results/vm" "${ICOUNT_TOP:-60}" $per |
	tee "$results/report.txt"
