# SPDX-License-Identifier: GPL-2.0
#
# sw_ddp: out-of-tree build and the project's entry points.
#
#   make [KDIR=<kernel build dir>]   build drivers/sw_ddp/sw_ddp.ko
#   make KDIR=<dir> kunit            build the KUnit test module too
#   make install                     install into /lib/modules (as root)
#   make check                       the whole test suite in a QEMU VM
#   make demo                        boot the VM and show sw_ddp at work
#   make icount                      kernel instructions per message, vs siw
#   make fuzz                        the fuzz cases on new seeds, FUZZ_MINUTES
#   make compat-check                build against Debian 12's 6.1 headers
#   make checkpatch                  checkpatch --strict over our sources

KDIR ?= /lib/modules/$(shell uname -r)/build
SRC := $(CURDIR)

.PHONY: all modules kunit install clean check demo bench icount fuzz \
	compat-check checkpatch

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(SRC) modules

kunit:
	@grep -qs '^CONFIG_KUNIT=y' $(KDIR)/.config || \
		{ echo "kunit: $(KDIR) is not configured with CONFIG_KUNIT=y" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(SRC) modules

install:
	$(MAKE) -C $(KDIR) M=$(SRC) modules_install
	depmod -a

clean:
	$(MAKE) -C $(KDIR) M=$(SRC) clean

check:
	@scripts/check.sh

demo:
	@scripts/demo.sh

bench:
	@scripts/bench.sh

icount:
	@scripts/icount.sh

fuzz:
	@scripts/fuzz.sh

compat-check:
	@scripts/compat-check.sh

checkpatch:
	@scripts/checkpatch.sh
