#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boot the test VM and show sw_ddp at work between two hosts.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
results=${SW_DDP_RESULTS:-$top/results/demo}
rm -rf "$results"
mkdir -p "$results"

"$top/scripts/install-deps.sh"
kdir=$("$top/scripts/build-kernel.sh" debug)
make -C "$top" KDIR="$kdir" >/dev/null
echo "demo: booting the VM (TCG, about a minute)..."
rc=0
"$top/scripts/vm-run.sh" "$kdir" "$results" "$top/scripts/guest/demo.sh" || rc=$?
cat "$results/guest.log"
exit $rc
