# SPDX-License-Identifier: GPL-2.0
#
# End-to-end checks of device lifetime: `rdma link add/del`, port state
# following the netdev, netdev removal, rmmod, and cohabitation with siw.
# Sourced by check.sh.

dev_exists() { rdma dev show "$1" >/dev/null 2>&1; }
dev_gone() { ! dev_exists "$1"; }

# port_is NETNS DEV STATE: `rdma link` and ibv_devinfo both report STATE.
port_is() {
	ip netns exec "$1" rdma link show "$2/1" | grep -q "state $3 " &&
		ibv_devinfo -d "$2" | grep -q "state:.*PORT_$3"
}

link_add_tcp() {
	in_h1 rdma link add d1 type sw_ddp netdev va &&
		in_h1 rdma link show d1/1 | tee /dev/stderr | grep -q "netdev va"
}

# An SCTP device (RFC 5043) on the netdev a TCP one already uses.
link_add_sctp() {
	in_h1 rdma link add d9 type sw_ddp_sctp netdev va &&
		in_h1 rdma link show d9/1 | grep -q "netdev va" &&
		rdma dev show d9 | grep -q "node_type rnic" &&
		ibv_devinfo -d d9 | tee /dev/stderr |
		grep -q "transport:.*iWARP" &&
		in_h1 rdma link del d9
}

devinfo_iwarp() {
	ibv_devices | grep -w d1 &&
		ibv_devinfo -d d1 | tee /dev/stderr | grep -q "transport:.*iWARP" &&
		ibv_devinfo -v -d d1 | grep -q "max_pd:" &&
		rdma dev show d1 | grep -q "node_type rnic"
}

# The port follows va's own state and its carrier (the peer vb's state),
# and each change reaches verbs users as an async event.
port_follows_link() {
	local log=$TMPDIR/async.log pid ok=0
	stdbuf -oL ibv_asyncwatch -d d1 > "$log" 2>&1 &
	pid=$!
	# It prints its FD once it listens; events before that are lost.
	retry 20 grep -q "async event FD" "$log"
	ip -n h1 link set va down && retry 5 port_is h1 d1 DOWN &&
		ip -n h1 link set va up && retry 5 port_is h1 d1 ACTIVE &&
		ip -n h2 link set vb down && retry 5 port_is h1 d1 DOWN &&
		ip -n h2 link set vb up && retry 5 port_is h1 d1 ACTIVE && ok=1
	sleep 1
	kill "$pid"
	wait "$pid" 2>/dev/null
	cat "$log"
	[ $ok = 1 ] && [ "$(grep -c 'IBV_EVENT_PORT_ERR' "$log")" = 2 ] &&
		[ "$(grep -c 'IBV_EVENT_PORT_ACTIVE' "$log")" = 2 ]
}

# A refused `rdma link add` says why and leaves no device behind.
refused() {
	local why=$1 before out
	shift
	before=$(rdma dev show)
	out=$("$@" 2>&1) && { echo "unexpectedly succeeded"; return 1; }
	echo "$out"
	echo "$out" | grep -qi "$why" && [ "$(rdma dev show)" = "$before" ]
}

# Deleting vb deletes its veth peer va too: both devices must go, and
# quietly: ib_core has nothing to complain of on a routine removal (it
# logs a port query that fails, and one follows each netdev's closing).
netdev_removal() {
	klog_mark "netdev removal"
	ip -n h2 link del vb && retry 10 dev_gone d2 && retry 10 dev_gone d1 &&
		removed_quietly "netdev removal"
}

# removed_quietly MARK: since klog_mark MARK, no complaint from ib_core.
removed_quietly() {
	! klog_since "$1" | grep -E "infiniband .*: .* failed"
}

# va deleted while verbs_smoke --hold has d1 open: d1 must go without
# waiting for the process, which hears of it and lets go, and va must be
# freed.  (Without disassociation, as with siw, the del blocks, the
# kernel repeating "waiting for va to become free", and in this VM it
# stayed blocked after the holder was killed.)
netdev_removal_held() {
	local holder del rc=0
	hold_start || return 1
	ip -n h1 link del va &
	del=$!
	retry 30 dev_gone d1 || { echo "d1 still there"; rc=1; }
	hold_end || rc=1
	retry 10 ended $del ||
		{ echo "ip link del va still blocked"; return 1; }
	wait $del || rc=1
	return $rc
}

# va moved to h2 while verbs_smoke --hold has d1 open: d1 goes, as for a
# removal (NETDEV_UNREGISTER), and a device can be made on va in h2 at
# once, while d1's removal still waits for its holder to let go.
netdev_moved_held() {
	local rc=0
	hold_start || return 1
	ip -n h1 link set va netns h2 || rc=1
	in_h2 rdma link add d3 type sw_ddp netdev va ||
		{ echo "d3 refused on the moved va"; rc=1; }
	retry 30 dev_gone d1 || { echo "d1 still there"; rc=1; }
	hold_end || rc=1
	dev_exists d3 || { echo "d3 gone"; rc=1; }
	in_h2 rdma link del d3 2>/dev/null
	return $rc
}

netns_removal() {
	klog_mark "netns removal"
	ip netns del h1 && retry 10 dev_gone d1 &&
		removed_quietly "netns removal"
}

rmmod_removal() { rmmod sw_ddp && dev_gone d1 && dev_gone d2; }

# rmmod while `rdma link del` removes a device, eight times over: module
# exit waits for an unregistration under way elsewhere to have left the
# module (main.c, sw_ddp_dev_dealloc()).  The window that guards is a few
# instructions wide: the loop runs the paths around it, it cannot force it.
rmmod_races_link_del() {
	local i pid ok=1
	for i in 1 2 3 4 5 6 7 8; do
		in_h1 rdma link add d1 type sw_ddp netdev va &&
			in_h2 rdma link add d2 type sw_ddp netdev vb || return 1
		in_h1 rdma link del d1 &
		pid=$!
		retry 10 rmmod sw_ddp || ok=0
		wait "$pid"	# fails if rmmod took d1 first: either is right
		dev_gone d1 && dev_gone d2 || ok=0
		insmod "$SW_DDP_KO" || return 1
	done
	[ $ok = 1 ]
}

# Exclusive network namespace mode (`rdma system set netns exclusive`, as
# for containers): a device is visible in one namespace only, the initial
# one when it is created, and `rdma dev set DEV netns NS` moves it, run in
# the namespace it is in.  ib_core allows the move only to drivers that
# can disassociate user contexts: it takes the device from every client,
# uverbs' processes included, and gives it back in the new namespace.
# Switching modes needs every other namespace gone, and a deleted one
# lingers until its cleanup has run.
netns_mode() {
	local shown
	retry 60 rdma system set netns "$1" && shown=$(rdma system show) &&
		echo "$shown" && echo "$shown" | grep -q "netns $1"
}

# in_ns NETNS CMD...: run CMD in NETNS, "-" being the initial namespace.
in_ns() {
	local ns=$1
	shift
	if [ "$ns" = - ]; then "$@"; else ip netns exec "$ns" "$@"; fi
}

# dev_only_in NETNS DEV: DEV is seen in NETNS and in no other of ours.
dev_only_in() {
	local ns
	in_ns "$1" rdma dev show "$2" || { echo "$2 not in $1"; return 1; }
	for ns in - h1 h2; do
		[ "$ns" = "$1" ] && continue
		in_ns "$ns" rdma dev show "$2" 2>/dev/null &&
			{ echo "$2 also seen in $ns"; return 1; }
	done
	return 0
}

move_in() {
	rdma dev set d1 netns h1 && rdma dev set d2 netns h2 &&
		dev_only_in h1 d1 && dev_only_in h2 d2
}

# A move with a process holding the device: the process hears of it
# (DEVICE_FATAL) and lets go, and the move does not wait for it.
move_held() {
	local rc=0
	hold_start || return 1
	in_h1 rdma dev set d1 netns h2 || rc=1
	hold_end || rc=1
	dev_only_in h2 d1 || rc=1
	in_h2 rdma dev set d1 netns h1 && dev_only_in h1 d1 || rc=1
	return $rc
}

# A namespace that dies with a device in it gives the device back to the
# initial namespace (its netdev, in h1, lives on).
move_back_on_exit() {
	ip netns add h3 || return 1
	in_h1 rdma dev set d1 netns h3 && in_ns h3 rdma dev show d1 &&
		ip netns del h3 && retry 60 dev_only_in - d1 &&
		rdma dev set d1 netns h1 && dev_only_in h1 d1
}

# Deleting h1 deletes the veth, and so both devices, each in its own
# namespace; in shared mode again, no namespace hides a device.
exclusive_end() {
	retry 30 fails in_h2 rdma dev show d2 ||
		{ echo "d2 still in h2"; return 1; }
	netns_down
	netns_mode shared && retry 10 dev_gone d1 && retry 10 dev_gone d2
}

# exclusive_round TYPE [full]: two devices of TYPE moved into their hosts'
# namespaces and used there; "full" moves one under a process, and into
# a namespace that is then deleted.
exclusive_round() {
	t "exclusive netns mode, $1 devices" netns_mode exclusive
	netns_up
	in_h1 rdma link add d1 type "$1" netdev va
	in_h2 rdma link add d2 type "$1" netdev vb
	t "  a new device is in the initial namespace only" dev_only_in - d1
	t "  rdma dev set moves devices into their hosts' namespaces" move_in
	if [ "$2" = full ]; then
		t "  a move under a process holding the device" move_held
		t "  a namespace's deletion gives its device back" \
			move_back_on_exit
	fi
	t "  rping -v between the moved devices" rping_pair 192.0.2.1
	ip netns del h1
	t "  netns deletion removes them; shared mode again" exclusive_end
	netns_down
	netns_mode shared > /dev/null 2>&1
}

exclusive_tests() {
	exclusive_round sw_ddp full
	exclusive_round sw_ddp_sctp
}

devices_tests() {
	t "module loads" insmod "$SW_DDP_KO"
	netns_up
	t "link add: sw_ddp on va" link_add_tcp
	t "device is iWARP in ibv_devices/ibv_devinfo" devinfo_iwarp
	t "port is ACTIVE with the link up" port_is h1 d1 ACTIVE
	t "port follows link state, with async events" port_follows_link
	t "link add: unknown netdev refused" \
		refused "no such device" in_h1 rdma link add dx type sw_ddp netdev nosuch
	t "link add: duplicate name refused" \
		refused "exists" in_h2 rdma link add d1 type sw_ddp netdev vb
	t "link add: second device on a netdev refused" \
		refused "exists" in_h1 rdma link add d9 type sw_ddp netdev va
	t "link add: sw_ddp_sctp on va, beside sw_ddp, is iWARP" link_add_sctp
	t "link del removes the device" in_h1 rdma link del d1
	t "  and it is gone" dev_gone d1

	in_h1 rdma link add d1 type sw_ddp netdev va
	in_h2 rdma link add d2 type sw_ddp netdev vb
	t "netdev removal removes its device" netdev_removal
	netns_down

	netns_up
	in_h1 rdma link add d1 type sw_ddp netdev va
	t "netdev removal under a process holding the device" \
		netdev_removal_held
	netns_down

	netns_up
	in_h1 rdma link add d1 type sw_ddp netdev va
	t "netdev moved to another namespace: a device on it there at once" \
		netdev_moved_held
	netns_down

	netns_up
	in_h1 rdma link add d1 type sw_ddp netdev va
	t "netns deletion removes its devices" netns_removal
	netns_down
	exclusive_tests

	netns_up
	in_h1 rdma link add d1 type sw_ddp netdev va
	in_h2 rdma link add d2 type sw_ddp netdev vb
	t "rmmod removes all devices" rmmod_removal
	t "module reloads" insmod "$SW_DDP_KO"
	t "rmmod racing rdma link del leaves nothing behind" \
		rmmod_races_link_del

	siw_cohabits
	netns_down
	rmmod sw_ddp 2>/dev/null
}

# siw shares our driver id (for libsiw), so this checks that neither driver
# mistakes the other's devices for its own on netdev events.
siw_cohabits() {
	t "siw loads beside sw_ddp" insmod "$SIW_KO"
	in_h1 rdma link add d1 type sw_ddp netdev va
	in_h2 rdma link add s2 type siw netdev vb
	t "sw_ddp and siw devices side by side" side_by_side
	t "link toggles with both drivers loaded" toggle_both
	in_h2 rdma link del s2
	t "siw unloads" rmmod siw
}

side_by_side() { dev_exists d1 && dev_exists s2; }

toggle_both() {
	ip -n h1 link set va down && ip -n h2 link set vb down &&
		ip -n h1 link set va up && ip -n h2 link set vb up &&
		retry 5 port_is h1 d1 ACTIVE && retry 5 port_is h2 s2 ACTIVE
}
