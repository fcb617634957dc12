# top - sampler top, the live view: linked into the sampler program, with
# the exporter's rows and symbolizer and ncurses (libncurses-dev).
TOP_OBJS := $(BUILD)/top/top.o $(BUILD)/top/table.o $(BUILD)/top/format.o $(BUILD)/top/screen.o \
	$(BUILD)/top/nap.o
# (=: ENERGY_OBJS comes from export/module.mk, read after this file)
TOP_EXPORT_OBJS = $(BUILD)/export/rows.o $(BUILD)/export/symbols.o $(BUILD)/export/symcache.o \
	$(BUILD)/export/dso.o $(BUILD)/export/debugfile.o $(BUILD)/common/buildid.o \
	$(BUILD)/export/plt.o $(BUILD)/export/stackfmt.o $(BUILD)/export/demangle.o \
	$(ENERGY_OBJS) $(BUILD)/export/perfmap.o $(BUILD)/export/inlines.o
TOP_LDLIBS := -lncurses -liberty -lpthread
