# SPDX-License-Identifier: GPL-2.0
#
# umh-sdk top level.  The two commands that matter:
#   make demo    install what is needed, build, boot a guest, show the
#                echo helper answering
#   make check   install what is needed and run every test
#
# make / make modules [KDIR=<kernel build dir>] builds the modules out of
# tree: the samples that `make menuconfig` chose (default: both).  KDIR defaults to the running kernel's build dir when it exists,
# else to the Debian 6.12 headers that scripts/setup.sh installs.

KDIR ?= $(or $(wildcard /lib/modules/$(shell uname -r)/build),\
	     $(wildcard /lib/modules/$(shell scripts/kernels.sh 2>/dev/null | tail -n 1)/build))

all: modules

modules:
	@test -n "$(KDIR)" || { echo "no kernel headers found: run scripts/setup.sh or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# What `make` builds comes from Kconfig (the file Kconfig): the .config
# these write, else the committed defconfig (scripts/Kbuild.config).
# kconfig-frontends runs them out of tree; see Documentation/in-tree.rst.
olddefconfig menuconfig defconfig savedefconfig:
	@test -n "$(KDIR)" || { echo "no kernel headers found: run scripts/setup.sh or pass KDIR=" >&2; exit 1; }
	scripts/kconfig.sh $@ $(KDIR)

clean:
	@test -z "$(KDIR)" || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf build tests/unit/build tests/fuzz/build

setup:
	scripts/setup.sh

unit:
	$(MAKE) -C tests/unit check

# make fuzz [FUZZ_SECONDS=60]: each libFuzzer target (tests/fuzz) for
# FUZZ_SECONDS, building on what earlier runs found (tests/fuzz/build/work).
# make check runs a short pass of the same targets.
FUZZ_SECONDS ?= 60
fuzz:
	$(MAKE) -s -C tests/fuzz fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

lint: setup
	scripts/lint.sh

htmldocs:
	src=$$(scripts/linux-source.sh) && \
	UMH_LINUX_SRC=$$src sphinx-build -W -b html Documentation Documentation/output

demo: setup
	scripts/demo.sh

# check.sh runs scripts/setup.sh itself, in two steps (see there).
check:
	tests/check.sh

bench: setup
	bench/run.sh

.PHONY: all modules olddefconfig menuconfig defconfig savedefconfig clean setup unit fuzz lint htmldocs demo check bench
