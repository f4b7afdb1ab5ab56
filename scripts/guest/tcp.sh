# SPDX-License-Identifier: GPL-2.0
#
# End-to-end checks of iWARP over TCP between the two hosts: rping with
# data verification, perftest with rdma_cm, data integrity with and
# without packet loss, sw_ddp against the kernel's siw in both directions,
# and the hostile peer.  Sourced by check.sh.

PERF_OPTS="-R -F -n 200 -s 65536"

# rping_pair SERVER_ADDR: ten pings with data verification.
rping_pair() {
	serve h1 rping -s -a "$1" -v -C 10
	rping_client 120 10 -a "$1" || { kill "$server"; served; return 1; }
	served
}

# perf_pair TOOL DEV1 DEV2: a perftest server on h1's DEV1, client on DEV2.
perf_pair() {
	local tool=$1 d1=$2 d2=$3
	serve h1 "$tool" -d "$d1" $PERF_OPTS
	ip netns exec h2 timeout 120 "$tool" -d "$d2" $PERF_OPTS 192.0.2.1 ||
		return 1
	served
}

# integrity_lossy SERVER_ADDR: integrity_pair with 1% of the packets
# dropped each way.  What was lost goes out again from what the LLP kept
# (the payload pages themselves, for a Read Response sent by reference),
# after the sender may have reused its buffers: every byte must still be
# right.  Fails, too, if nothing was retransmitted.
integrity_lossy() {
	local before rc=0
	before=$(retransmits)
	veth_loss 1 || return 1
	integrity_pair "$1" 10 || rc=1
	veth_loss 0
	echo "retransmitted: $(($(retransmits) - before))"
	[ $rc -eq 0 ] && [ "$(retransmits)" -gt "$before" ]
}

# N rping clients in turn against one persistent server (about 2.5 s a
# connection on the debug kernel under TCG).
connect_soak() {
	local i
	SERVE_TIMEOUT=$(($1 * 5)) serve h1 rping -s -P -a 192.0.2.1
	for i in $(seq "$1"); do
		QUIET=1 rping_client 20 1 -a 192.0.2.1 -S 64 ||
			{ echo "connection $i failed"; kill "$server"; return 1; }
	done
	kill "$server"
	wait "$server" 2>/dev/null
	true
}

soak_clean() { retry 10 res_zero d1 && retry 10 res_zero d2; }

# flowing OCTETS: more than 4 MB crossed the veth since wire_bytes said
# OCTETS.
flowing() { [ $(($(wire_bytes) - $1)) -gt 4000000 ]; }

# load_mid_run TOOL: TOOL between h1's d1 (server) and h2's d2 (client)
# in the background, four QPs of 64 KiB messages, far more than it can
# finish; returns once data flows, the two PIDs in $srv and $cli.
load_mid_run() {
	local tool=$1 opts="-R -F -q 4 -s 65536 -n 1000000" w0
	ip netns exec h1 "$tool" -d d1 $opts > "$TMPDIR/load-srv.log" 2>&1 &
	srv=$!
	sleep 2
	w0=$(wire_bytes)
	ip netns exec h2 "$tool" -d d2 $opts 192.0.2.1 \
		> "$TMPDIR/load-cli.log" 2>&1 &
	cli=$!
	retry 60 flowing "$w0" || { echo "no data flowed"; return 1; }
	echo "$tool: $(($(wire_bytes) - w0)) octets crossed"
}

# load_end: SIGKILL what is left of load_mid_run's two processes (one
# may have ended by itself on its flushed work requests).
load_end() {
	kill -9 $srv $cli 2> /dev/null
	wait $srv $cli 2> /dev/null
	cat "$TMPDIR/load-srv.log" "$TMPDIR/load-cli.log"
}

# kill_mid_run TOOL FIRST: load_mid_run TOOL, then SIGKILL to FIRST
# (server or client): the kernel destroys its QPs, CQs and MRs with
# Writes, Reads or Sends in flight, and its connections close under the
# other process, which gets the same a few seconds later.  Nothing may
# be left (and make check fails on any KASAN, lockdep or kmemleak
# report); link_del_mid_run's next run shows the devices still work.
kill_mid_run() {
	local srv cli rc=0
	load_mid_run "$1" || rc=1
	echo "killing the $2"
	if [ "$2" = server ]; then kill -9 $srv; else kill -9 $cli; fi
	sleep 3
	load_end
	soak_clean || { echo "resources left"; rc=1; }
	return $rc
}

# returns_under_load SECONDS CMD...: run CMD with the holder and
# load_mid_run's perftests on the device; it must return within SECONDS
# and succeed without their help (ib_core disassociates their contexts,
# verbs.c), and the holder must then have heard of it and let go.
returns_under_load() {
	local secs=$1 pid t0=$SECONDS rc=0
	shift
	"$@" &
	pid=$!
	if ! retry "$secs" ended $pid; then
		echo "$* still waiting after $secs s"
		kill -9 $holder
		load_end
		wait $pid
		return 1
	fi
	echo "$* returned in $((SECONDS - t0)) s"
	wait $pid || { echo "$* failed"; rc=1; }
	hold_end || rc=1
	return $rc
}

# link_del_mid_run TYPE: rdma link del d1 under a running ib_write_bw,
# verbs_smoke --hold on d1 too.  It must return with them still there;
# then d1 is gone, nothing is left on d2 once the perftests are killed,
# and a new d1 of TYPE carries the next run.
link_del_mid_run() {
	local srv cli holder rc=0
	hold_start || return 1
	load_mid_run ib_write_bw || { kill -9 $holder; load_end; return 1; }
	returns_under_load 60 in_h1 rdma link del d1 || rc=1
	dev_gone d1 || rc=1
	load_end
	retry 10 res_zero d2 || { echo "resources left on d2"; rc=1; }
	in_h1 rdma link add d1 type "$1" netdev va || return 1
	perf_pair ib_write_bw d1 d2 > "$TMPDIR/del-next.log" 2>&1 ||
		{ cat "$TMPDIR/del-next.log"; echo "next run failed"; rc=1; }
	return $rc
}

# rmmod_mid_run TYPE: rmmod sw_ddp under a running ib_write_bw, with
# verbs_smoke --hold on d1 too: it must return, and both devices be
# gone.  Then the module comes back, with d1 and d2 of TYPE, and carries
# the next run.
rmmod_mid_run() {
	local srv cli holder rc=0
	hold_start || return 1
	load_mid_run ib_write_bw || { kill -9 $holder; load_end; return 1; }
	returns_under_load 60 rmmod sw_ddp || rc=1
	dev_gone d1 && dev_gone d2 || rc=1
	load_end
	kmod_loaded sw_ddp || insmod "$SW_DDP_KO" || return 1
	in_h1 rdma link add d1 type "$1" netdev va &&
		in_h2 rdma link add d2 type "$1" netdev vb || return 1
	perf_pair ib_write_bw d1 d2 > "$TMPDIR/rmmod-next.log" 2>&1 ||
		{ cat "$TMPDIR/rmmod-next.log"; echo "next run failed"; rc=1; }
	return $rc
}

# kill_tests TYPE TOOL:FIRST...: kill_mid_run for each TOOL and FIRST,
# then link_del_mid_run and rmmod_mid_run, between d1 and d2 of TYPE.
kill_tests() {
	local type=$1 run
	shift
	for run in "$@"; do
		t "${run%:*} killed mid-run, ${run#*:} first: nothing left" \
			kill_mid_run "${run%:*}" "${run#*:}"
	done
	t "rdma link del under ib_write_bw returns, device gone, next run works" \
		link_del_mid_run "$type"
	t "rmmod under ib_write_bw returns, devices gone, reload works" \
		rmmod_mid_run "$type"
}

# p2p 0|1: RFC 6581 peer-to-peer mode (an RTR first) for the connections
# sw_ddp initiates; a sw_ddp responder always takes it.
p2p() { echo "$1" > /sys/module/sw_ddp/parameters/peer_to_peer; }

tcp_devices() {
	in_h1 rdma link add d1 type "$1" netdev va
	in_h2 rdma link add d2 type "$2" netdev vb
}

tcp_tests() {
	insmod "$SW_DDP_KO"
	netns_up
	tcp_devices sw_ddp sw_ddp

	t "rping -v over sw_ddp, IPv4" rping_pair 192.0.2.1
	t "rping -v over sw_ddp, IPv6" rping_pair 2001:db8::1
	p2p 1
	t "rping -v over sw_ddp, peer-to-peer" rping_pair 192.0.2.1
	for tool in ib_write_bw ib_read_bw; do
		t "$tool -R over sw_ddp, peer-to-peer" perf_pair "$tool" d1 d2
	done
	p2p 0
	for tool in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat; do
		t "$tool -R over sw_ddp" perf_pair "$tool" d1 d2
	done
	t "data integrity (Writes, Reads, Sends), sw_ddp<->sw_ddp" \
		integrity_pair 192.0.2.1
	t "data integrity with 1% packet loss, sw_ddp<->sw_ddp" \
		integrity_lossy 192.0.2.1
	# IPv6: rping above.  Debian 12's perftest (4.5-0.17) resolves an -R
	# server address as IPv4 only ("Address family for hostname not
	# supported"), --ipv6 or not.
	t "connect and disconnect 200 times" connect_soak 200
	t "  and no QP, CQ, MR, PD or context is left" soak_clean
	# Writes with either side killed first; Reads and Sends with the
	# server first, so that what arrives is aimed at a process that is
	# gone: its Read Responses, sent by reference, still in the socket,
	# its receive buffers flushed as Sends come in.
	kill_tests sw_ddp ib_write_bw:client ib_write_bw:server \
		ib_read_bw:server ib_send_bw:server

	mal_tests

	in_h2 rdma link del d2
	# siw's data_ready takes sk_callback_lock with read_lock(), softirqs
	# on, when it runs from the socket's backlog: whenever our segment
	# reaches siw's socket while siw's own send owns it.  Lockdep
	# reports that (a possible inversion against slock), and lockdep
	# is off for the rest of the run after its first report.  siw's
	# locking, not ours (nvme-tcp, iSCSI and we use read_lock_bh()).
	# So the interop tests run on one CPU, where siw's thread and our
	# sends cannot overlap, and answer Reads from the work item: a
	# Read Response from our receive upcall (read_resp_now) would
	# reach siw's socket inside siw's own send even there.
	cpus_others_online 0
	echo N > /sys/module/sw_ddp/parameters/read_resp_now
	insmod "$SIW_KO"
	in_h2 rdma link add s2 type siw netdev vb
	t "rping -v: sw_ddp server, siw client" rping_pair 192.0.2.1
	t "data integrity: sw_ddp server, siw client" integrity_pair 192.0.2.1
	for tool in ib_write_bw ib_read_bw ib_send_bw; do
		t "$tool -R: sw_ddp server, siw client" perf_pair "$tool" d1 s2
	done
	in_h1 rdma link del d1
	in_h2 rdma link del s2
	in_h1 rdma link add siw0 type siw netdev va
	in_h2 rdma link add d2 type sw_ddp netdev vb
	t "rping -v: siw server, sw_ddp client" rping_pair 192.0.2.1
	t "data integrity: siw server, sw_ddp client" integrity_pair 192.0.2.1
	p2p 1
	t "rping -v: siw server, sw_ddp client, peer-to-peer" \
		rping_pair 192.0.2.1
	p2p 0
	for tool in ib_write_bw ib_read_bw ib_send_bw; do
		t "$tool -R: siw server, sw_ddp client" perf_pair "$tool" siw0 d2
	done
	t "KUnit module against siw loads and its suite runs" siw_kunit
	netns_down
	rmmod siw
	rmmod sw_ddp
	cpus_others_online 1
}

# siw's listener for rping -s is a kernel TCP socket in h1: its first
# case must not connect before it is there (serve's second is not always
# enough for a cold guest).
siw_listening() {
	in_h1 ss -Hltn "sport = :$1" | grep -q .
}

# The sw_ddp_cm_siw suite (kunit/cm_siw_test.c): our MPA exchanges
# against siw0 on h1, with a siw responder on port 7174 and a siw
# initiator that keeps trying port 7175, where the suite listens.
siw_kunit() {
	local client rc=0

	serve h1 rping -s -P -a 192.0.2.1 -p 7174
	retry 30 siw_listening 7174 || rc=1
	in_h1 bash -c 'while :; do
		timeout 10 rping -c -a 192.0.2.1 -p 7175 -C 1; sleep 0.2
	done' > /dev/null 2>&1 &
	client=$!
	insmod "$SW_DDP_KUNIT_SIW_KO" || rc=1
	kill "$client" "$server"
	pkill -f 'rping -c -a 192.0.2.1 -p 7175'
	wait "$client" "$server"
	[ $rc = 0 ] || return 1
	mkdir -p "$results/kunit"
	cp /sys/kernel/debug/kunit/sw_ddp_cm_siw/results \
		"$results/kunit/sw_ddp_cm_siw.ktap" &&
		cat "$results/kunit/sw_ddp_cm_siw.ktap" &&
		rmmod sw_ddp_kunit_siw
}

MAL_PORT=7471

# Each hostile case against a fresh victim connection.
mal_case() {
	"$top/tools/bin/mal_peer" 192.0.2.1 $MAL_PORT "$1"
}

mal_victim_ok() {
	[ "$(grep -c 'qp_state ERR .* guards intact' "$TMPDIR/server.log")" = "$1" ]
}

# rdma_victim, started with serve, listens: a first case sent sooner
# would meet no listener (a cold guest takes more than serve's second).
victim_listening() {
	retry 30 grep -q "^victim: listening" "$TMPDIR/server.log"
}

mal_tests() {
	local cases n
	cases=$("$top/tools/bin/mal_peer" --list)
	n=$(echo "$cases" | wc -l)
	serve h1 "$top/tools/bin/rdma_victim" 192.0.2.1 $MAL_PORT "$n"
	victim_listening
	for c in $cases; do
		t "hostile peer: $c gets the right Terminate" \
			ip netns exec h2 timeout 30 "$top/tools/bin/mal_peer" \
			192.0.2.1 $MAL_PORT "$c"
	done
	wait "$server"
	cat "$TMPDIR/server.log"
	t "hostile peer: each victim QP in ERROR, memory outside targets intact" \
		mal_victim_ok "$n"
	t "other QPs keep working after the attacks" \
		perf_pair ib_write_bw d1 d2
}
