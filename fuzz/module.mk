# fuzz/: libFuzzer target over the profile reader and the exporters (clang).
# `make` builds it when clang is installed; `make fuzz` runs it for a while.
FUZZ_CC ?= clang
FUZZ_TIME ?= 120
FUZZ_CFLAGS = -g -O1 -std=gnu11 -Wall -Wextra -D_GNU_SOURCE -DSAMPLER_VERSION='"$(VERSION)"' \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJS = $(patsubst $(BUILD)/%,$(BUILD)/fuzz-obj/%,$(EXPORT_OBJS) $(PROFILE_OBJS) $(COMMON_OBJS))

ifneq ($(shell command -v $(FUZZ_CC) 2>/dev/null),)
TEST_PROGRAMS += $(BUILD)/fuzz/fuzz-export
endif

$(BUILD)/fuzz-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(BUILD)/fuzz/fuzz-export: $(BUILD)/fuzz-obj/fuzz/fuzz_export.o $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS) $(EXPORT_LDLIBS)

# New inputs go to build/fuzz/corpus; fuzz/corpus holds the committed seeds.
fuzz: $(BUILD)/fuzz/fuzz-export
	@mkdir -p $(BUILD)/fuzz/corpus
	$(BUILD)/fuzz/fuzz-export -max_total_time=$(FUZZ_TIME) -timeout=10 \
		-artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/corpus fuzz/corpus

.PHONY: fuzz
