# SPDX-License-Identifier: GPL-2.0
# An in-kernel verbs consumer over sw_ddp: NVMe over Fabrics, the host
# (nvme-rdma) and the target (nvmet-rdma), both modules of this kernel,
# both in the initial network namespace, where they make their rdma_cm
# ids.  The target listens on 192.0.2.10, on a veth end (nv0) with a
# sw_ddp device: rdma_cm resolves a local address to the netdev that
# holds it, though the TCP connection runs over lo.  A host write is the
# target's RDMA Read (rdma_rw: on iWARP a Read with Local Invalidate into
# a fast-registered MR), a host read the target's RDMA Write, each
# command a Send and each response a Send with Invalidate of the host's
# MR.  Sourced by check.sh.

NVME_NQN=nqn.2026-11.org.example:sw-ddp
# Modules of the test kernel (scripts/kconfig/debug.config), loaded
# with what they depend on by kmods_load (lib.sh).
NVME_MODS="nvmet_rdma nvme_rdma"

NVME_CFG=/sys/kernel/config/nvmet
NVME_SUB=$NVME_CFG/subsystems/$NVME_NQN
NVME_PORT=$NVME_CFG/ports/1

# A 64 MiB file on the guest's tmpfs, exported as namespace 1 on
# 192.0.2.10:4420.
nvme_target_up() {
	mountpoint -q /sys/kernel/config ||
		mount -t configfs configfs /sys/kernel/config || return 1
	truncate -s 64M "$TMPDIR/nvme-ns.img" &&
		mkdir "$NVME_SUB" &&
		echo 1 > "$NVME_SUB/attr_allow_any_host" &&
		mkdir "$NVME_SUB/namespaces/1" &&
		echo "$TMPDIR/nvme-ns.img" > "$NVME_SUB/namespaces/1/device_path" &&
		echo 1 > "$NVME_SUB/namespaces/1/enable" &&
		mkdir "$NVME_PORT" &&
		echo rdma > "$NVME_PORT/addr_trtype" &&
		echo ipv4 > "$NVME_PORT/addr_adrfam" &&
		echo 192.0.2.10 > "$NVME_PORT/addr_traddr" &&
		echo 4420 > "$NVME_PORT/addr_trsvcid" &&
		ln -s "$NVME_SUB" "$NVME_PORT/subsystems/$NVME_NQN"
}

nvme_target_down() {
	rm -f "$NVME_PORT/subsystems/$NVME_NQN"
	rmdir "$NVME_PORT" 2>/dev/null
	[ -d "$NVME_SUB/namespaces/1" ] &&
		echo 0 > "$NVME_SUB/namespaces/1/enable"
	rmdir "$NVME_SUB/namespaces/1" 2>/dev/null
	rmdir "$NVME_SUB" 2>/dev/null
	rm -f "$TMPDIR/nvme-ns.img"
	true
}

# Connect as nvme-cli does, through /dev/nvme-fabrics; print the
# controller's instance number.
nvme_connect() {
	local line
	exec 3<> /dev/nvme-fabrics || return 1
	echo "transport=rdma,traddr=192.0.2.10,trsvcid=4420,nqn=$NVME_NQN,queue_size=32" >&3 &&
		read -r line <&3
	exec 3>&-
	case $line in
	instance=*) line=${line#instance=}; echo "${line%%,*}" ;;
	*) echo "nvme connect: '$line'" >&2; return 1 ;;
	esac
}

# The namespace's block device, once the host has scanned it.
nvme_bdev() {
	local d
	for d in /dev/nvme"$1"n1 /dev/nvme*n1; do
		[ -b "$d" ] && { echo "$d"; return 0; }
	done
	return 1
}

# The same, waited for (30 s).
nvme_dev() { retry 30 nvme_bdev "$1" > /dev/null && nvme_bdev "$1"; }

# Controller $1 deleted, waited for (30 s).
nvme_ctrl_gone() { retry 30 test ! -e "/sys/class/nvme/nvme$1"; }

# Write 16 MiB of random data through the host in I/Os of each size, read
# it back, compare; both directions at once last.
nvme_data() {
	local dev=$1 bs
	dd if=/dev/urandom of="$TMPDIR/nvme-data" bs=1M count=16 status=none ||
		return 1
	for bs in 4096 65536 1048576; do
		dd if="$TMPDIR/nvme-data" of="$dev" bs=$bs oflag=direct \
			status=none &&
			dd if="$dev" of="$TMPDIR/nvme-back" bs=$bs iflag=direct \
				count=$((16 * 1048576 / bs)) status=none &&
			cmp "$TMPDIR/nvme-data" "$TMPDIR/nvme-back" || return 1
		echo "$bs-octet I/Os: 16 MiB written, read back, equal"
	done
}

nvme_run() {
	local inst dev rc=0
	nvme_target_up || { nvme_target_down; return 1; }
	if inst=$(nvme_connect); then
		dev=$(nvme_dev "$inst") || rc=1
		[ $rc = 0 ] && { nvme_data "$dev" || rc=1; }
		echo 1 > "/sys/class/nvme/nvme$inst/delete_controller" || rc=1
		nvme_ctrl_gone "$inst" || rc=1
	else
		rc=1
	fi
	nvme_target_down
	return $rc
}

# The device removed under a connected controller with I/O in flight:
# nvme-rdma deletes the controller, nvmet-rdma its queues, rdma_cm its
# ids, and the removal returns.  The I/O may fail; nothing may hang.
nvme_remove_under_io() {
	local inst dev io del rc=0
	nvme_target_up || { nvme_target_down; return 1; }
	inst=$(nvme_connect) || { nvme_target_down; return 1; }
	dev=$(nvme_dev "$inst") || rc=1
	if [ $rc = 0 ]; then
		# Both in the background, their output not t's: a hung
		# removal is uninterruptible, and the run must go on.
		dd if=/dev/urandom of="$dev" bs=64k count=1000 oflag=direct \
			status=none > /dev/null 2>&1 &
		io=$!
		sleep 2
		rdma link del nvd > "$TMPDIR/nvme-del.log" 2>&1 &
		del=$!
		if retry 120 ended $del; then
			wait $del ||
				{ cat "$TMPDIR/nvme-del.log"; rc=1; }
		else
			echo "rdma link del still running after 120 s"
			touch "$TMPDIR/nvme-hung"
			return 1
		fi
		wait $io
		nvme_ctrl_gone "$inst" ||
			{ echo "controller nvme$inst still there"; rc=1; }
	fi
	nvme_target_down
	return $rc
}

nvme_tests() {
	t "NVMe over Fabrics modules load (nvme-rdma, nvmet-rdma)" \
		kmods_load $NVME_MODS
	insmod "$SW_DDP_KO"
	ip link add nv0 type veth peer name nv1
	ip addr add 192.0.2.10/24 dev nv0
	ip link set nv0 up
	ip link set nv1 up
	rdma link add nvd type sw_ddp netdev nv0
	t "NVMe over Fabrics (nvme-rdma, nvmet-rdma) over sw_ddp: data intact" \
		nvme_run
	t "  and the device goes away with nothing left" \
		rdma link del nvd
	rdma link add nvd type sw_ddp netdev nv0
	t "rdma link del under NVMe I/O: controller deleted, device removed" \
		nvme_remove_under_io
	# A removal that hung holds the netdev and the module: leave them,
	# or the run would hang with it.
	if [ -e "$TMPDIR/nvme-hung" ]; then
		t "  and then sw_ddp and the NVMe modules unload" false
		return
	fi
	ip link del nv0
	t "  and then sw_ddp and the NVMe modules unload" \
		eval 'rmmod sw_ddp && kmods_unload $NVME_MODS'
}
