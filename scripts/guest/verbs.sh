# SPDX-License-Identifier: GPL-2.0
#
# End-to-end checks of the verbs that need no connection, through stock
# libibverbs and libsiw (tools/verbs_smoke.c).  Sourced by check.sh.

SMOKE=$top/tools/bin/verbs_smoke

# No PD, CQ, QP, MR, SRQ or user context left on the device.
res_zero() {
	rdma res show "$1" | tee /dev/stderr |
		grep -oE '(pd|cq|qp|mr|ctx|srq) [0-9]+' | grep -qv ' 0$' && return 1
	return 0
}

# hold_start: tools/verbs_smoke --hold on h1's d1 in the background (its
# PID in $holder), a process that keeps a context, PD, MR, CQs, SRQ and
# QPs on the device and will not let go until told the device is gone.
hold_start() {
	ip netns exec h1 "$SMOKE" d1 --hold > "$TMPDIR/hold.log" 2>&1 &
	holder=$!
	retry 60 grep -q '^# holding' "$TMPDIR/hold.log" ||
		{ cat "$TMPDIR/hold.log"; return 1; }
}

# hold_end: the holder heard of its device's removal and exited cleanly.
hold_end() {
	local rc=0
	retry 30 ended $holder ||
		{ echo "verbs_smoke --hold still holding"; kill -9 $holder; }
	wait $holder || rc=1
	cat "$TMPDIR/hold.log"
	grep -q '^not ok' "$TMPDIR/hold.log" && rc=1
	return $rc
}

# Run verbs_smoke; each of its TAP lines becomes one of ours.
smoke_tap() {
	local out rc=0
	out=$("$SMOKE" "$@" 2>&1) || rc=$?
	echo "$out" | sed -n 's/^\(\(not \)\{0,1\}ok\) - /\1 - verbs: /p' >> "$tap"
	echo "$out"
	return $rc
}

# The vmalloc octets charged to memory cgroup $1.
cg_vmalloc() {
	awk '$1 == "vmalloc" { print $2 }' "$1/memory.stat"
}

# Queue rings are charged to the memory cgroup of the task that creates
# them (drivers/sw_ddp/umap.c): verbs_smoke --cqs holds 16 CQs of 64 Ki
# CQEs of 32 octets, 32 MiB of rings, in a cgroup of its own.  Their
# charge shows in its memory.stat while held, and goes once the process
# is killed and the kernel has freed them.
rings_charged() {
	local root=/sys/fs/cgroup cg=/sys/fs/cgroup/sw_ddp_rings
	local log=$TMPDIR/cqs.log pid before held rc=0

	mountpoint -q $root || mount -t cgroup2 none $root || return 1
	echo +memory > $root/cgroup.subtree_control || return 1
	mkdir -p $cg || return 1
	before=$(cg_vmalloc $cg)
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" d1 --cqs 16' \
		sh $cg "$SMOKE" > "$log" 2>&1 &
	pid=$!
	if retry 60 grep -q '^# holding' "$log"; then
		held=$(cg_vmalloc $cg)
		echo "vmalloc charged: $before before, $held holding"
		[ $((held - before)) -ge $((16 * 65536 * 32)) ] || rc=1
	else
		rc=1
	fi
	kill $pid
	wait $pid
	cat "$log"
	retry 10 test "$(cg_vmalloc $cg)" -le "$before" ||
		{ echo "still charged: $(cg_vmalloc $cg)"; rc=1; }
	rmdir $cg || rc=1
	return $rc
}

verbs_tests() {
	insmod "$SW_DDP_KO"
	netns_up
	in_h1 rdma link add d1 type sw_ddp netdev va

	t "ibv_devinfo -v" ibv_devinfo -v -d d1
	t "verbs_smoke runs to the end" smoke_tap d1
	t "  and leaves no resources behind" res_zero d1
	t "verbs_smoke exits holding everything" "$SMOKE" d1 --leave
	t "  and the kernel frees it all" retry 5 res_zero d1
	t "queue rings are charged to the creator's memory cgroup" \
		rings_charged

	netns_down
	rmmod sw_ddp
}
