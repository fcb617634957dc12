# tests/export: unit tests of the exporter's modules (t3200-*.sh).
TEST_PROGRAMS += $(BUILD)/tests/protobuf-check
$(BUILD)/tests/protobuf-check: $(BUILD)/tests/export/protobuf-check.o $(BUILD)/export/protobuf.o \
	$(COMMON_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
