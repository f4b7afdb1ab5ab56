#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test kernel in QEMU (TCG) on the host's root file system, shared
# read-only over virtio-9p, and run one guest script in it.
#
# usage: vm-run.sh KERNEL_DIR RESULTS_DIR GUEST_SCRIPT
#
# RESULTS_DIR is shared writable; the guest writes its logs there and the
# serial console goes to RESULTS_DIR/console.log.  The guest script runs as
# init's child, with the repository at the same path as on the host and the
# results directory as its only argument.
#
# Environment: VM_TIMEOUT (seconds, default 1800), VM_MEM (default 3G),
# VM_SMP (default: host cores), VM_APPEND (more kernel parameters),
# VM_QEMU_ARGS (more QEMU arguments, e.g. tools/tcg-icount's -plugin).
# KVM is never used: it hangs here.
set -euo pipefail

kdir=$1 results=$2 script=$3
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$kdir/arch/x86/boot/bzImage
[ -f "$kernel" ] || { echo "vm-run: no kernel at $kernel" >&2; exit 2; }
script=$(realpath "$script")
mkdir -p "$results"
results=$(realpath "$results")

# Kernel parameters with '=' that the kernel does not know reach init's
# environment; that is how the guest learns what to run.
#
# tsc=reliable: TCG's TSC follows the host clock on every vCPU, but under
# load the clocksource watchdog sees it drift against the emulated HPET,
# marks it unstable and moves the guest to the HPET, whose every read is
# an emulated MMIO access.  That happened 40 to 60 s into most bench runs
# and made every later packet pay for several clock reads.
#
# log_buf_len: a kernel ring of 16 MiB, not the config's 128 KiB, so that
# guest/init's reader of the whole log (kmsg.log) does not fall behind it
# in a burst, and dmesg.log holds more than the last few minutes.
append="console=ttyS0,115200 panic=-1 quiet loglevel=4 kunit.enable=1
	tsc=reliable log_buf_len=16M
	root=hostroot rootfstype=9p ro
	rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose
	init=$top/scripts/guest/init
	SW_DDP_TOP=$top SW_DDP_KDIR=$kdir SW_DDP_SCRIPT=$script
	${VM_APPEND:-}"

# q35, not pc: both kernels have ACPI (under TCG, SeaBIOS's MP table
# lists only the boot CPU), and the pc machine's DSDT computes its PCI
# interrupt routing (_PRT) in an AML While loop that, under KASAN and
# TCG, runs past ACPICA's loop timeout: 80 s of boot and soft lockup
# reports.  q35's routing tables are static packages.
rc=0
timeout --foreground -k 10 "${VM_TIMEOUT:-1800}" \
	qemu-system-x86_64 \
	-nodefaults -nographic -no-reboot \
	-machine q35 -accel tcg,thread=multi -cpu max \
	-smp "${VM_SMP:-$(nproc)}" -m "${VM_MEM:-3G}" \
	-kernel "$kernel" -append "$(echo $append)" \
	-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
	-fsdev local,id=results,path="$results",security_model=none \
	-device virtio-9p-pci,fsdev=results,mount_tag=results \
	-device virtio-rng-pci \
	-serial file:"$results/console.log" \
	-monitor none ${VM_QEMU_ARGS:-} </dev/null || rc=$?

if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "vm-run: the VM timed out after ${VM_TIMEOUT:-1800}s" >&2
	exit 124
fi
if [ $rc -ne 0 ]; then
	echo "vm-run: qemu failed ($rc)" >&2
	exit $rc
fi
if [ ! -f "$results/exit-status" ]; then
	echo "vm-run: the guest stopped before its script finished" >&2
	tail -n 40 "$results/console.log" >&2 || true
	exit 1
fi
exit "$(cat "$results/exit-status")"
