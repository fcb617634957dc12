# sampler - the recorder.  Its objects live in build/sampler-objs/, because
# build/sampler is the program itself.
SAMPLER_SRCS := main engine events snapshot record regs tasks procfs host launch signals summary tune quiet cpuclock job window attach \
	callstack unwind tracers buildid preempt mapwatch
SAMPLER_OBJS := $(patsubst %,$(BUILD)/sampler-objs/%.o,$(SAMPLER_SRCS))

PROGRAMS += $(BUILD)/sampler
$(BUILD)/sampler: $(SAMPLER_OBJS) $(TOP_OBJS) $(TOP_EXPORT_OBJS) $(PMU_OBJS) $(PROFILE_OBJS) \
		$(COMMON_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) $(PMU_LDLIBS) $(TOP_LDLIBS) -ldw -lelf -lm

$(BUILD)/sampler-objs/%.o: sampler/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
