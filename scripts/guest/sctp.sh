# SPDX-License-Identifier: GPL-2.0
#
# End-to-end checks of iWARP over SCTP (RFC 5043) between the two hosts:
# rping with data verification (IPv4, IPv6) and perftest through rdma_cm,
# data integrity with and without packet loss, what goes on the wire
# (PPIDs 16 and 17, U bit, the DDP adaptation indication), a peer without
# DDP adaptation, the loss of an association, and rmmod with an
# association still up.  Sourced by check.sh after tcp.sh, whose helpers
# (rping_pair, perf_pair, integrity_lossy) it uses.

sctp_devices() {
	in_h1 rdma link add d1 type sw_ddp_sctp netdev va
	in_h2 rdma link add d2 type sw_ddp_sctp netdev vb
}

# sctp_values FILE: from one tshark run (it starts slowly under TCG) a
# line "ppid N", "u N" for each DATA chunk, "init N" and "init-ack N" for
# the adaptation indication of each INIT and INIT-ACK, numbers decimal.
sctp_values() {
	tshark -r "$1" -Y sctp -T fields -E separator='|' -E aggregator=' ' \
		-E occurrence=a -e sctp.chunk_type \
		-e sctp.data_payload_proto_id -e sctp.data_u_bit \
		-e sctp.adaptation_layer_indication 2>/dev/null |
	awk -F'|' '
	function num(s,   n, i) {
		if (s == "True") return 1
		if (s == "False") return 0
		if (s !~ /^0[xX]/) return s + 0
		for (i = 3; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef",
					   tolower(substr(s, i, 1))) - 1
		return n
	}
	function put(name, vals,   n, v, i) {
		n = split(vals, v, " ")
		for (i = 1; i <= n; i++)
			print name, num(v[i])
	}
	{ put("ppid", $2); put("u", $3) }
	$1 == "1" { put("init", $4) }
	$1 == "2" { put("init-ack", $4) }'
}

# The distinct values NAME took in the capture, on one line.
sctp_set() { grep "^$1 " | cut -d' ' -f2 | sort -un | tr '\n' ' '; }

# A short rping captured on vb.  tshark takes a minute to start under
# TCG: it reads the capture in the background while the next tests run,
# and sctp_wire checks what it found.
sctp_capture() {
	local pcap=$TMPDIR/sctp.pcap log=$TMPDIR/dumpcap.log pid rc=0
	ip netns exec h2 dumpcap -q -i vb -f sctp -w "$pcap" > "$log" 2>&1 &
	pid=$!
	retry 30 grep -q "Capturing on" "$log" || { cat "$log"; return 1; }
	serve h1 rping -s -a 192.0.2.1 -v -C 2
	rping_client 60 2 -a 192.0.2.1 || rc=1
	served || rc=1
	sleep 1
	kill "$pid"
	wait "$pid"
	{ sctp_values "$pcap"; echo end; } > "$TMPDIR/sctp.values" 2>&1 &
	return $rc
}

# The PPIDs are those of RFC 5043 §5.2 and both appear, every DATA chunk
# is unordered (§10), and INIT and INIT-ACK both carry the DDP Adaptation
# Layer Indication (§5.1, §11.1).
sctp_wire() {
	local sum=$TMPDIR/sctp.values f
	retry 180 grep -qx end "$sum" || return 1
	echo "DATA chunks: $(grep -c '^u ' "$sum")"
	for f in ppid u init init-ack; do
		echo "$f: $(sctp_set $f < "$sum")"
	done
	[ "$(sctp_set ppid < "$sum")" = "16 17 " ] &&
		[ "$(sctp_set u < "$sum")" = "1 " ] &&
		[ "$(sctp_set init < "$sum")" = "1 " ] &&
		[ "$(sctp_set init-ack < "$sum")" = "1 " ]
}

# §11.1: an SCTP peer that indicates no DDP adaptation is aborted, and a
# DDP peer gets through afterwards.
sctp_no_ddp_peer() {
	local rc=0
	serve h1 rping -s -a 192.0.2.1 -v -C 1
	ip netns exec h2 python3 - <<-'EOF' || rc=1
	import socket, sys
	s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_SCTP)
	s.settimeout(20)
	try:
	    s.connect(("192.0.2.1", 7174))
	    data = s.recv(100)
	except (ConnectionResetError, ConnectionAbortedError):
	    print("association aborted")
	    sys.exit(0)
	print("received", data, "(not an ABORT)")
	sys.exit(1)
	EOF
	rping_client 60 1 -a 192.0.2.1 || rc=1
	served || rc=1
	return $rc
}

# No SCTP association left in either namespace.
sctp_assocs_gone() {
	local ns
	for ns in h1 h2; do
		[ "$(ip netns exec "$ns" cat /proc/net/sctp/assocs | wc -l)" -le 1 ] ||
			return 1
	done
}

# After the soak: no verbs resource and, once idle, no association left.
sctp_soak_clean() { soak_clean && retry 10 sctp_assocs_gone; }

# Fast failure detection for associations opened after this.
sctp_fast_loss() {
	local ns
	for ns in h1 h2; do
		ip netns exec "$ns" sysctl -qw net.sctp.rto_initial=200 \
			net.sctp.rto_min=100 net.sctp.rto_max=400 \
			net.sctp.association_max_retrans=3 \
			net.sctp.path_max_retrans=3 net.sctp.hb_interval=300
	done
}

# §11.3: the association goes down under a running rping: both QPs go to
# ERROR and both ends see the connection end (rping exits 0 on its
# DISCONNECT event), as soon as SCTP gives up on the path.
sctp_assoc_loss() {
	local client log=$TMPDIR/client.log down
	sctp_fast_loss
	SERVE_TIMEOUT=90 serve h1 rping -s -a 192.0.2.1 -C 1000000
	ip netns exec h2 timeout 90 rping -c -a 192.0.2.1 -C 1000000 \
		> "$log" 2>&1 &
	client=$!
	sleep 5
	ip -n h2 link set vb down
	down=$SECONDS
	wait "$client"
	echo "client ended $((SECONDS - down)) s after the link went down"
	served
	echo "server ended $((SECONDS - down)) s after the link went down"
	cat "$log"
	ip -n h2 link set vb up
	[ $((SECONDS - down)) -lt 40 ] && grep -q DISCONNECT "$log" &&
		grep -q DISCONNECT "$TMPDIR/server.log"
}

# A DDP peer that never answers the Initiate: the connect times out and
# the association stays up (its stream id cannot be reused, §6.6) until
# rmmod, which must take it down.
sctp_mute_peer() {
	local rc
	ip netns exec h1 python3 - > "$TMPDIR/mute.log" 2>&1 <<-'EOF' &
	import socket, struct, time
	IPPROTO_SCTP, SCTP_ADAPTATION_LAYER = 132, 7
	s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_SCTP)
	s.setsockopt(IPPROTO_SCTP, SCTP_ADAPTATION_LAYER, struct.pack("I", 1))
	s.bind(("192.0.2.1", 7175))
	s.listen(1)
	print("listening", flush=True)
	c, _ = s.accept()
	print("association up", flush=True)
	c.settimeout(90)
	try:
	    while c.recv(1000):
	        pass
	except ConnectionError:
	    pass
	print("association down", flush=True)
	EOF
	retry 20 grep -q listening "$TMPDIR/mute.log" || return 1
	# fails by itself, in about 4 s: not killed by timeout (124)
	ip netns exec h2 timeout 60 rping -c -a 192.0.2.1 -p 7175 -C 1
	rc=$?
	echo "rping: exit $rc"
	[ $rc -ne 0 ] && [ $rc -ne 124 ] &&
		grep -q "association up" "$TMPDIR/mute.log"
}

# A DDP peer whose Accept carries 300 octets of private data (RFC 5043
# §5.2.3 allows 512; iw_cm passes a ULP 255 at most): the client's connect
# fails rather than go on with part of it, and the peer gets the client's
# Session Terminate, no segment (tools/mal_peer_sctp --serve).
sctp_accept_pdata() {
	local peer=$top/tools/bin/mal_peer_sctp rc=0 pid
	ip netns exec h1 timeout 90 "$peer" --serve 192.0.2.1 7176 \
		accept-pdata-300 > "$TMPDIR/accept.log" 2>&1 &
	pid=$!
	retry 20 grep -q listening "$TMPDIR/accept.log" || rc=1
	[ $rc = 0 ] && ip netns exec h2 timeout 60 \
		rping -c -a 192.0.2.1 -p 7176 -C 1 && rc=1
	wait $pid || rc=1
	cat "$TMPDIR/accept.log"
	return $rc
}

sctp_rmmod_live() {
	local rc=0
	rmmod sw_ddp || rc=1
	retry 10 grep -q "association down" "$TMPDIR/mute.log" || rc=1
	cat "$TMPDIR/mute.log"
	return $rc
}

MAL_SCTP_PORT=7472

# rdma_victim has reported on N connections.
mal_sctp_reported() {
	[ "$(grep -c '^victim: conn [0-9]*[^:]*: [qs]' "$TMPDIR/server.log")" \
		-ge "$1" ]
}

# The hostile SCTP peer (tools/mal_peer_sctp): each case on an association
# of its own, checked on the wire by the tool; then how each case left its
# victim connection (some never reach rdma_victim), and another QP's data.
# The victim may serve a connection for each case, so that one wrongly
# accepted does not leave the cases after it without a victim.
mal_sctp_tests() {
	local peer=$top/tools/bin/mal_peer_sctp cases c
	cases=$("$peer" --list)
	SERVE_TIMEOUT=900 serve h1 "$top/tools/bin/rdma_victim" 192.0.2.1 \
		$MAL_SCTP_PORT "$(echo "$cases" | wc -l)"
	victim_listening
	for c in $cases; do
		t "hostile SCTP peer: $c" ip netns exec h2 timeout 90 \
			"$peer" 192.0.2.1 $MAL_SCTP_PORT "$c"
	done
	retry 30 mal_sctp_reported "$("$peer" --victims)"
	kill "$server"
	wait "$server"
	cat "$TMPDIR/server.log"
	t "hostile SCTP peer: victim QPs in ERROR or never made, guards intact" \
		"$peer" --check-victim "$TMPDIR/server.log"
	t "other QPs keep working after the SCTP attacks" \
		perf_pair ib_write_bw d1 d2
}

sctp_tests() {
	insmod "$SW_DDP_KO"
	netns_up
	sctp_devices
	t "rping -v over sw_ddp_sctp, IPv4" rping_pair 192.0.2.1
	t "rping -v over sw_ddp_sctp, IPv6" rping_pair 2001:db8::1
	for tool in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat; do
		t "$tool -R over sw_ddp_sctp" perf_pair "$tool" d1 d2
	done
	t "data integrity (Writes, Reads, Sends), sw_ddp_sctp<->sw_ddp_sctp" \
		integrity_pair 192.0.2.1
	t "data integrity with 1% packet loss, sw_ddp_sctp<->sw_ddp_sctp" \
		integrity_lossy 192.0.2.1
	t "connect and disconnect 100 times over SCTP" connect_soak 100
	t "  and no QP, CQ, MR, PD, context or association is left" \
		sctp_soak_clean
	kill_tests sw_ddp_sctp ib_write_bw:server ib_read_bw:server
	t "  and no association is left" retry 10 sctp_assocs_gone
	t "rping -v over sw_ddp_sctp, captured on vb" sctp_capture
	t "SCTP peer without DDP adaptation aborted, DDP peer still served" \
		sctp_no_ddp_peer
	mal_sctp_tests
	t "association lost under rping: both ends fail fast" sctp_assoc_loss
	t "SCTP on the wire: PPIDs 16 and 17, U=1, DDP adaptation indication" \
		sctp_wire
	t "an Accept with more private data than iw_cm carries fails the connect" \
		sctp_accept_pdata
	t "connect to a DDP peer that never answers times out" sctp_mute_peer
	t "rmmod with an association up takes it down" sctp_rmmod_live
	netns_down
}
