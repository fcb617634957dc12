# fuzz/: libFuzzer targets (clang).  `make` builds them when clang is
# installed; make check runs each briefly (t3040, t5030); `make fuzz` runs
# each for FUZZ_TIME seconds.
#   fuzz-export    the profile reader and every exporter
#   fuzz-pmu-args  the plug-ins' argument parsers (pmu/args.c, scpi, rapl)
#   fuzz-pmu-text  device and sysfs text (sysfs numbers, scpi replies, powercap)
FUZZ_CC ?= clang
FUZZ_TIME ?= 120
# Fixed instrumentation, whatever CFLAGS says; the project's flags as for
# every other object (BASIC_CFLAGS, Makefile).
FUZZ_CFLAGS = $(BASIC_CFLAGS) -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJS = $(patsubst $(BUILD)/%,$(BUILD)/fuzz-obj/%,$(EXPORT_OBJS) $(PROFILE_OBJS) $(COMMON_OBJS))
FUZZ_PMU_OBJS = $(patsubst $(BUILD)/%,$(BUILD)/fuzz-obj/%,$(PMU_OBJS) $(COMMON_OBJS)) \
	$(BUILD)/fuzz-obj/fuzz/fake-sysfs.o
FUZZERS := $(BUILD)/fuzz/fuzz-export $(BUILD)/fuzz/fuzz-pmu-args $(BUILD)/fuzz/fuzz-pmu-text

ifneq ($(shell command -v $(FUZZ_CC) 2>/dev/null),)
TEST_PROGRAMS += $(FUZZERS)
endif

$(BUILD)/fuzz-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(BUILD)/fuzz/fuzz-export: $(BUILD)/fuzz-obj/fuzz/fuzz_export.o $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS) $(EXPORT_LDLIBS)

$(BUILD)/fuzz/fuzz-pmu-%: $(BUILD)/fuzz-obj/fuzz/fuzz_pmu_%.o $(FUZZ_PMU_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS) $(PMU_LDLIBS)

# New inputs go to build/fuzz/corpus-*; fuzz/corpus* hold the committed
# seeds (fuzz/corpus: profiles, fuzz/corpus-pmu-*: plug-in text).
fuzz: $(FUZZERS)
	@mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/corpus-pmu-args $(BUILD)/fuzz/corpus-pmu-text
	$(BUILD)/fuzz/fuzz-export -max_total_time=$(FUZZ_TIME) -timeout=10 \
		-artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus fuzz/corpus
	$(BUILD)/fuzz/fuzz-pmu-args -max_total_time=$(FUZZ_TIME) -timeout=10 \
		-artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-pmu-args fuzz/corpus-pmu-args
	$(BUILD)/fuzz/fuzz-pmu-text -max_total_time=$(FUZZ_TIME) -timeout=10 \
		-artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus-pmu-text fuzz/corpus-pmu-text

.PHONY: fuzz
