#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`, guest side: KUnit suites and end-to-end tests.  Each check
# writes a TAP line to $results/e2e.tap; KUnit results go to $results/kunit/.
results=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/devices.sh"
. "$(dirname "$0")/verbs.sh"
. "$(dirname "$0")/tcp.sh"
. "$(dirname "$0")/sctp.sh"
. "$(dirname "$0")/nvme.sh"

kmemleak_clear

# KUnit: the suites run when the test module loads.
t "KUnit module loads and its suites run" kunit_load "$results/kunit"

devices_tests
verbs_tests
tcp_tests
nvme_tests
sctp_tests

t "kmemleak: no leaks" kmemleak_none
exit 0
