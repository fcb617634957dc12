/* native-thread.c - a sample's thread-samples in the native format
 * (native-reader.h): PC, CPU time and counter deltas, stack, run and the
 * clock samples with the CPU time charged to them. */
#include "native-reader.h"

#include <string.h>

#include "../common/grow.h"
#include "native.h"

/* A thread runs on one CPU at a time: its CPU time since its previous
 * sample (since boot, CLOCK_MONOTONIC's origin, at its first) cannot
 * exceed the time between them, give or take the stops in which both
 * were read (CPU_SLACK_NS, and a quarter for a clock that drifts).  A
 * counter that ran back wraps to a delta of 2^63 or more. */
#define CPU_SLACK_NS 1000000000ULL
#define COUNTER_BACK (1ULL << 63)

static bool cpu_delta_possible(const struct tid_state *st, uint64_t time_ns, uint64_t delta)
{
	uint64_t since = time_ns > st->seen_ns ? time_ns - st->seen_ns : 0;

	return delta <= since + since / 4 + CPU_SLACK_NS;
}

/* Set right what the recorder never writes (profile_repair_kind). */
static void repair_thread_deltas(struct native_reader *nr, const struct tid_state *st,
				 uint64_t time_ns, uint64_t *cpu_delta, uint64_t *deltas)
{
	if (!cpu_delta_possible(st, time_ns, *cpu_delta)) {
		*cpu_delta = 0;
		nr->head.repaired[PROFILE_REPAIR_CPU]++;
	}
	for (uint32_t j = 0; j < nr->threads.ncounters; j++)
		if (deltas[j] >= COUNTER_BACK) {
			deltas[j] = 0;
			nr->head.repaired[PROFILE_REPAIR_COUNTER]++;
		}
}

/* The reading side of put_thread_deltas (the cumulative values stay as
 * written when a delta is repaired). */
int read_thread_deltas(struct native_reader *nr, struct cursor *c, struct tid_state *st,
			      uint64_t time_ns, uint64_t *cpu_delta, uint64_t *cpu_ns,
			      uint64_t *deltas, uint64_t *counters, struct error *err)
{
	uint64_t *prev = tid_table_counters(&nr->threads, st);

	GET(c, cur_varint, cpu_delta, "thread cpu time");
	st->cpu += *cpu_delta;
	*cpu_ns = st->cpu;
	for (uint32_t j = 0; j < nr->threads.ncounters; j++) {
		GET(c, cur_varint, &deltas[j], "thread counter");
		prev[j] += deltas[j];
		counters[j] = prev[j];
	}
	repair_thread_deltas(nr, st, time_ns, cpu_delta, deltas);
	st->seen_ns = time_ns;
	return 0;
}

/* The reading side of put_stack: every id and node checked against the
 * stacks read so far and the limits. */
static int read_stack(struct native_reader *nr, struct cursor *c, struct tid_state *st,
		      struct profile_thread_sample *t, struct error *err)
{
	struct stack_tree *tree = &nr->stacks;
	uint64_t code, sel, delta, k, prev;
	uint64_t start = cursor_offset(c);
	uint32_t node, nodes = stack_tree_count(tree);

	GET(c, cur_varint, &code, "thread stack");
	t->stack_end = code & ((1 << STACK_END_BITS) - 1);
	sel = code >> STACK_END_BITS;
	if (sel == STACK_SAME) {
		node = st->chain;
	} else if (sel >= STACK_ID_BASE) {
		if (sel - STACK_ID_BASE >= nodes)
			return reader_corrupt(&nr->head, start, err, "stack %llu not defined (%u so far)",
					      (unsigned long long)(sel - STACK_ID_BASE), nodes);
		node = (uint32_t)(sel - STACK_ID_BASE);
	} else {
		GET(c, cur_varint, &delta, "stack parent");
		GET(c, cur_varint, &k, "stack length");
		if (delta == 0 || delta > nodes)
			return reader_corrupt(&nr->head, start, err, "stack parent %llu back of %u stack nodes",
					      (unsigned long long)delta, nodes);
		node = nodes - (uint32_t)delta;
		if (k == 0)
			return reader_corrupt(&nr->head, start, err, "stack with an empty run of new frames");
		if (k > PROFILE_MAX_FRAMES || k + stack_tree_depth(tree, node) > PROFILE_MAX_FRAMES)
			return reader_corrupt(&nr->head, start, err, "stack of %llu frames (at most %d)",
					      (unsigned long long)(k + stack_tree_depth(tree, node)), PROFILE_MAX_FRAMES);
		if (k > cursor_left(c))
			return reader_corrupt(&nr->head, start, err, "stack of %llu new frames does not fit in the %zu bytes left in its chunk",
					      (unsigned long long)k, cursor_left(c));
		if (nodes + k > PROFILE_MAX_STACK_NODES)
			return reader_corrupt(&nr->head, start, err, "more than %u distinct stack nodes (the reader's limit)",
					      PROFILE_MAX_STACK_NODES);
		prev = stack_tree_addr(tree, node);
		while (k--) {
			GET(c, cur_varint, &delta, "stack frame");
			prev += (uint64_t)unzigzag(delta);
			node = stack_tree_add(tree, node, prev);
			if (!node)
				return error_set(err, "cannot read %s: out of memory for its call stacks",
						 nr->head.src.path);
		}
	}
	st->chain = node;
	st->stack_end = t->stack_end;
	t->chain = node;
	t->nframes = stack_tree_depth(tree, node);
	t->frames = NULL;
	return 0;
}

/* Where a thread that ran since its previous sample ran (put_run). */
static int read_run(struct native_reader *nr, struct cursor *c, uint64_t time_ns,
		    struct profile_thread_sample *t, struct error *err)
{
	uint64_t from, to;

	GET(c, cur_varint, &from, "thread run");
	if (!from)
		return 0;
	GET(c, cur_varint, &to, "thread run end");
	t->run_from_ns = nr->prev_time + (uint64_t)unzigzag(from - 1) * 1000;
	t->run_to_ns = time_ns - (uint64_t)unzigzag(to) * 1000;
	if (t->run_to_ns <= t->run_from_ns)
		return reader_corrupt(&nr->head, cursor_offset(c), err, "thread run ends before it begins");
	return 0;
}

/* The thread's CPU time since its previous sample, with what it owed
 * before, divided between its clock samples and its PC (docs/FORMAT.md,
 * "Clock samples").  A clock sample stands for a period of the thread's
 * CPU time, but the kernel takes fewer than the time holds: none in the
 * kernel (exclude_kernel) and, for a thread that runs in bursts shorter
 * than a period, the part period it was in at each switch out is often
 * lost (examples/bursts: half its time).  That time was spent where the
 * thread ran, so it is owed to its next clock samples, up to
 * SAMPLE_PERIODS_MAX periods each (one sample that follows a long stretch
 * does not take it all) and OWED_PERIODS in all: beyond, it is a thread
 * that spends its time in system calls, charged to its PC as in profiles
 * without clock samples. */
#define SAMPLE_PERIODS_MAX 2
#define OWED_PERIODS 16

static void charge_clock(const struct native_reader *nr, struct tid_state *st,
			 struct profile_thread_sample *t, struct profile_clock_sample *cs)
{
	uint64_t period = nr->head.info.clock_period_ns;
	uint64_t avail, each = 0, rest;
	uint32_t n = t->nclock;

	if (nr->rebase)		/* a window's first sample: nothing before counts */
		st->clock_owed = 0;
	avail = (nr->rebase ? 0 : t->cpu_delta_ns) + st->clock_owed;
	if (n)
		each = avail / n < SAMPLE_PERIODS_MAX * period ? avail / n : SAMPLE_PERIODS_MAX * period;
	rest = avail - each * n;
	for (uint32_t k = 0; k < n; k++) {	/* (what avail / n leaves, one ns each) */
		uint64_t extra = each < SAMPLE_PERIODS_MAX * period && k < rest;

		cs[k].cpu_ns = each + extra;
	}
	if (n && each < SAMPLE_PERIODS_MAX * period)
		rest = 0;
	st->clock_owed = rest < OWED_PERIODS * period ? rest : OWED_PERIODS * period;
	t->pc_cpu_ns = rest - st->clock_owed;
}

/* The reading side of put_clock: the clock samples, appended to
 * nr->clock (read_sample points the thread-samples at them). */
static int read_clock(struct native_reader *nr, struct cursor *c, struct tid_state *st,
		      struct profile_thread_sample *t, struct error *err)
{
	uint32_t chain = st->chain;
	uint8_t end = st->stack_end;
	uint64_t v;

	GET(c, cur_varint, &v, "clock sample count");
	if (!v) {	/* not sampled so: what it owed goes to its PC */
		t->pc_cpu_ns += nr->rebase ? 0 : st->clock_owed;
		st->clock_owed = 0;
		return 0;
	}
	if (v - 1 > PROFILE_MAX_CLOCK_SAMPLES || v - 1 > cursor_left(c))
		return reader_corrupt(&nr->head, cursor_offset(c), err, "%llu clock samples in one thread-sample (at most %d, one byte each)",
				      (unsigned long long)(v - 1), PROFILE_MAX_CLOCK_SAMPLES);
	t->clocked = true;
	t->nclock = (uint32_t)(v - 1);
	if (GROW_ARRAY(nr->clock, nr->clock_cap, nr->nclock + t->nclock) < 0)
		return error_set(err, "cannot read %s: out of memory for its clock samples", nr->head.src.path);
	st->chain = st->clock_chain;
	for (uint32_t k = 0; k < t->nclock; k++) {
		struct profile_clock_sample *cs = &nr->clock[nr->nclock++];
		struct profile_thread_sample stack = { 0 };

		GET(c, cur_varint, &v, "clock sample pc");
		st->clock_pc += (uint64_t)unzigzag(v);
		*cs = (struct profile_clock_sample){ .pc = st->clock_pc };
		if (nr->head.info.stacks && read_stack(nr, c, st, &stack, err) < 0)
			return -1;
		cs->chain = stack.chain;
		cs->nframes = stack.nframes;
		cs->stack_end = stack.stack_end;
	}
	st->clock_chain = st->chain;
	st->clock_stack_end = st->stack_end;
	st->chain = chain;
	st->stack_end = end;
	charge_clock(nr, st, t, t->nclock ? nr->clock + nr->nclock - t->nclock : NULL);
	return 0;
}

int read_thread_sample(struct native_reader *nr, struct cursor *c, uint32_t tid,
			      uint64_t time_ns, struct profile_thread_sample *t, struct error *err)
{
	struct tid_state *st;
	uint64_t v;
	unsigned alt;
	bool created;

	st = tid_table_get(&nr->threads, tid, &created);
	if (!st)
		return reader_corrupt(&nr->head, cursor_offset(c), err, "more than %d live threads", PROFILE_MAX_THREADS);
	if (cur_varint_flag(c, &v, &alt) < 0)
		return reader_corrupt(&nr->head, cursor_offset(c), err, "bad or cut thread pc");
	v = (uint64_t)unzigzag(v);
	tid_state_move_pc(st, alt, v, (alt ? st->pc_alt : st->pc) + v);
	t->tid = tid;
	t->pid = st->pid;
	t->pc = st->pc;
	if (read_thread_deltas(nr, c, st, time_ns, &t->cpu_delta_ns, &t->cpu_ns,
			       t->counter_deltas, t->counters, err) < 0)
		return -1;
	t->run_from_ns = t->run_to_ns = 0;
	if (nr->head.info.runs && t->cpu_delta_ns && read_run(nr, c, time_ns, t, err) < 0)
		return -1;
	t->chain = 0;		/* no stack unless the profile has them */
	t->nframes = 0;
	t->frames = NULL;
	if (nr->head.info.stacks && read_stack(nr, c, st, t, err) < 0)
		return -1;
	t->clocked = false;
	t->nclock = 0;
	t->clock = NULL;
	t->pc_cpu_ns = t->cpu_delta_ns;
	return nr->head.info.clock ? read_clock(nr, c, st, t, err) : 0;
}
