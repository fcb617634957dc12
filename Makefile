# sampler - top-level build.  Each directory adds its programs and objects in
# its own module.mk; this file holds what they share.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
VERSION := 0.1.0

CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -DSAMPLER_VERSION='"$(VERSION)"' -MMD -MP
LDLIBS  :=

# Debian packages every part needs (make deps installs the missing ones).
DEB_PACKAGES := gcc make libbz2-dev libpfm4-dev libsensors-dev libelf-dev libdw-dev \
	linux-perf python3 python3-matplotlib python3-pytest clang libclang-rt-14-dev \
	valgrind util-linux libc6-dbg

# Objects shared by every program.
COMMON_OBJS := $(BUILD)/common/error.o $(BUILD)/common/channel.o

PROGRAMS :=
TEST_PROGRAMS :=

all: programs

# Every directory (and tests/*/) describes its own programs in module.mk.
include profile/module.mk pmu/module.mk
include $(filter-out profile/module.mk pmu/module.mk,$(sort $(wildcard */module.mk tests/*/module.mk)))

programs: $(PROGRAMS) $(TEST_PROGRAMS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "deps: installing $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else echo "deps: missing packages; run: sudo apt-get install -y $$missing"; exit 1; fi

check: deps
	$(MAKE) all
	tests/run

demo: deps
	$(MAKE) all
	examples/demo.sh

bench: deps
	$(MAKE) all
	bench/run

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 scripts/sampler-report scripts/sampler-compare scripts/sampler-plot \
		scripts/sampler-import $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/lib/sampler/python/samplerlib
	install -m 644 scripts/samplerlib/*.py $(DESTDIR)$(PREFIX)/lib/sampler/python/samplerlib/
	install -m 644 docs/sampler.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf $(BUILD)

.PHONY: all programs deps check demo bench install clean

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
