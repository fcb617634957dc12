/* pmu.c - lookup, help, and the set of active plug-ins of one run. */
#include "pmu.h"

#include <stdlib.h>
#include <string.h>

const struct pmu_ops *pmu_find(const char *name)
{
	for (const struct pmu_ops *const *p = pmu_registry; *p; p++)
		if (strcmp((*p)->name, name) == 0)
			return *p;
	return NULL;
}

void pmu_print_help(FILE *out)
{
	fprintf(out, "PMU plug-ins (-p NAME[:ARGS], repeatable):\n");
	for (const struct pmu_ops *const *p = pmu_registry; *p; p++) {
		struct error why = { "" };
		int usable = (*p)->probe(&why) == 0;

		fprintf(out, "  %-40s %s\n", (*p)->syntax, (*p)->summary);
		if (usable)
			fprintf(out, "  %-40s usable on this machine\n", "");
		else
			fprintf(out, "  %-40s not usable here: %s\n", "", why.msg);
	}
}

const char *pmu_sysfs_root(void)
{
	const char *root = getenv("SAMPLER_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

int pmu_set_add(struct pmu_set *set, const char *spec, struct error *err)
{
	char name[64];
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *args = colon ? colon + 1 : NULL;
	struct pmu_instance *in;

	if (len == 0 || len >= sizeof(name))
		return error_set(err, "bad PMU argument '%s' (use -p NAME[:ARGS]; -p help lists plug-ins)", spec);
	memcpy(name, spec, len);
	name[len] = '\0';
	if (set->n >= PMU_SET_MAX)
		return error_set(err, "too many PMU plug-ins (at most %d -p options)", PMU_SET_MAX);
	in = &set->inst[set->n];
	in->ops = pmu_find(name);
	if (!in->ops)
		return error_set(err, "unknown PMU plug-in '%s' (sampler -p help lists them)", name);
	if (in->ops->init(&in->state, args, err) < 0)
		return -1;
	in->nchannels = in->ops->channels(in->state, &in->channels);
	in->nsample = in->nthread = 0;
	for (size_t i = 0; i < in->nchannels; i++) {
		if (in->channels[i].scope == CHANNEL_PER_SAMPLE)
			in->nsample++;
		else
			in->nthread++;
	}
	set->nsample += in->nsample;
	set->nthread += in->nthread;
	set->n++;
	return 0;
}

size_t pmu_set_channels(const struct pmu_set *set, struct channel_desc *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++)
		for (size_t c = 0; c < set->inst[i].nchannels; c++)
			if (n < max)
				out[n++] = set->inst[i].channels[c];
	return n;
}

int pmu_set_attach(struct pmu_set *set, pid_t tid, struct error *err)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct pmu_instance *in = &set->inst[i];

		if (in->ops->attach && in->ops->attach(in->state, tid, err) < 0)
			return -1;
	}
	return 0;
}

void pmu_set_detach(struct pmu_set *set, pid_t tid)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct pmu_instance *in = &set->inst[i];

		if (in->ops->detach)
			in->ops->detach(in->state, tid);
	}
}

int pmu_set_read(struct pmu_set *set, double *values, struct error *err)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct pmu_instance *in = &set->inst[i];

		if (in->nsample && in->ops->read(in->state, values, err) < 0)
			return error_prefix(err, "pmu %s", in->ops->name);
		values += in->nsample;
	}
	return 0;
}

int pmu_set_read_thread(struct pmu_set *set, pid_t tid, uint64_t *values, struct error *err)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct pmu_instance *in = &set->inst[i];

		if (in->nthread && in->ops->read_thread(in->state, tid, values, err) < 0)
			return error_prefix(err, "pmu %s", in->ops->name);
		values += in->nthread;
	}
	return 0;
}

void pmu_set_release(struct pmu_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		set->inst[i].ops->release(set->inst[i].state);
	set->n = set->nsample = set->nthread = 0;
}
