# tests/sampler/ - unit tests of the recorder's modules (t1091-*.sh).
TEST_PROGRAMS += $(BUILD)/tests/summary-check
$(BUILD)/tests/summary-check: $(BUILD)/tests/sampler/summary-check.o \
		$(BUILD)/sampler-objs/summary.o $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) -lm

# map_list_insert: a mapping over others (t1222)
TEST_PROGRAMS += $(BUILD)/tests/maplist-check
$(BUILD)/tests/maplist-check: $(BUILD)/tests/sampler/maplist-check.o \
		$(BUILD)/sampler-objs/procfs.o $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# thread-cpu: threads that measure their own CPU time (t1011)
TEST_PROGRAMS += $(BUILD)/tests/thread-cpu
$(BUILD)/tests/thread-cpu: $(BUILD)/tests/sampler/thread-cpu.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) -lpthread
