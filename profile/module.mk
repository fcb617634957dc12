# profile/ - the one format module every program links (docs/FORMAT.md).
PROFILE_OBJS := $(BUILD)/profile/profile.o $(BUILD)/profile/native-write.o \
	$(BUILD)/profile/native-read.o $(BUILD)/profile/native-thread.o $(BUILD)/profile/pperf.o $(BUILD)/profile/stream.o \
	$(BUILD)/profile/codec.o $(BUILD)/profile/tidtable.o \
	$(BUILD)/profile/textform.o $(BUILD)/profile/stacktree.o
LDLIBS += -lbz2 -lm

PROGRAMS += $(BUILD)/sampler-profile
$(BUILD)/sampler-profile: $(BUILD)/profile/sampler-profile.o $(BUILD)/profile/textbuild.o $(PROFILE_OBJS) $(COMMON_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)
