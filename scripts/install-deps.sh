#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages sw_ddp needs to build and test
# (`install-deps.sh bench`: and to benchmark).  Only missing packages are
# installed; a machine that has them all is left alone.
set -euo pipefail

packages=(
	# Kernel and module build
	build-essential bc bison flex cpio kmod libelf-dev libssl-dev
	linux-source-6.12 linux-headers-amd64 sparse xz-utils python3
	# The VM
	qemu-system-x86
	# RDMA userspace used inside the VM (from the host root over 9p)
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev
	rdmacm-utils perftest iproute2
	# What the SCTP LLP puts on the wire (dumpcap and tshark, sctp.sh)
	tshark
)
# make bench: the plot
[ "${1:-}" = bench ] && packages+=(gnuplot-nox)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
