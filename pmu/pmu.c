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

int pmu_probe(const struct pmu_ops *ops, struct error *why)
{
	void *state;

	if (ops->probe)
		return ops->probe(why);
	if (ops->init(&state, NULL, why) < 0)
		return -1;
	ops->release(state);
	return 0;
}

void pmu_print_help(FILE *out)
{
	fprintf(out, "PMU plug-ins (-p NAME[:ARGS], repeatable; docs/PLUGINS.md):\n");
	for (const struct pmu_ops *const *p = pmu_registry; *p; p++) {
		struct error why = { "" };

		fprintf(out, "  %s\n      %s\n", (*p)->syntax, (*p)->summary);
		if (pmu_probe(*p, &why) < 0) {
			fprintf(out, "      not usable here: %s\n", why.msg);
			continue;
		}
		fprintf(out, "      usable on this machine");
		if ((*p)->list) {
			fputs("; ", out);
			(*p)->list(out);
		}
		fputc('\n', out);
	}
}

int pmu_check(const char *spec, FILE *out, struct error *err)
{
	struct pmu_set set = { .n = 0 };
	const struct pmu_instance *in;
	int ret;

	if (pmu_set_add(&set, spec, err) < 0)
		return -1;
	in = &set.inst[0];
	if (in->ops->check)
		ret = in->ops->check(in->state, out, err);
	else
		ret = error_set(err, "%s: no check for this plug-in (sampler -p help says whether it is usable here; -p help=scpi:ADDRESS checks a meter)",
				in->ops->name);
	pmu_set_release(&set);
	return ret;
}

const char *pmu_sysfs_root(void)
{
	const char *root = getenv("SAMPLER_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

/* Refuse what would make the set ambiguous: a second instance of a
 * single-instance plug-in, or a channel name given twice, in this
 * instance or by another one. */
static int check_unique(const struct pmu_set *set, const struct pmu_instance *in,
			struct error *err)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct pmu_instance *old = &set->inst[i];

		if (old->ops == in->ops && in->ops->single_instance)
			return error_set(err, "%s: given twice (use one -p %s:A,B,... listing everything)",
					 in->ops->name, in->ops->name);
		for (size_t a = 0; a < old->nchannels; a++)
			for (size_t b = 0; b < in->nchannels; b++)
				if (strcmp(old->channels[a].name, in->channels[b].name) == 0)
					return error_set(err, "%s: channel '%s' is already recorded by -p %s (name each channel once%s)",
							 in->ops->name, in->channels[b].name, old->ops->name,
							 in->ops == old->ops ? "; list all items in one -p option" : "");
	}
	for (size_t a = 0; a < in->nchannels; a++)
		for (size_t b = a + 1; b < in->nchannels; b++)
			if (strcmp(in->channels[a].name, in->channels[b].name) == 0)
				return error_set(err, "%s: channel '%s' is given twice (name each channel once)",
						 in->ops->name, in->channels[a].name);
	return 0;
}

/* A profile holds CHANNEL_MAX_PER_RUN channels: refuse more here, before
 * the target starts, rather than drop any. */
static int check_count(const struct pmu_set *set, const struct pmu_instance *in,
		       struct error *err)
{
	size_t before = set->nsample + set->nthread;

	if (before + in->nchannels <= CHANNEL_MAX_PER_RUN)
		return 0;
	if (before)
		return error_set(err, "%s: %zu channels, with the %zu of the -p options before it, are more than the %d a run can record (record fewer; split them over several runs)",
				 in->ops->name, in->nchannels, before, CHANNEL_MAX_PER_RUN);
	return error_set(err, "%s: %zu channels are more than the %d a run can record (record fewer; split them over several runs)",
			 in->ops->name, in->nchannels, CHANNEL_MAX_PER_RUN);
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
	in->nchannels = 0;
	if (in->ops->single_instance && check_unique(set, in, err) < 0)
		return -1;
	if (in->ops->init(&in->state, args, err) < 0)
		return -1;
	in->nchannels = in->ops->channels(in->state, &in->channels);
	if (check_count(set, in, err) < 0 || check_unique(set, in, err) < 0) {
		in->ops->release(in->state);
		return -1;
	}
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
		for (size_t c = 0; c < set->inst[i].nchannels; c++, n++)
			if (n < max)
				out[n] = set->inst[i].channels[c];
	return n;
}

/* All or nothing: when one plug-in cannot follow the thread, the ones that
 * already did let it go again. */
int pmu_set_attach(struct pmu_set *set, pid_t tid, struct error *err)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct pmu_instance *in = &set->inst[i];

		if (in->ops->attach && in->ops->attach(in->state, tid, err) < 0) {
			while (i-- > 0)
				if (set->inst[i].ops->detach)
					set->inst[i].ops->detach(set->inst[i].state, tid);
			return -1;
		}
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

/* After a read: a failure goes to the caller, a warning to stderr now
 * (plug-in messages already start with the plug-in's name). */
static int read_result(const struct pmu_set *set, int ret, const struct error *got,
		       struct error *err)
{
	if (ret < 0) {
		if (err)
			*err = *got;
		return -1;
	}
	if (got->msg[0])
		warn_print(set->prog ? set->prog : "sampler", "%s", got->msg);
	return 0;
}

int pmu_set_read(struct pmu_set *set, double *values, struct error *err)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct pmu_instance *in = &set->inst[i];
		struct error got;

		got.msg[0] = '\0';
		if (in->nsample &&
		    read_result(set, in->ops->read(in->state, values, &got), &got, err) < 0)
			return -1;
		values += in->nsample;
	}
	return 0;
}

int pmu_set_read_thread(struct pmu_set *set, pid_t tid, uint64_t *values, struct error *err)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct pmu_instance *in = &set->inst[i];
		struct error got;

		got.msg[0] = '\0';
		if (in->nthread &&
		    read_result(set, in->ops->read_thread(in->state, tid, values, &got), &got, err) < 0)
			return -1;
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

void pmu_set_refused(const struct pmu_set *set, struct channel_refused *out)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct pmu_instance *in = &set->inst[i];

		memset(out, 0, in->nsample * sizeof(*out));
		if (in->nsample && in->ops->refused)
			in->ops->refused(in->state, out);
		out += in->nsample;
	}
}
