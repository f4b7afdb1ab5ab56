# SPDX-License-Identifier: GPL-2.0
# Shared by make bench and make icount (sourced, not run): the bench
# kernel and the modules built for it.

# bench_prepare NAME: sets top, results (SW_DDP_RESULTS, default
# results/NAME, emptied; the VM's share is results/vm), kdir (the bench
# kernel, built once and cached) and tree: a copy of the tree with the
# modules built for that kernel, so the tree's own build (for the debug
# kernel) is left alone.  A VM started from the copy's vm-run.sh finds
# the modules there.
bench_prepare() {
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	results=${SW_DDP_RESULTS:-$top/results/$1}
	rm -rf "$results"
	mkdir -p "$results/vm"

	"$top/scripts/install-deps.sh" bench
	kdir=$("$top/scripts/build-kernel.sh" bench)

	tree=$results/tree
	mkdir -p "$tree"
	tar -C "$top" --exclude=./results --exclude=./.git -cf - . |
		tar -C "$tree" -xf -
	make -C "$tree" KDIR="$kdir" clean >/dev/null
	{ make -C "$tree" KDIR="$kdir" -j"$(nproc)" &&
		make -C "$tree/tools"; } > "$results/build.log" 2>&1 ||
		{ tail -20 "$results/build.log"; exit 1; }
}
