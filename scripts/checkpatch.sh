#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch --strict over every C source and header of ours.
#
# LINUX_VERSION_CODE is ignored: compat.h must key on the kernel version,
# which is what an out-of-tree module built for 6.1 and 6.12 is for.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${KDIR:-$("$top/scripts/build-kernel.sh" debug)}
cd "$top"
if git rev-parse --git-dir >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h')
else
	mapfile -t files < <(find drivers include kunit tools -name '*.[ch]' \
			     -not -name '*.mod.c' | sort)
fi
"$kdir/scripts/checkpatch.pl" --no-tree --strict --quiet \
	--ignore LINUX_VERSION_CODE -f "${files[@]}"
