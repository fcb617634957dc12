PMU_OBJS := $(BUILD)/pmu/pmu.o $(BUILD)/pmu/registry.o $(BUILD)/pmu/none.o
