# tests/hardening/ - workloads and helpers of the hardening tests (t5*) and
# of `make soak`.  Built with fixed flags, never $(CFLAGS): in a sanitizer
# build (make check-asan) the profiled programs must stay plain.
HARDENING_SRCS := $(filter-out tests/hardening/lib-%.c,$(wildcard tests/hardening/*.c))
HARDENING_PROGS := $(patsubst tests/hardening/%.c,$(BUILD)/tests/hardening/%,$(HARDENING_SRCS))
HARDENING_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -D_GNU_SOURCE -pthread \
	-MMD -MP

TEST_PROGRAMS += $(HARDENING_PROGS) $(BUILD)/tests/hardening/lib-leak.so

$(BUILD)/tests/hardening/%: tests/hardening/%.c
	@mkdir -p $(dir $@)
	$(CC) $(HARDENING_CFLAGS) -o $@ $< -lm

$(BUILD)/tests/hardening/lib-%.so: tests/hardening/lib-%.c
	@mkdir -p $(dir $@)
	$(CC) $(HARDENING_CFLAGS) -fPIC -shared -o $@ $<
