#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove the module builds, warning-free with W=1, against Debian 12's stock
# kernel headers (linux-headers-amd64, 6.1).  Builds in a scratch copy so the
# tree's own objects (for the test kernel) are left alone.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${COMPAT_KDIR:-$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -n 1)}
[ -n "$kdir" ] && [ -d "$kdir" ] ||
	{ echo "compat-check: no 6.1 headers (apt-get install linux-headers-amd64)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$top/Kbuild" "$top/drivers" "$top/include" "$work/"
find "$work" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \) -delete

log=$work/build.log
if ! make -C "$kdir" M="$work" W=1 modules >"$log" 2>&1; then
	cat "$log" >&2
	echo "compat-check: build against $kdir failed" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "compat-check: warnings building against $kdir" >&2
	exit 1
fi
echo "compat-check: sw_ddp.ko builds cleanly against $(basename "$kdir")"
