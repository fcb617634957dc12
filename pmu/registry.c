/* registry.c - the table of every PMU plug-in.  Adding a plug-in is one
 * extern line and one table entry here. */
#include "pmu.h"

extern const struct pmu_ops pmu_none;
extern const struct pmu_ops pmu_rapl;
extern const struct pmu_ops pmu_rapl_perf;
extern const struct pmu_ops pmu_perf;
extern const struct pmu_ops pmu_sensors;
extern const struct pmu_ops pmu_scpi;

const struct pmu_ops *const pmu_registry[] = {
	&pmu_none,
	&pmu_rapl,
	&pmu_rapl_perf,
	&pmu_perf,
	&pmu_sensors,
	&pmu_scpi,
	NULL,
};
