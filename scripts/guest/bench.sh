#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`, guest side: the same perftest runs over every provider that
# works in this VM (sw_ddp over TCP, sw_ddp over SCTP, siw, rxe), same two
# namespaces, same options.  One CSV line per run goes to
# $results/bench.csv; scripts/bench-report.py makes the table and plot.
#
# CPU cost: the server is pinned to CPU 1 and the client to CPU 0, and
# each run's busy time (user, system, irq, softirq in /proc/stat) per CPU
# is divided by the octets that crossed the veth.  Kernel work that runs
# elsewhere (workqueues, the peer's softirq) is counted where it ran: the
# two columns split the cost, their sum is the whole.
results=$1
. "$(dirname "$0")/lib.sh"

# What to run; the host may override in $results/bench.conf.
BENCH_REPS=3
BENCH_LAT_REPS=9	# latency runs: seconds each, and the noisiest
BENCH_MIB=1024		# per bandwidth run, 1000 to 20000 messages
BENCH_PROVIDERS="sw_ddp sw_ddp_sctp siw rxe"
BENCH_SIZES="4096 65536 1048576"
BENCH_LAT_ITERS=5000	# round trips per latency run
BENCH_TOOLS="ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat"
BENCH_INTEGRITY=1	# and rdma_integrity under packet loss, per provider
BENCH_LOSS=5		# percent of the packets dropped each way for it
[ -f "$results/bench.conf" ] && . "$results/bench.conf"

csv=$results/bench.csv
echo "provider,tool,size,qps,rep,bw_MiBps,lat_us,client_cycles_per_byte,server_cycles_per_byte,wire_bytes,kernel_cycles_per_byte" > "$csv"

# Server on CPU 1, client on CPU 0 (both on 0 in a one-CPU guest).
srv_cpu=$(($(nproc) > 1 ? 1 : 0))
mhz=$(awk -F: '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
hz=$(getconf CLK_TCK)

# busy jiffies of CPU $1
cpu_busy() {
	awk -v c="cpu$1" '$1 == c { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# jiffies in the kernel (system, irq, softirq), all CPUs: the providers'
# work and TCP's.  User time is perftest, and it busy-polls: its CPU is
# always busy, so busy time per octet only restates the throughput.
cpu_kernel() {
	awk '$1 == "cpu" { print $4 + $7 + $8 }' /proc/stat
}

# The devices for provider $1 on va (h1) and vb (h2): named b1 and b2.
devs_up() {
	case $1 in
	sw_ddp | sw_ddp_sctp)
		in_h1 rdma link add b1 type "$1" netdev va &&
			in_h2 rdma link add b2 type "$1" netdev vb ;;
	siw | rxe)
		in_h1 rdma link add b1 type "$1" netdev va &&
			in_h2 rdma link add b2 type "$1" netdev vb ;;
	esac
}

devs_down() {
	in_h1 rdma link del b1 2>/dev/null
	in_h2 rdma link del b2 2>/dev/null
	true
}

bw_iters() {
	local n=$((BENCH_MIB * 1048576 / $1))
	[ $n -lt 1000 ] && n=1000
	[ $n -gt 20000 ] && n=20000
	echo $n
}

# run PROVIDER TOOL SIZE QPS REP: one perftest run, one CSV line.
run() {
	local prov=$1 tool=$2 size=$3 qps=$4 rep=$5 opts out c0 c1 kn w0 w1 bw="" lat=""
	# Iterations, not -D: perftest's duration mode reports 0.00 under TCG
	# (its timestamp-frequency estimate fails), its iteration mode works.
	case $tool in
	*_lat) opts="-s $size -n $BENCH_LAT_ITERS" ;;
	*) opts="-s $size -q $qps -n $(bw_iters "$size")" ;;
	esac
	ip netns exec h1 taskset -c $srv_cpu timeout 120 "$tool" -R -F -d b1 $opts \
		> "$TMPDIR/srv.log" 2>&1 &
	local srv=$!
	sleep 1
	c0=$(cpu_busy 0) c1=$(cpu_busy $srv_cpu) kn=$(cpu_kernel) w0=$(wire_bytes)
	ip netns exec h2 taskset -c 0 timeout 120 "$tool" -R -F -d b2 $opts \
		192.0.2.1 > "$TMPDIR/cli.log" 2>&1
	wait $srv
	c0=$(($(cpu_busy 0) - c0)) c1=$(($(cpu_busy $srv_cpu) - c1))
	kn=$(($(cpu_kernel) - kn))
	w1=$(($(wire_bytes) - w0))
	out=$(cat "$TMPDIR/cli.log")
	echo "=== $prov $tool $size q$qps #$rep"
	cat "$TMPDIR/cli.log"
	# The numbers line follows perftest's header line (#bytes ...).
	case $tool in
	*_lat) lat=$(echo "$out" | awk '/t_typical/ { getline; print $5; exit }') ;;
	*) bw=$(echo "$out" | awk '/BW average/ { getline; print $4; exit }') ;;
	esac
	case "$bw$lat" in
	[0-9]*) ;;
	*) echo "  (no result: run failed)"; cat "$TMPDIR/srv.log"; return ;;
	esac
	awk -v p="$prov" -v t="$tool" -v s="$size" -v q="$qps" -v r="$rep" \
		-v bw="$bw" -v lat="$lat" -v c0="$c0" -v c1="$c1" -v kn="$kn" -v w="$w1" \
		-v mhz="$mhz" -v hz="$hz" 'BEGIN {
			k = mhz * 1e6 / hz / (w > 0 ? w : 1)
			printf "%s,%s,%s,%s,%s,%s,%s,%.3f,%.3f,%d,%.3f\n",
				p, t, s, q, r, bw, lat, c0 * k, c1 * k, w, kn * k
		}' >> "$csv"
}

# The matrix, one test per line: TOOL SIZE QPS
tests() {
	local tool size
	for tool in $BENCH_TOOLS; do
		case $tool in
		*_lat) echo "$tool 8 1" ;;
		*) for size in $BENCH_SIZES; do echo "$tool $size 1"; done ;;
		esac
	done
	case " $BENCH_TOOLS " in
	*" ib_write_bw "*) echo "ib_write_bw 65536 4" ;;
	esac
}

# rotate N WORDS...: the words after the first N (modulo their count),
# then those N
rotate() {
	local n=$1 && shift
	[ $# -gt 0 ] || return 0
	n=$((n % $#))
	echo "${@:n+1}" "${@:1:n}"
}

# One test over every provider, back to back: devices up, one run, down.
# A provider that cannot start here is left out for good.
run_test() {
	local tool=$1 size=$2 qps=$3 rep=$4 prov
	for prov in $(rotate $((rep - 1)) $providers); do
		if ! devs_up "$prov"; then
			echo "bench: $prov does not run here"
			devs_down
			providers=$(echo " $providers " | sed "s/ $prov / /")
			continue
		fi
		run "$prov" "$tool" "$size" "$qps" "$rep"
		devs_down
	done
}

# integrity_under_loss PROVIDER: tools/rdma_integrity between b1 and b2
# with BENCH_LOSS% of the packets dropped each way, one CSV line: did
# every byte arrive as it left, and how many segments or chunks were sent
# again.  A provider that sends a buffer by reference after it told the
# consumer the buffer may be reused fails when a retransmission reads the
# reused buffer.  Over veth the ACKs come back within the sender's own
# transmit, so most losses are repaired at once; only a loss among the
# last segments before a completion shows, hence the heavy loss.
integrity_under_loss() {
	local prov=$1 before rc=0 detail
	before=$(retransmits)
	veth_loss "$BENCH_LOSS"
	SERVE_TIMEOUT=300 integrity_pair 192.0.2.1 20 \
		> "$TMPDIR/integrity.log" 2>&1 || rc=1
	veth_loss 0
	echo "=== $prov rdma_integrity, $BENCH_LOSS% loss"
	cat "$TMPDIR/integrity.log"
	# what went wrong, for the report: a wrong byte's line, or the first
	# failure
	detail=$({ grep -m1 -E '^integrity: round [0-9]+: .*(wrong from|overwritten)' \
		"$TMPDIR/integrity.log" ||
		grep -m1 -E 'FAILED|no progress' "$TMPDIR/integrity.log"; } |
		sed 's/^integrity: //' | tr -d ',"' | cut -c1-140)
	echo "$prov,$BENCH_LOSS,$([ $rc -eq 0 ] && echo ok || echo FAILED),$(($(retransmits) - before)),$detail" \
		>> "$results/integrity.csv"
}

insmod "$SW_DDP_KO"
insmod "$SIW_KO"
kmods_load rdma_rxe || echo "bench: rdma_rxe did not load"
netns_up
# Rounds, and in each round every test over every provider back to back
# (in an order that rotates from round to round), not one provider after
# the other: the emulator's speed drifts with the host's load, and the
# providers compared in a test are seconds apart, not minutes.
providers=$BENCH_PROVIDERS
rounds=$((BENCH_LAT_REPS > BENCH_REPS ? BENCH_LAT_REPS : BENCH_REPS))
for rep in $(seq "$rounds"); do
	while read -r tool size qps <&3; do
		case $tool in
		*_lat) [ "$rep" -le "$BENCH_LAT_REPS" ] || continue ;;
		*) [ "$rep" -le "$BENCH_REPS" ] || continue ;;
		esac
		run_test "$tool" "$size" "$qps" "$rep"
	done 3<<<"$(tests)"
done
# Correctness, once per provider that ran: what its numbers were bought
# with (Documentation/performance.rst, "Writes by reference").
echo "provider,loss_pct,result,retransmits,detail" > "$results/integrity.csv"
for prov in $providers; do
	[ "$BENCH_INTEGRITY" = 1 ] || break
	devs_up "$prov" && integrity_under_loss "$prov"
	devs_down
done
netns_down
echo "bench: done"
