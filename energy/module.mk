# energy/ - the energy estimate: which code a meter's energy belongs to
# (attribution.h is the interface, docs/ENERGY.md the rule), linked into
# sampler-export and sampler top.
ENERGY_OBJS := $(BUILD)/energy/attribution.o $(BUILD)/energy/estimate.o \
	$(BUILD)/energy/metermodel.o $(BUILD)/energy/spans.o $(BUILD)/energy/spread.o \
	$(BUILD)/energy/runs.o $(BUILD)/energy/nodespans.o $(BUILD)/energy/source.o
