# top - sampler top, the live view: linked into the sampler program, with
# the exporter's rows and symbolizer and ncurses (libncurses-dev).
TOP_OBJS := $(BUILD)/top/top.o $(BUILD)/top/table.o $(BUILD)/top/format.o $(BUILD)/top/screen.o \
	$(BUILD)/top/nap.o
TOP_EXPORT_OBJS := $(BUILD)/export/rows.o $(BUILD)/export/stackfmt.o \
	$(SYMBOLS_OBJS) $(ENERGY_OBJS)
TOP_LDLIBS := -lncurses -liberty -lpthread
