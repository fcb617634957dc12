SAMPLER_OBJS := $(BUILD)/sampler/main.o

PROGRAMS += $(BUILD)/sampler
$(BUILD)/sampler: $(SAMPLER_OBJS) $(PMU_OBJS) $(PROFILE_OBJS) $(COMMON_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
