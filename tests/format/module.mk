# tests/format/ - helper programs of the format tests (t0*-*.sh).
TEST_PROGRAMS += $(BUILD)/tests/profile-synth
$(BUILD)/tests/profile-synth: $(BUILD)/tests/format/profile-synth.o $(PROFILE_OBJS) $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
