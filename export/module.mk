# sampler-export: profiles to perf.data, CSV, pperf and summaries.
EXPORT_OBJS := $(BUILD)/export/export.o $(BUILD)/export/perfdata.o \
	$(BUILD)/export/perfheader.o $(BUILD)/export/features.o $(BUILD)/export/csv.o \
	$(BUILD)/export/pperf.o $(BUILD)/export/info.o $(BUILD)/export/textout.o \
	$(BUILD)/export/rows.o $(BUILD)/export/columns.o $(BUILD)/export/merge.o \
	$(BUILD)/export/folded.o $(BUILD)/export/stackfmt.o $(BUILD)/export/speedscope.o \
	$(BUILD)/export/weight.o $(BUILD)/export/framenames.o \
	$(BUILD)/export/tasknames.o $(BUILD)/export/firefox.o \
	$(BUILD)/common/intern.o $(BUILD)/export/protobuf.o $(BUILD)/export/pprof.o \
	$(SYMBOLS_OBJS) $(ENERGY_OBJS)
# libiberty (libiberty-dev): cplus_demangle, as perf and c++filt use it;
# libdw (libdw-dev): the inline scopes of an address, as perf reads them;
# zlib (zlib1g-dev): the pprof output's gzip
EXPORT_LDLIBS := -ldw -lelf -liberty -lm -lz

PROGRAMS += $(BUILD)/sampler-export
$(BUILD)/sampler-export: $(BUILD)/export/main.o $(EXPORT_OBJS) $(PROFILE_OBJS) $(COMMON_OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS) $(EXPORT_LDLIBS)
