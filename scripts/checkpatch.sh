#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch --strict over every C source and header of ours.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=${KDIR:-$("$top/scripts/build-kernel.sh" debug)}
cd "$top"
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h')
"$kdir/scripts/checkpatch.pl" --no-tree --strict --quiet \
	-f "${files[@]}"
