#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make fuzz`, guest side (scripts/fuzz.sh): the KUnit fuzz cases again
# and again, each round on seeds of its own, until the time is up.
# Round r loads the test module with seed_base = base + r * stride, so
# no two rounds share a seed.  Each round's KTAP goes to round-R/, a line
# per round to rounds, and the kernel log marks where each round starts.
results=$1
. "$(dirname "$0")/lib.sh"
. "$results/fuzz.conf"

kmemleak_clear
echo -n "$FUZZ_SUITES" > /sys/module/kunit/parameters/filter_glob
end=$(($(date +%s) + FUZZ_MINUTES * 60))
r=0
while [ "$(date +%s)" -lt "$end" ]; do
	base=$((FUZZ_BASE + r * FUZZ_STRIDE))
	start=$(date +%s)
	echo "fuzz: round $r, seed_base $base" > /dev/kmsg
	kunit_load "$results/round-$r" seed_base="$base" ||
		{ echo "round $r: the modules failed"; exit 1; }
	echo "$r $base $(($(date +%s) - start))" >> "$results/rounds"
	r=$((r + 1))
done
t "kmemleak: no leaks" kmemleak_none
exit 0
