# tests/pmu: programs for the PMU plug-ins' tests.  pmu-probe drives
# struct pmu_set alone (the plug-ins' unit test); pmu-threads follows many
# threads through one set; pmu-workload runs loads with known event counts.
TEST_PROGRAMS += $(BUILD)/tests/pmu-probe $(BUILD)/tests/pmu-threads $(BUILD)/tests/pmu-workload
$(BUILD)/tests/pmu-probe: $(BUILD)/tests/pmu/pmu-probe.o $(PMU_OBJS) $(COMMON_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) $(PMU_LDLIBS)
$(BUILD)/tests/pmu-threads: $(BUILD)/tests/pmu/pmu-threads.o $(PMU_OBJS) $(COMMON_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) $(PMU_LDLIBS) -lpthread
# The workload is profiled: fixed flags, never a sanitizer build's $(CFLAGS)
# (ASan's shadow memory would add page faults; LeakSanitizer fails under ptrace).
$(BUILD)/tests/pmu-workload: tests/pmu/pmu-workload.c
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -o $@ $<
# powercount-check: scpi poll_hz='s count against a simulated meter (t2125).
TEST_PROGRAMS += $(BUILD)/tests/powercount-check
$(BUILD)/tests/powercount-check: $(BUILD)/tests/pmu/powercount-check.o $(BUILD)/pmu/powercount.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) -lm -lpthread
