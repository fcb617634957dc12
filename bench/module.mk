# bench/: generators for the benchmarks (and the export tests' fixtures).
TEST_PROGRAMS += $(BUILD)/bench/genprofile
$(BUILD)/bench/genprofile: $(BUILD)/bench/genprofile.o $(PROFILE_OBJS) $(COMMON_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# Bare measurements the engine is judged by (issue 14, docs/SCALING.md).
TEST_PROGRAMS += $(BUILD)/bench/ptfloor $(BUILD)/bench/detect
$(BUILD)/bench/ptfloor: $(BUILD)/bench/ptfloor.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^
$(BUILD)/bench/detect: $(BUILD)/bench/detect.o $(BUILD)/common/switchevent.o
	$(CC) $(ALL_LDFLAGS) -pthread -o $@ $^
