/* columns.c - the scripts' input: the rows of rows.h as fixed-width binary
 * records that numpy reads as they are (docs/EXPORT.md, "Columns").
 *
 * The text head is the CSV's host and channel lines; then the records, in
 * frames of whole samples (COLUMNS_FRAME_ROWS rows at most, unless a sample
 * has more threads); then a text tail: the processes (known at the end, so
 * the profile is read once), the interned (dso, symbol) pairs and call
 * stacks the records name by number, the stats and an end line.  A PC is
 * symbolized once (symbols.c caches it) and its pair is interned once; a
 * stack is made into text once per (pid, chain, end, pc) while the maps stay
 * the same, and its text interned once: a row costs a few stores, not a
 * formatted line.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../common/outfile.h"
#include "export.h"
#include "rows.h"
#include "textout.h"
#include "../profile/textform.h"

#define COLUMNS_VERSION 4	/* 4: power cells hold energy by either rule */
#define COLUMNS_FRAME_ROWS 65536	/* rows per frame, unless one sample has more */
#define COLUMNS_FIXED 56		/* bytes before the channel values */
#define COLUMNS_NO_SYMBOL 0xffffffffu	/* without --symbols */
#define COLUMNS_NO_STACK 0xffffffffu	/* profiles without stacks */

/* Interned pairs of 64-bit words: a (dso, symbol) pair by its pointers
 * (what the symbolizer hands out, fast) or by its text (pointers differ,
 * text equal: one id), and a (pid:tid, symbol id or pc) key. */
struct pair_slot {
	uint64_t a;
	uint64_t b;
	uint32_t id;			/* + 1; 0: empty slot */
};

struct pair_table {
	struct pair_slot *slots;
	uint32_t bits;
	uint32_t count;
	bool by_text;			/* a, b point to strings compared by text */
};

/* A symbol id's names, kept for the tail. */
struct symbol_name {
	const char *dso;
	const char *symbol;
};

struct columns_writer {
	FILE *f;
	const char *path;
	struct rows rows;
	uint32_t nchannels;
	uint32_t nvars;			/* model variances after the channels */
	size_t record_size;
	unsigned char *frame;
	uint32_t nframe;
	uint32_t frame_cap;		/* rows */
	struct pair_table by_pointer;
	struct pair_table by_text;
	struct pair_table keys;
	uint32_t nsymbols;
	struct symbol_name *names;	/* [id] */
	size_t names_cap;
	/* profiles with stacks: (pid << 32 | chain, pc) -> stack id, valid
	 * while the maps stay as they are; the stacks' texts by text */
	struct pair_table by_chain;
	struct pair_table stack_ids;
	uint32_t nstacks;
	char **stacks;			/* [id]: the text */
	size_t stacks_cap;
	struct stack_text stack;
};

static uint64_t text_hash(const char *dso, const char *symbol)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a over "dso\0symbol" */

	for (const char *p = dso;; p++) {
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
		if (!*p)
			break;
	}
	for (const char *p = symbol; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

static uint64_t pair_hash(const struct pair_table *t, uint64_t a, uint64_t b)
{
	if (t->by_text)
		return text_hash((const char *)(uintptr_t)a, (const char *)(uintptr_t)b) *
		       0x9e3779b97f4a7c15ull;
	return (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xbf58476d1ce4e5b9ull) ^ (b >> 29);
}

static bool pair_is(const struct pair_table *t, const struct pair_slot *s, uint64_t a,
		    uint64_t b)
{
	if (!t->by_text)
		return s->a == a && s->b == b;
	return strcmp((const char *)(uintptr_t)s->a, (const char *)(uintptr_t)a) == 0 &&
	       strcmp((const char *)(uintptr_t)s->b, (const char *)(uintptr_t)b) == 0;
}

/* The slot of (a, b): its own, or the empty one it would take. */
static struct pair_slot *pair_find(const struct pair_table *t, uint64_t a, uint64_t b)
{
	uint32_t mask = (1u << t->bits) - 1;
	uint32_t i = (uint32_t)(pair_hash(t, a, b) >> (64 - t->bits)) & mask;

	while (t->slots[i].id && !pair_is(t, &t->slots[i], a, b))
		i = (i + 1) & mask;
	return &t->slots[i];
}

/* The id of (a, b), or -1 when it has none yet. */
static int64_t pair_get(const struct pair_table *t, uint64_t a, uint64_t b)
{
	const struct pair_slot *s = t->bits ? pair_find(t, a, b) : NULL;

	return s && s->id ? (int64_t)s->id - 1 : -1;
}

/* Room for one more pair (at most half the slots used); -1: no memory. */
static int pair_reserve(struct pair_table *t)
{
	struct pair_table grown = { .bits = t->bits ? t->bits + 1 : 10, .by_text = t->by_text };

	if (t->bits && 2 * (t->count + 1) <= 1u << t->bits)
		return 0;
	if (grown.bits > 31)
		return -1;
	grown.slots = calloc((size_t)1 << grown.bits, sizeof(*grown.slots));
	if (!grown.slots)
		return -1;
	for (uint32_t i = 0; t->bits && i < 1u << t->bits; i++)
		if (t->slots[i].id)
			*pair_find(&grown, t->slots[i].a, t->slots[i].b) = t->slots[i];
	grown.count = t->count;
	free(t->slots);
	*t = grown;
	return 0;
}

static int pair_add(struct pair_table *t, uint64_t a, uint64_t b, uint32_t id)
{
	if (pair_reserve(t) < 0)
		return -1;
	*pair_find(t, a, b) = (struct pair_slot){ a, b, id + 1 };
	t->count++;
	return 0;
}

/* A new pair by text: the next id, its names kept for the tail. */
static int new_symbol(struct columns_writer *c, const char *dso, const char *symbol,
		      uint32_t *id)
{
	if (GROW_ARRAY(c->names, c->names_cap, (size_t)c->nsymbols + 1) < 0)
		return -1;
	*id = c->nsymbols++;
	c->names[*id] = (struct symbol_name){ .dso = dso, .symbol = symbol };
	return pair_add(&c->by_text, (uintptr_t)dso, (uintptr_t)symbol, *id);
}

static int symbol_id(struct columns_writer *c, const struct row *row, uint32_t *id,
		     struct error *err)
{
	const char *dso, *symbol;
	int64_t known;

	if (!c->rows.symbols) {
		*id = COLUMNS_NO_SYMBOL;
		return 0;
	}
	rows_symbol(&c->rows, row, &dso, &symbol);
	known = pair_get(&c->by_pointer, (uintptr_t)dso, (uintptr_t)symbol);
	if (known >= 0) {
		*id = (uint32_t)known;
		return 0;
	}
	known = pair_get(&c->by_text, (uintptr_t)dso, (uintptr_t)symbol);
	if (known >= 0)
		*id = (uint32_t)known;
	else if (new_symbol(c, dso, symbol, id) < 0)
		return error_set(err, "out of memory for %" PRIu32 " symbols", c->nsymbols);
	if (pair_add(&c->by_pointer, (uintptr_t)dso, (uintptr_t)symbol, *id) < 0)
		return error_set(err, "out of memory for %" PRIu32 " symbols", c->nsymbols);
	return 0;
}

/* The row's key: one id per (pid, tid, symbol id or, without symbols, pc),
 * numbered in order of first appearance, so that the scripts sum by it
 * without hashing. */
static int key_id(struct columns_writer *c, const struct row *row, uint32_t symbol,
		  uint32_t *id, struct error *err)
{
	uint64_t a = (uint64_t)row->pid << 32 | row->tid;
	uint64_t b = symbol == COLUMNS_NO_SYMBOL ? row->pc : symbol;
	int64_t known = pair_get(&c->keys, a, b);

	if (known >= 0) {
		*id = (uint32_t)known;
		return 0;
	}
	*id = c->keys.count;
	if (pair_add(&c->keys, a, b, *id) < 0)
		return error_set(err, "out of memory for %" PRIu32 " keys", c->keys.count);
	return 0;
}

/* A new stack text: the next id, a copy kept for the tail. */
static int new_stack(struct columns_writer *c, const char *text, uint32_t *id)
{
	char *copy;

	if (GROW_ARRAY(c->stacks, c->stacks_cap, (size_t)c->nstacks + 1) < 0)
		return -1;
	copy = strdup(text);
	if (!copy)
		return -1;
	*id = c->nstacks;
	c->stacks[c->nstacks++] = copy;
	return pair_add(&c->stack_ids, (uintptr_t)copy, (uintptr_t)"", *id);
}

/* The row's stack: the id of its text (the CSV's stack column), made
 * once per (pid, chain, pc) until the maps change. */
static int stack_id(struct columns_writer *c, const struct row *row, uint32_t *id,
		    struct error *err)
{
	/* chain < 2^21 (PROFILE_MAX_STACK_NODES): how it ended above it */
	uint64_t a = (uint64_t)row->pid << 32 | (uint64_t)row->stack_end << 24 | row->chain;
	int64_t known;

	if (!c->rows.info->stacks) {
		*id = COLUMNS_NO_STACK;
		return 0;
	}
	known = pair_get(&c->by_chain, a, row->pc);
	if (known >= 0) {
		*id = (uint32_t)known;
		return 0;
	}
	if (rows_stack(&c->rows, row, &c->stack, err) < 0)
		return -1;
	known = pair_get(&c->stack_ids, (uintptr_t)c->stack.buf, (uintptr_t)"");
	if (known >= 0)
		*id = (uint32_t)known;
	else if (new_stack(c, c->stack.buf, id) < 0)
		return error_set(err, "out of memory for %" PRIu32 " call stacks", c->nstacks);
	if (pair_add(&c->by_chain, a, row->pc, *id) < 0)
		return error_set(err, "out of memory for %" PRIu32 " call stacks", c->nstacks);
	return 0;
}

/* New maps may name the same addresses differently: make the texts again. */
static void forget_chains(struct columns_writer *c)
{
	if (c->by_chain.count)
		memset(c->by_chain.slots, 0, ((size_t)1 << c->by_chain.bits) * sizeof(*c->by_chain.slots));
	c->by_chain.count = 0;
}

static void put_u64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static void put_u32(unsigned char *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put_f64(unsigned char *p, double d)
{
	uint64_t v;

	memcpy(&v, &d, 8);
	put_u64(p, v);
}

static int flush_frame(struct columns_writer *c)
{
	unsigned char count[4];

	put_u32(count, c->nframe);
	fwrite(count, 1, sizeof(count), c->f);
	fwrite(c->frame, c->record_size, c->nframe, c->f);
	c->nframe = 0;
	return ferror(c->f) ? -1 : 0;
}

/* One record: see the layout in docs/EXPORT.md. */
static int put_row(void *arg, const struct row *row, struct error *err)
{
	struct columns_writer *c = arg;
	unsigned char *p = c->frame + c->nframe * c->record_size;
	uint32_t id = COLUMNS_NO_SYMBOL, key = 0, stack = COLUMNS_NO_STACK;

	if (symbol_id(c, row, &id, err) < 0 || key_id(c, row, id, &key, err) < 0 ||
	    stack_id(c, row, &stack, err) < 0)
		return -1;
	put_u64(p, (uint64_t)row->time_ns);
	put_u32(p + 8, row->pid);
	put_u32(p + 12, row->tid);
	put_u64(p + 16, row->pc);
	put_u64(p + 24, row->cpu_delta_ns);
	put_u64(p + 32, row->wall_delta_ns);
	p[40] = row->exit ? 1 : row->clock ? 2 : 0;	/* (colprof.py) */
	p[41] = p[42] = p[43] = 0;
	put_u32(p + 44, id);
	put_u32(p + 48, key);
	put_u32(p + 52, stack);
	for (uint32_t i = 0; i < c->nchannels; i++) {
		uint64_t count;
		double value = NAN;

		if (rows_cell(&c->rows, row, i, &count, &value) == ROW_CELL_COUNT)
			value = (double)count;
		else	/* a power channel's cell: its energy (# meter cells=energy) */
			rows_power_energy(&c->rows, row, i, &value);
		put_f64(p + COLUMNS_FIXED + 8 * i, value);
	}
	p += COLUMNS_FIXED + 8 * c->nchannels;
	for (uint32_t i = 0; i < c->nchannels; i++) {
		double value = NAN;

		if (!rows_has_model_var(&c->rows, i))
			continue;
		rows_model_var(&c->rows, row, i, &value);
		put_f64(p, value);
		p += 8;
	}
	c->nframe++;
	return 0;
}

/* Room in the frame for need rows: a frame holds whole samples, so that
 * the scripts never join a sample cut by a frame's end. */
static int frame_room(struct columns_writer *c, uint32_t need, struct error *err)
{
	unsigned char *p;

	if (c->nframe + need <= c->frame_cap)
		return 0;
	if (c->nframe && flush_frame(c) < 0)	/* the output is gone: stop reading */
		return outfile_path_write_error(c->path, errno, err);
	if (need <= c->frame_cap)
		return 0;
	p = realloc(c->frame, need * c->record_size);
	if (!p)
		return error_set(err, "out of memory for a sample of %" PRIu32 " threads", need);
	c->frame = p;
	c->frame_cap = need;
	return 0;
}

static void columns_free(struct columns_writer *c)
{
	rows_free(&c->rows);
	free(c->frame);
	free(c->by_pointer.slots);
	free(c->by_text.slots);
	free(c->keys.slots);
	free(c->names);
	free(c->by_chain.slots);
	free(c->stack_ids.slots);
	for (uint32_t i = 0; i < c->nstacks; i++)
		free(c->stacks[i]);
	free(c->stacks);
	stack_text_free(&c->stack);
	free(c);
}

static void *columns_open(const struct profile_info *info, const struct export_options *opt,
			  struct energy_source *energy, struct error *err)
{
	struct columns_writer *c = calloc(1, sizeof(*c));

	if (!c) {
		error_set(err, "out of memory for the columns writer");
		return NULL;
	}
	if (rows_init(&c->rows, info, opt, energy, err) < 0) {
		free(c);
		return NULL;
	}
	c->path = opt->output;
	c->by_text.by_text = true;
	c->stack_ids.by_text = true;
	c->nchannels = info->nchannels < PROFILE_MAX_CHANNELS ? info->nchannels
							       : PROFILE_MAX_CHANNELS;
	for (uint32_t i = 0; i < c->nchannels; i++)
		c->nvars += rows_has_model_var(&c->rows, i);
	c->record_size = COLUMNS_FIXED + 8 * (size_t)(c->nchannels + c->nvars);
	c->frame_cap = COLUMNS_FRAME_ROWS;
	c->frame = malloc(COLUMNS_FRAME_ROWS * c->record_size);
	if (!c->frame) {
		error_set(err, "out of memory for the columns writer");
		goto fail;
	}
	c->f = textout_open(opt->output, opt->force, err);
	if (!c->f)
		goto fail;
	fprintf(c->f, "# sampler columns v%d\n", COLUMNS_VERSION);
	c->rows.collect = true;	/* processes in the tail: one pass */
	if (rows_write_head(c->f, info, NULL, err) < 0) {
		textout_close(c->f, c->path, NULL);
		goto fail;
	}
	rows_write_meters(c->f, &c->rows, true);
	fprintf(c->f, "# records size=%zu channels=%" PRIu32 " symbols=%d stacks=%d frame=%d",
		c->record_size, c->nchannels, c->rows.symbols != NULL, info->stacks,
		COLUMNS_FRAME_ROWS);
	/* the channels whose model variance follows theirs (rows.h) */
	for (uint32_t i = 0, n = 0; i < c->nchannels; i++)
		if (rows_has_model_var(&c->rows, i))
			fprintf(c->f, "%s%" PRIu32, n++ ? "," : " model_var=", i);
	fputs("\n# rows\n", c->f);
	return c;
fail:
	columns_free(c);
	return NULL;
}

static int columns_record(void *state, const struct profile_record *rec, struct error *err)
{
	struct columns_writer *c = state;
	uint32_t need = rec->type == PROFILE_REC_SAMPLE ? rec->sample.nthreads
			: rec->type == PROFILE_REC_EXIT ? 1 : 0;

	if (frame_room(c, need, err) < 0)
		return -1;
	if (rec->type == PROFILE_REC_MAP || rec->type == PROFILE_REC_EXEC ||
	    rec->type == PROFILE_REC_PROCESS)
		forget_chains(c);
	return rows_record(&c->rows, rec, put_row, c, err);
}

/* The last frame, the end mark (a frame of 0 rows) and the text tail. */
static int columns_finish(void *state, const struct export_result *result, struct error *err)
{
	struct columns_writer *c = state;
	int ret;

	(void)result;
	if (c->nframe)
		flush_frame(c);
	flush_frame(c);
	for (uint32_t id = 0; id < c->nsymbols; id++) {
		fprintf(c->f, "# symbol id=%" PRIu32, id);
		textform_str(c->f, "dso", c->names[id].dso);
		textform_str(c->f, "symbol", c->names[id].symbol);
		putc('\n', c->f);
	}
	for (uint32_t id = 0; id < c->nstacks; id++) {
		fprintf(c->f, "# stack id=%" PRIu32, id);
		textform_str(c->f, "stack", c->stacks[id]);
		putc('\n', c->f);
	}
	ret = rows_write_processes(c->f, &c->rows, err);
	rows_write_stats(c->f, &c->rows);
	fputs("# end\n", c->f);
	if (textout_close(c->f, c->path, ret < 0 ? NULL : err) < 0)
		ret = -1;
	columns_free(c);
	return ret;
}

const struct exporter columns_exporter = {
	.name = "columns",
	.reads_input_twice = true,	/* the energy estimate (attribution.h) */
	.open = columns_open,
	.record = columns_record,
	.finish = columns_finish,
	.bytes_per_sample = 90, .bytes_per_frame = 1,
};
