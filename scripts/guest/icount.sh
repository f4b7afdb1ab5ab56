#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make icount`, the guest side (scripts/icount.sh): ib_write_lat (8
# bytes) over sw_ddp and over siw, or what ICOUNT_TOOL, ICOUNT_SIZE and
# ICOUNT_PROVIDERS say, each counted for a window in the middle of a long
# run.  The window's edges are syncfs(2) calls (sync -f), at each of
# which the plugin (tools/tcg-icount) writes its counts out; the octets
# that crossed the veth in the window go with them.
results=$1
. "$SW_DDP_TOP/scripts/guest/lib.sh"
[ -f "$results/icount.conf" ] && . "$results/icount.conf"

tool=${ICOUNT_TOOL:-ib_write_lat}
size=${ICOUNT_SIZE:-8}
providers=${ICOUNT_PROVIDERS:-sw_ddp siw}
window=${ICOUNT_WINDOW:-8}

insmod "$SW_DDP_KO"
insmod "$SIW_KO"
netns_up
echo 0 > /proc/sys/kernel/kptr_restrict
cat /proc/kallsyms > "$results/kallsyms"

snap=0
for prov in $providers; do
	in_h1 rdma link add b1 type "$prov" netdev va
	in_h2 rdma link add b2 type "$prov" netdev vb
	in_h1 taskset -c 1 $tool -R -F -d b1 -s "$size" -n 100000000 \
		> "$results/srv-$prov.log" 2>&1 &
	sleep 2
	in_h2 taskset -c 0 $tool -R -F -d b2 -s "$size" -n 100000000 192.0.2.1 \
		> "$results/cli-$prov.log" 2>&1 &
	sleep 6
	sync -f /
	w0=$(wire_bytes)
	sleep "$window"
	sync -f /
	w1=$(wire_bytes)
	echo "$prov $snap $((snap + 1)) $((w1 - w0))" >> "$results/windows"
	snap=$((snap + 2))
	pkill -x "$tool"
	wait
	in_h1 rdma link del b1
	in_h2 rdma link del b2
done
netns_down
