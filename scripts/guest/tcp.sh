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
	in_h1 rdma link add s1 type siw netdev va
	in_h2 rdma link add d2 type sw_ddp netdev vb
	t "rping -v: siw server, sw_ddp client" rping_pair 192.0.2.1
	t "data integrity: siw server, sw_ddp client" integrity_pair 192.0.2.1
	p2p 1
	t "rping -v: siw server, sw_ddp client, peer-to-peer" \
		rping_pair 192.0.2.1
	p2p 0
	for tool in ib_write_bw ib_read_bw ib_send_bw; do
		t "$tool -R: siw server, sw_ddp client" perf_pair "$tool" s1 d2
	done
	netns_down
	rmmod siw
	rmmod sw_ddp
	cpus_others_online 1
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
