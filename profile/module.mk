PROFILE_OBJS := $(BUILD)/profile/profile.o
LDLIBS += -lbz2
