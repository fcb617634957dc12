# symbols/ - symbol lookup: a profile's code addresses to files and
# functions (symbols.h is the interface), linked into sampler-export and
# sampler top.
SYMBOLS_OBJS := $(BUILD)/symbols/symbols.o $(BUILD)/symbols/dso.o \
	$(BUILD)/symbols/debugfile.o $(BUILD)/symbols/symcache.o $(BUILD)/symbols/plt.o \
	$(BUILD)/symbols/demangle.o $(BUILD)/symbols/perfmap.o $(BUILD)/symbols/inlines.o \
	$(BUILD)/common/buildid.o
