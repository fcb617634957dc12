# examples - workloads the tests, the bench and `make demo` profile.  Built
# -O1 -g with frame pointers and not stripped, so profiles resolve symbols.
EXAMPLE_SRCS := $(wildcard examples/*.c)
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SRCS))
EXAMPLE_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -D_GNU_SOURCE -pthread

TEST_PROGRAMS += $(EXAMPLES)

$(BUILD)/examples/%: examples/%.c examples/workload.h examples/jitcode.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -o $@ $< -lm

# The MPI example, when Open MPI's compiler wrapper is there (make deps
# installs openmpi-bin and libopenmpi-dev).
MPICC := $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
TEST_PROGRAMS += $(BUILD)/examples/mpi_app
$(BUILD)/examples/mpi_app: examples/mpi/mpi_app.c examples/workload.h
	@mkdir -p $(dir $@)
	$(MPICC) $(EXAMPLE_CFLAGS) -o $@ $< -lm
endif
# The call-stack workload again without frame pointers (as Debian builds
# its libraries), for the fp/dwarf comparison of the call-stack tests.
TEST_PROGRAMS += $(BUILD)/examples/calltree-nofp
$(BUILD)/examples/calltree-nofp: examples/calltree.c examples/workload.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -fomit-frame-pointer -o $@ $< -lm

# And without frame pointers nor unwind tables, stripped: no symbols and no
# CFI for its own functions (the call-stack tests' truncated stacks).
TEST_PROGRAMS += $(BUILD)/examples/calltree-stripped
$(BUILD)/examples/calltree-stripped: examples/calltree.c examples/workload.h
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(EXAMPLE_CFLAGS) -fomit-frame-pointer -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -g0 -s $< -lm

# The frameless-leaf workload -O2 with frame pointers, as distributions
# build with -fno-omit-frame-pointer: gcc still gives its leaves no frame;
# clang (the sanitizer build's CC) does, unless told as gcc does it.
$(BUILD)/examples/frameless: examples/frameless.c examples/workload.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -O2 -momit-leaf-frame-pointer -o $@ $< -lm

# The inlined-function workload -O2: its hottest function is inlined into
# its caller (no symbol of its own), for the inlined-frames tests.
$(BUILD)/examples/inlined: examples/inlined.c examples/workload.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -O2 -o $@ $< -lm

# The C++ example (demangling tests), when a C++ compiler is there (g++:
# make deps installs it).
CXX_FOUND := $(shell command -v $(CXX) 2>/dev/null)
ifneq ($(CXX_FOUND),)
TEST_PROGRAMS += $(BUILD)/examples/cxxnames
$(BUILD)/examples/cxxnames: examples/cxxnames.cc examples/workload.h
	@mkdir -p $(dir $@)
	$(CXX) -std=gnu++17 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -o $@ $<
endif

# busy linked at a fixed address (not PIE) and stripped: its PCs resolve to
# no symbol, and its link-time addresses differ from its file offsets (the
# tests of how an unresolved address is printed).
TEST_PROGRAMS += $(BUILD)/examples/busy-nopie-stripped
$(BUILD)/examples/busy-nopie-stripped: examples/busy.c examples/workload.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -no-pie -s -o $@ $< -lm

# remap linked at a fixed address, as node is: the copy of its code it maps
# elsewhere must not hide the program from the unwinder (t1117).
TEST_PROGRAMS += $(BUILD)/examples/remap-nopie
$(BUILD)/examples/remap-nopie: examples/remap.c examples/workload.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -no-pie -o $@ $< -lm

# The libraries examples/dlchurn loads in turn: one source, two names.
TEST_PROGRAMS += $(BUILD)/examples/libchurn-a.so $(BUILD)/examples/libchurn-b.so
$(BUILD)/examples/libchurn-%.so: examples/dlchurn/burn.c examples/workload.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -shared -fPIC -DWHICH=$* -o $@ $<
