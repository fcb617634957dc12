# bench/: generators for the benchmarks (and the export tests' fixtures).
TEST_PROGRAMS += $(BUILD)/bench/genprofile
$(BUILD)/bench/genprofile: $(BUILD)/bench/genprofile.o $(PROFILE_OBJS) $(COMMON_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
