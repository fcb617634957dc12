# sampler - top-level build.  Each directory adds its programs and objects in
# its own module.mk; this file holds what they share.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
# The one version number lives in scripts/samplerlib/__init__.py (the Python
# package's build reads it there too).
VERSION := $(shell sed -n 's/^VERSION = "\([^"]*\)".*/\1/p' scripts/samplerlib/__init__.py)

# CFLAGS, CPPFLAGS and LDFLAGS are the builder's (make CFLAGS=-O0, or a
# distribution's own); the project's flags are added to them, never replaced
# (after git's ALL_CFLAGS).  Every compile line uses ALL_CFLAGS, every link
# line ALL_LDFLAGS (CFLAGS too: -fsanitize and -flto must reach the linker).
CC       ?= gcc
CFLAGS   ?= -O2 -g
CPPFLAGS ?=
LDFLAGS  ?=
BASIC_CFLAGS := -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -DSAMPLER_VERSION='"$(VERSION)"' -MMD -MP
ALL_CFLAGS    = $(BASIC_CFLAGS) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS   = $(CFLAGS) $(LDFLAGS)
LDLIBS  :=

# Debian packages every part needs (make deps installs the missing ones).
DEB_PACKAGES := gcc g++ make libbz2-dev libpfm4-dev libsensors-dev libelf-dev libdw-dev \
	linux-perf python3 python3-matplotlib python3-pytest clang libclang-rt-14-dev \
	valgrind util-linux libc6-dbg python3-numpy python3-setuptools python3-pip python3-venv \
	python3-pyflakes flake8 openmpi-bin libopenmpi-dev libiberty-dev chromium chromium-driver python3-pyte \
	python3-selenium libncurses-dev python3-mypy python3-mpi4py \
	zlib1g-dev golang-go

# Objects shared by every program.
COMMON_OBJS := $(BUILD)/common/error.o $(BUILD)/common/channel.o $(BUILD)/common/fdio.o \
	$(BUILD)/common/idmap.o $(BUILD)/common/stdfds.o $(BUILD)/common/outfile.o \
	$(BUILD)/common/grow.o $(BUILD)/common/switchevent.o \
	$(BUILD)/common/textescape.o $(BUILD)/common/json.o
COMMON_OBJS += $(BUILD)/common/parseopt.o

PROGRAMS :=
TEST_PROGRAMS :=

all: programs scripts-bin

# Every directory (and tests/*/) describes its own programs in module.mk.
# (the rooms others link first: their object lists are read at once)
FIRST_MODULES := profile/module.mk pmu/module.mk symbols/module.mk energy/module.mk top/module.mk
include $(FIRST_MODULES)
include $(filter-out $(FIRST_MODULES),$(sort $(wildcard */module.mk tests/*/module.mk)))

programs: $(PROGRAMS) $(TEST_PROGRAMS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The scripts run from $(BUILD) next to the C programs (PATH=$(BUILD):$$PATH),
# whatever python3 comes first on the user's PATH (pyenv, conda): as git puts
# its PYTHON_PATH into its scripts at build time, the interpreter make deps
# provisioned, $(PYTHON), goes into their first line, and the source tree's
# samplerlib onto their module path.
SCRIPTS := sampler-report sampler-compare sampler-plot sampler-import
SCRIPT_BINS := $(addprefix $(BUILD)/,$(SCRIPTS))

scripts-bin: $(SCRIPT_BINS)

# $(call script_cmd,SOURCE,TARGET,LIBDIR): a command that runs $(PYTHON)
# with samplerlib from LIBDIR first on its path (the build's commands and
# the installed ones alike: an installed command works at any PREFIX).
script_cmd = sed -e '1s|^\#!.*|\#!$(PYTHON)|' \
		-e 's|os.path.dirname(os.path.realpath(__file__))|"$(3)"|' $(1) >$(2)+ && \
	{ grep -q '^sys.path.insert(0, "$(3)")' $(2)+ || { rm -f $(2)+; \
		echo "$(1): no sys.path line to point at $(3)" >&2; exit 1; }; } && \
	chmod 755 $(2)+ && mv $(2)+ $(2)

$(SCRIPT_BINS): $(BUILD)/%: scripts/% Makefile
	@mkdir -p $(dir $@)
	$(call script_cmd,$<,$@,$(CURDIR)/scripts)

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "deps: installing $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else echo "deps: missing packages; run: sudo apt-get install -y $$missing"; exit 1; fi
	@$(MAKE) --no-print-directory speedscope
	@$(MAKE) --no-print-directory pprof-format

# speedscope's viewer (its npm package's static page), for the browser test
# of our speedscope export (t4700): installed once into $(SPEEDSCOPE_DIR),
# then used offline.  npm comes with Node.js (Debian: npm).
SPEEDSCOPE_VERSION ?= 1.25.0
SPEEDSCOPE_DIR ?= $(BUILD)/npm
speedscope:
	@if [ -f $(SPEEDSCOPE_DIR)/node_modules/speedscope/dist/release/index.html ]; then \
		echo "deps: speedscope present in $(SPEEDSCOPE_DIR)"; \
	elif ! command -v npm >/dev/null; then \
		echo "deps: npm is missing: speedscope's viewer is not installed (apt-get install npm; the browser test skips it)"; \
	else \
		echo "deps: npm install speedscope@$(SPEEDSCOPE_VERSION) into $(SPEEDSCOPE_DIR)"; \
		mkdir -p $(SPEEDSCOPE_DIR) && npm install --prefix $(SPEEDSCOPE_DIR) --no-audit --no-fund \
			--no-save --loglevel=error speedscope@$(SPEEDSCOPE_VERSION) >/dev/null || \
		echo "deps: npm install speedscope failed (the browser test skips it)"; \
	fi

# The npm pprof-format decoder, for t3220's check of the pprof export:
# installed the same way, in a prefix of its own under $(SPEEDSCOPE_DIR)
# (npm install --no-save into one prefix removes what another put there).
PPROF_FORMAT_VERSION ?= 2.3.2
PPROF_FORMAT_DIR ?= $(SPEEDSCOPE_DIR)/pprof-format
pprof-format:
	@if [ -f $(PPROF_FORMAT_DIR)/node_modules/pprof-format/package.json ]; then \
		echo "deps: pprof-format present in $(PPROF_FORMAT_DIR)"; \
	elif ! command -v npm >/dev/null; then \
		echo "deps: npm is missing: pprof-format is not installed (apt-get install npm; t3220 skips it)"; \
	else \
		echo "deps: npm install pprof-format@$(PPROF_FORMAT_VERSION) into $(PPROF_FORMAT_DIR)"; \
		mkdir -p $(PPROF_FORMAT_DIR) && npm install --prefix $(PPROF_FORMAT_DIR) --no-audit --no-fund \
			--no-save --loglevel=error pprof-format@$(PPROF_FORMAT_VERSION) >/dev/null || \
		echo "deps: npm install pprof-format failed (t3220 skips it)"; \
	fi

# make check: every test on the plain build, then the C tools' tests (t0-t3
# and the hardening faults t5; not the Python scripts' t4, nor the fuzz,
# valgrind and sanitizer checks, which bring their own instrumentation) on
# an AddressSanitizer + UBSan build in build-asan/, where any report fails
# the test.
ASAN_BUILD  ?= build-asan
ASAN_CFLAGS ?= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
ASAN_TESTS  ?= t[0-35]
ASAN_SKIP   ?= t3040-export-fuzz t5010-hardening-valgrind t5020-hardening-sanitizers t5030-hardening-fuzz
ASAN_ENV = ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:halt_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	SAMPLER_SKIP_SCRIPTS='$(ASAN_SKIP)' BUILD=$(CURDIR)/$(ASAN_BUILD)

# Both passes always run; the last line adds them up.
check: deps
	$(MAKE) all
	$(MAKE) asan-build
	@tests/run | tee $(BUILD)/check-plain.log; \
	echo "*** the C tests again on the sanitizer build ($(ASAN_BUILD)/)"; \
	$(ASAN_ENV) tests/run '$(ASAN_TESTS)' | tee $(BUILD)/check-asan.log; \
	cat $(BUILD)/check-plain.log $(BUILD)/check-asan.log | awk ' \
		/^failed in:/ { again = 0 } \
		again { tails = tails $$0 "\n" } \
		/^\*\*\* the failures again/ { again = 1; tails = tails "*** failures of the " (runs ? "sanitizer" : "plain") " pass:\n" } \
		/^[0-9]+ passed, [0-9]+ failed$$/ { runs++; p += $$1; f += $$3 } \
		END { printf "%s", tails; \
		      if (runs != 2) { print "make check: a test pass did not finish"; f++ } \
		      print "plain and sanitizer passes together:"; \
		      print p " passed, " f " failed"; exit (f > 0) }'

check-asan: deps
	$(MAKE) all
	$(MAKE) asan-build
	$(ASAN_ENV) tests/run '$(ASAN_TESTS)'

# The sanitizer build's CFLAGS are given on the sub-make's command line, so
# that they win over a CFLAGS the outer make was given (make CFLAGS=-O0
# check); the Makefile adds its own flags to them; workloads keep fixed flags.
asan-build:
	$(MAKE) BUILD=$(ASAN_BUILD) CC=clang FUZZ_CC=no-fuzzer CFLAGS='$(ASAN_CFLAGS)' programs

# Long runs, figures only (docs/RELIABILITY.md): load and memory.
soak: all
	SAMPLER_SOAK=1 bench/soak.sh

demo: deps
	$(MAKE) all
	PYTHON=$(PYTHON) examples/demo.sh

bench: deps
	$(MAKE) all
	bench/run

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 docs/sampler.1 docs/sampler-top.1 docs/sampler-export.1 docs/sampler-profile.1 \
		docs/sampler-report.1 docs/sampler-compare.1 docs/sampler-plot.1 docs/sampler-import.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/
	install -d $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 644 docs/sampler-tools.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	$(MAKE) install-scripts

# The Python scripts are a Python project (scripts/pyproject.toml): pip
# builds the package samplerlib offline, installed where $(PYTHON) finds it
# under PREFIX (its packages directory; else $(PREFIX)/lib/sampler/python).
# The four commands name that directory on their module path, as the
# build's do (git's perl scripts do the same): they work as installed at
# any PREFIX, without PYTHONPATH.  `pip install ./scripts` in a venv makes
# plain entry points instead.
PYTHON ?= /usr/bin/python3
PYTHON_SITE ?= $(shell $(PYTHON) -c 'import sys; print(next((p for p in sys.path \
	if p.startswith("$(PREFIX)/lib/") and p.endswith("-packages")), "$(PREFIX)/lib/sampler/python"))')
PIP_OFFLINE := --quiet --no-deps --no-build-isolation --no-index --no-compile --disable-pip-version-check

install-scripts:
	rm -rf $(BUILD)/pip-target $(BUILD)/pip-source
	mkdir -p $(BUILD)
	cp -R scripts $(BUILD)/pip-source	# pip builds in place: not in the source tree
	$(PYTHON) -m pip install $(PIP_OFFLINE) --target $(BUILD)/pip-target $(BUILD)/pip-source
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PYTHON_SITE)
	rm -rf $(DESTDIR)$(PYTHON_SITE)/samplerlib $(DESTDIR)$(PYTHON_SITE)/sampler_tools-*.dist-info
	cp -R $(BUILD)/pip-target/samplerlib $(BUILD)/pip-target/sampler_tools-*.dist-info \
		$(DESTDIR)$(PYTHON_SITE)/
	for s in $(SCRIPTS); do \
		$(call script_cmd,scripts/$$s,$(DESTDIR)$(PREFIX)/bin/$$s,$(PYTHON_SITE)) || exit 1; \
	done
	rm -rf $(BUILD)/pip-target $(BUILD)/pip-source

clean:
	rm -rf $(BUILD)

.PHONY: all programs scripts-bin deps speedscope pprof-format check check-asan asan-build soak demo bench install install-scripts clean

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
