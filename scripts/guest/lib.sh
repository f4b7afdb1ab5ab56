# SPDX-License-Identifier: GPL-2.0
# Helpers for guest test scripts: TAP output, the two-host topology and
# module paths.  Sourced, not run.

top=$SW_DDP_TOP
kdir=$SW_DDP_KDIR
SW_DDP_KO=$top/drivers/sw_ddp/sw_ddp.ko
SW_DDP_KUNIT_KO=$top/kunit/sw_ddp_kunit.ko
SW_DDP_KUNIT_SIW_KO=$top/kunit/sw_ddp_kunit_siw.ko
SIW_KO=$kdir/drivers/infiniband/sw/siw/siw.ko

# Modules of the kernel under test, by name as /proc/modules has it.
# kmod_path NAME: its .ko in the build tree (from modules.order).
kmod_path() {
	local o
	o=$(grep -E "/(${1}|${1//_/-})\.o\$" "$kdir/modules.order") || return 1
	echo "$kdir/${o%.o}.ko"
}

# kmod_order NAME...: those modules and what they depend on (modinfo),
# dependencies first, each once, where it first appears.
kmod_order() {
	local list
	list=$(kmod_deps "$@") || return 1
	echo "$list" | awk '!seen[$0]++'
}

kmod_deps() {
	local m ko dep
	for m in "$@"; do
		ko=$(kmod_path "$m") || { echo "no module $m" >&2; return 1; }
		for dep in $(modinfo -F depends "$ko" | tr , ' '); do
			kmod_deps "${dep//-/_}" || return 1
		done
		echo "$m"
	done
}

kmod_loaded() { grep -q "^$1 " /proc/modules; }

# kmods_load NAME...: load them with their dependencies, skipping any
# already loaded; kmods_unload NAME...: unload the same set, in reverse.
kmods_load() {
	local list m
	list=$(kmod_order "$@") || return 1
	for m in $list; do
		kmod_loaded "$m" || insmod "$(kmod_path "$m")" || return 1
	done
}

kmods_unload() {
	local list m
	list=$(kmod_order "$@") || return 1
	for m in $(echo "$list" | tac); do
		if kmod_loaded "$m"; then rmmod "$m" || return 1; fi
	done
}

tap=$results/e2e.tap
: > "$tap"

# t NAME CMD...: run one check; its output goes to the log, its verdict to TAP.
t() {
	local name=$1 out
	shift
	echo "=== $name"
	if out=$("$@" 2>&1); then
		echo "ok - $name" >> "$tap"
		echo "$out"
		echo "--- ok"
	else
		echo "not ok - $name" >> "$tap"
		echo "$out"
		echo "--- FAILED"
	fi
}

# fails CMD...: succeed only if CMD fails.
fails() { ! "$@"; }

# ended PID: that process has exited (for retry, which polls it).
ended() { ! kill -0 "$1" 2> /dev/null; }

# retry SECONDS CMD...: poll CMD until it succeeds or time runs out.
retry() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.2
	done
}

# Two hosts, h1 (192.0.2.1 on va) and h2 (192.0.2.2 on vb), joined by veth.
# The two ends get different interface indexes, as on two real hosts: siw
# opens a wildcard listener's socket in the caller's namespace but bound to
# its own netdev's index, so with equal indexes siw, on h2's vb, would take
# the port on h1's va that sw_ddp's listener there needs (and vice versa).
netns_up() {
	ip netns add h1
	ip netns add h2
	ip link add va index 11 netns h1 type veth peer name vb index 12 netns h2
	ip -n h1 addr add 192.0.2.1/24 dev va
	ip -n h2 addr add 192.0.2.2/24 dev vb
	ip -n h1 -6 addr add 2001:db8::1/64 dev va nodad
	ip -n h2 -6 addr add 2001:db8::2/64 dev vb nodad
	ip -n h1 link set va mtu 65000 up
	ip -n h2 link set vb mtu 65000 up
	ip -n h1 link set lo up
	ip -n h2 link set lo up
}

netns_down() {
	ip netns del h1 2>/dev/null
	ip netns del h2 2>/dev/null
	true
}

# cpus_others_online 0|1: take every CPU but the first offline for a
# stretch of tests, or bring them back.
cpus_others_online() {
	local c
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -f "$c" ] && echo "$1" > "$c"
	done
	true
}

in_h1() { ip netns exec h1 "$@"; }
in_h2() { ip netns exec h2 "$@"; }

# octets through h1's va, both directions (small programs only: make
# icount counts what runs in its window)
wire_bytes() {
	ip -n h1 -s link show va |
		awk '/RX:/ { getline; rx = $1 } /TX:/ { getline; tx = $1 }
		     END { printf "%.0f\n", rx + tx }'
}

# veth_loss PERCENT: drop that share of the packets leaving each end of
# the veth (tc netem), so that TCP and SCTP must send again what was lost;
# 0 takes the loss away.
veth_loss() {
	if [ "$1" = 0 ]; then
		in_h1 tc qdisc del dev va root 2>/dev/null
		in_h2 tc qdisc del dev vb root 2>/dev/null
		return 0
	fi
	in_h1 tc qdisc replace dev va root netem loss "$1%" &&
		in_h2 tc qdisc replace dev vb root netem loss "$1%"
}

# retransmits: TCP segments and SCTP chunks sent again so far, both hosts.
retransmits() {
	local ns
	for ns in h1 h2; do
		ip netns exec $ns cat /proc/net/snmp /proc/net/sctp/snmp 2>/dev/null
	done | awk '
		/^Tcp: RtoAlgorithm/ {
			for (i = 2; i <= NF; i++)
				if ($i == "RetransSegs")
					c = i
			next
		}
		/^Tcp:/ { n += $c }
		/^Sctp(T3|Fast)Retransmits/ { n += $2 }
		END { print n + 0 }'
}

# rping_client SECONDS COUNT ARGS...: an rping client on h2, COUNT pings
# with -v.  It passes if rping exits 0, or if all COUNT pings came back
# and the only complaint is rping's own exit race: in rdmacm-utils 44
# (Debian 12) main closes the CM event channel after the last event while
# the event thread may already be on its way back to read it, which then
# fails ("rdma_get_cm_event: Bad file descriptor") and exits 255.  Fixed
# upstream in 2025 (rdma-core pull request 1622).  QUIET=1 shows rping's
# output only when it failed.
rping_client() {
	local secs=$1 count=$2 log=$TMPDIR/rping-client.log rc=0 rest
	shift 2
	ip netns exec h2 timeout "$secs" rping -c -v -C "$count" "$@" \
		> "$log" 2>&1 || rc=$?
	[ "${QUIET:-0}" = 1 ] && [ $rc -eq 0 ] || cat "$log"
	[ $rc -eq 0 ] && return 0
	rest=$(grep -v -e '^ping data: ' -e '^client DISCONNECT EVENT' "$log")
	[ $rc -eq 255 ] &&
		[ "$(grep -c '^ping data: ' "$log")" -eq "$count" ] &&
		[ "$rest" = "rdma_get_cm_event: Bad file descriptor" ] || return 1
	echo "all $count pings done; rping's exit race (see rping_client)"
}

# serve NETNS CMD...: a server in the background; its PID in $server.
# It is killed after $SERVE_TIMEOUT seconds (120 unless set).
serve() {
	local ns=$1
	shift
	ip netns exec "$ns" timeout "${SERVE_TIMEOUT:-120}" "$@" \
		> "$TMPDIR/server.log" 2>&1 &
	server=$!
	sleep 1
}

# Wait for the server and show what it said.
served() {
	local rc=0
	wait "$server" || rc=$?
	cat "$TMPDIR/server.log"
	return $rc
}

# integrity_pair SERVER_ADDR [ROUNDS]: tools/rdma_integrity, server on
# h1, client on h2: 20 rounds unless told, each 2.2 MB of Writes, read
# back, and 200 KB of Sends, every byte checked (20 to 45 s on the debug
# kernel under TCG).
integrity_pair() {
	serve h1 "$top/tools/bin/rdma_integrity" -s "$1" 7472
	ip netns exec h2 timeout "${SERVE_TIMEOUT:-120}" \
		"$top/tools/bin/rdma_integrity" -c "$1" 7472 -n "${2:-20}" ||
		{ kill "$server"; served; return 1; }
	served
}

# A kernel-log marker, so a test can look only at what it caused.
klog_mark() { echo "sw_ddp-test: $*" > /dev/kmsg; }

# klog_since MARK: what the kernel logged after klog_mark MARK.
klog_since() { dmesg | sed -n "/sw_ddp-test: $1\$/,\$p" | tail -n +2; }

# kunit_load DIR [PARAM=VALUE...]: load sw_ddp and its KUnit module
# (with those parameters; the suites kunit.filter_glob lets through run
# as it loads), copy each suite's KTAP into DIR, unload both.
kunit_load() {
	local dir=$1 d
	shift
	mkdir -p "$dir"
	insmod "$SW_DDP_KO" || return 1
	insmod "$SW_DDP_KUNIT_KO" "$@" || return 1
	for d in /sys/kernel/debug/kunit/sw_ddp_*/; do
		cp "$d/results" "$dir/$(basename "$d").ktap" || return 1
	done
	ls "$dir"/*.ktap && rmmod sw_ddp_kunit && rmmod sw_ddp
}

kmemleak_clear() {
	[ -w /sys/kernel/debug/kmemleak ] || return 0
	echo scan > /sys/kernel/debug/kmemleak
	echo clear > /sys/kernel/debug/kmemleak
}

# kmemleak_none: no leak reported since the last kmemleak_clear.
kmemleak_none() {
	local f=/sys/kernel/debug/kmemleak
	[ -w $f ] || { echo "kmemleak not available"; return 1; }
	echo scan > $f
	sleep 1
	echo scan > $f
	! grep -q . $f || { cat $f; return 1; }
}
