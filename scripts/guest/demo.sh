#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`, guest side.  Commands are echoed, as a user would type them.
results=$1
. "$(dirname "$0")/lib.sh"
set -e

run() { echo "# $*"; "$@"; echo; }

run insmod "$SW_DDP_KO"
netns_up
echo "Two hosts: h1 (192.0.2.1 on va) and h2 (192.0.2.2 on vb), veth, MTU 65000."
echo
# write_bw TYPE: ib_write_bw between sw_ddp devices of link TYPE.
write_bw() {
	echo "== ib_write_bw over $1 =="
	run ip netns exec h1 rdma link add d1 type "$1" netdev va
	run ip netns exec h2 rdma link add d2 type "$1" netdev vb
	run ip netns exec h1 rdma link show
	run ibv_devinfo -d d1
	echo "# ip netns exec h1 ib_write_bw -R -d d1 -s 65536 -n 2000 -F &"
	ip netns exec h1 timeout 180 ib_write_bw -R -d d1 -s 65536 -n 2000 -F \
		> "$TMPDIR/server.log" 2>&1 &
	sleep 1
	run ip netns exec h2 timeout 180 ib_write_bw -R -d d2 -s 65536 -n 2000 -F 192.0.2.1
	wait $! || echo "(the server failed: $(cat "$TMPDIR/server.log"))"
	run ip netns exec h1 rdma link del d1
	run ip netns exec h2 rdma link del d2
}

write_bw sw_ddp
write_bw sw_ddp_sctp

echo "(Numbers from a debug kernel under QEMU's TCG emulation: they show"
echo " that it works, not how fast it is.  make bench is for speed.)"
