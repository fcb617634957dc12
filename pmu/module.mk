PMU_OBJS := $(BUILD)/pmu/pmu.o $(BUILD)/pmu/registry.o $(BUILD)/pmu/args.o \
	$(BUILD)/pmu/sysfs.o $(BUILD)/pmu/none.o $(BUILD)/pmu/rapl.o \
	$(BUILD)/pmu/rapl-perf.o $(BUILD)/pmu/perf.o $(BUILD)/pmu/sensors.o \
	$(BUILD)/pmu/scpi.o $(BUILD)/pmu/scpicheck.o $(BUILD)/pmu/scpilink.o $(BUILD)/pmu/powercount.o $(BUILD)/pmu/plausible.o
# Only programs that link the plug-ins need their libraries.
PMU_LDLIBS := -lpfm -lsensors -lpthread
