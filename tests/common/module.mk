# tests/common: unit tests of the shared modules in common/ (t0010-*.sh).
TEST_PROGRAMS += $(BUILD)/tests/idmap-check
$(BUILD)/tests/idmap-check: $(BUILD)/tests/common/idmap-check.o $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

TEST_PROGRAMS += $(BUILD)/tests/grow-check
$(BUILD)/tests/grow-check: $(BUILD)/tests/common/grow-check.o $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

TEST_PROGRAMS += $(BUILD)/tests/parseopt-check
$(BUILD)/tests/parseopt-check: $(BUILD)/tests/common/parseopt-check.o $(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
