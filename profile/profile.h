/* profile.h - the one interface to sampler profiles.
 *
 * Every program (sampler, sampler-export, fuzzers, tests) reads and writes
 * profiles only through this header.  Two on-disk layouts are handled:
 *   PROFILE_FORMAT_NATIVE  this project's chunked, delta/varint format
 *                          (docs/FORMAT.md), crash-safe up to the last chunk;
 *   PROFILE_FORMAT_PPERF   the original tool's layout, byte for byte.
 * A path ending in ".bz2" is written bzip2-compressed, and every reader
 * accepts bzip2 input transparently (detected by content, not by name).
 *
 * A profile is a stream of records.  The writer takes them in time order;
 * the reader hands them back one at a time, in the same order, with every
 * delta already resolved (absolute values and per-thread deltas both).
 */
#ifndef SAMPLER_PROFILE_H
#define SAMPLER_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/channel.h"
#include "../common/error.h"
#include "../common/outfile.h"

#define PROFILE_CMDLINE_MAX 4096
#define PROFILE_PATH_MAX 4096
#define PROFILE_COMM_MAX 16
/* GNU build IDs: 20 bytes (SHA-1), as perf's BUILD_ID_SIZE */
#define PROFILE_BUILD_ID_MAX 20
#define PROFILE_MAX_CHANNELS CHANNEL_MAX_PER_RUN
/* Most threads in one sample, and most live threads (announced or sampled,
 * not yet exited) at any time: the reader refuses more, so that hostile
 * input cannot make it allocate without bound; the writer refuses more so
 * that it never writes what the reader would refuse. */
#define PROFILE_MAX_THREADS 65536
/* Call stacks (profiles recorded with -g): at most this many callers per
 * thread-sample, and at most this many distinct stack nodes per profile
 * (each node is one (caller chain, address) pair; docs/FORMAT.md). */
#define PROFILE_MAX_FRAMES 1024
#define PROFILE_MAX_STACK_NODES (1u << 21)

/* How a thread-sample's call stack ended (3 bits in the format). */
enum profile_stack_end {
	PROFILE_STACK_COMPLETE = 0,	/* unwound to the outermost frame */
	PROFILE_STACK_NO_CFI,		/* no unwind information for a frame */
	PROFILE_STACK_COPY_SHORT,	/* ran past the stack copy (raise SIZE) */
	PROFILE_STACK_UNKNOWN_MAP,	/* a frame outside every file mapping (JIT) */
	PROFILE_STACK_MAX_DEPTH,	/* --max-stack reached */
	PROFILE_STACK_BAD_FRAME,	/* a frame pointer left the stack */
	PROFILE_STACK_UNREADABLE,	/* registers or stack could not be read */
	PROFILE_STACK_DROPPED,		/* the profile's stack table was full */
	PROFILE_STACK_NENDS
};

/* "complete", "no-cfi", "copy-short", ... (NULL for an unknown value). */
const char *profile_stack_end_name(unsigned end);

enum profile_format {
	PROFILE_FORMAT_NATIVE,
	PROFILE_FORMAT_PPERF,
};

/* Facts about the machine and the run, written once at the start. */
struct profile_host {
	char hostname[65];
	char os_release[65];		/* uname -r */
	char os_version[65];		/* uname -v */
	char arch[32];			/* uname -m */
	char cpu_desc[128];		/* /proc/cpuinfo "model name" */
	char cpu_id[64];		/* perf style: "GenuineIntel,6,85,4" */
	uint32_t nr_cpus_online;
	uint32_t nr_cpus_avail;
	uint64_t total_mem_kb;		/* MemTotal */
	char sampler_version[32];
	char cmdline[PROFILE_CMDLINE_MAX]; /* the sampler's own argv, space-joined */
	/* One instant read on both clocks: sample times are CLOCK_MONOTONIC ns,
	 * realtime_ns - monotonic_ns converts them to wall-clock time. */
	uint64_t realtime_ns;
	uint64_t monotonic_ns;
	uint64_t start_ns;		/* CLOCK_MONOTONIC when sampling began */
	double target_hz;
	/* Place in a parallel job, "" when not started by a launcher (and in
	 * profiles written before these fields existed). */
	char rank[16];			/* MPI rank or Slurm task id, decimal */
	char job_id[64];		/* SLURM_JOB_ID or Open MPI's job id */
};

/* Nanoseconds between samples at target_hz (0 when it is not a usable
 * frequency): what the writer and reader both predict sample times from,
 * and the recorder's schedule. */
uint64_t profile_period_ns(double target_hz);

/* A new process (the first one, or a fork/vfork/clone child). */
struct profile_process {
	uint32_t pid;
	uint32_t ppid;			/* 0 for the first process */
	uint64_t time_ns;
	/* when it started, as the kernel counts it (to 10 ms), on the same
	 * clock: before time_ns for a process attached to (0: not known) */
	uint64_t start_ns;
};

/* A process's image and name: at start and at every exec. */
struct profile_exec {
	uint32_t pid;
	uint64_t time_ns;
	char comm[PROFILE_COMM_MAX];	/* /proc/PID/comm */
	char argv[PROFILE_CMDLINE_MAX];	/* space-joined, truncated if longer */
};

/* A new thread (also written for each process's first thread, tid == pid). */
struct profile_thread {
	uint32_t tid;
	uint32_t pid;
	uint64_t time_ns;
};

/* A thread's name, /proc/PID/task/TID/comm (what pthread_setname_np or
 * prctl(PR_SET_NAME) set; a new thread has its creator's): written at the
 * thread's first stop, again whenever the recorder sees it changed, and at
 * its exit if it changed. */
struct profile_name {
	uint32_t tid;
	uint32_t pid;
	uint64_t time_ns;
	char name[PROFILE_COMM_MAX];
};

/* Where a thread ran, sampled by the kernel on the thread's own CPU clock
 * (profiles with clock samples, info.clock): one PC (and stack) every
 * period of the thread's user CPU time, as perf record -e cpu-clock
 * takes them.  cpu_ns is filled by the reader: the part of the
 * thread-sample's CPU time charged here (docs/FORMAT.md, "Clock
 * samples"). */
struct profile_clock_sample {
	uint64_t pc;
	uint64_t cpu_ns;
	/* with stacks: as a thread-sample's (frames to the writer, chain
	 * from the reader) */
	const uint64_t *frames;
	uint32_t nframes;
	uint32_t chain;
	uint8_t stack_end;
};

/* A thread exits; whole_process when it was the process's last thread.
 * With final, the thread's cumulative CPU time and counters as it exited
 * (read at its exit stop), so that what it did after its last sample is
 * kept; without, the thread was gone before it could be read. */
struct profile_exit {
	uint32_t tid;
	uint32_t pid;
	uint64_t time_ns;
	bool whole_process;
	bool final;
	uint64_t cpu_ns;
	uint64_t counters[PROFILE_MAX_CHANNELS];	/* per CHANNEL_PER_THREAD channel */
	/* Filled by the reader with final: the part since the thread's last
	 * sample (all of it if it was never sampled), and that sample's PC
	 * (0 if none). */
	uint64_t cpu_delta_ns;
	uint64_t counter_deltas[PROFILE_MAX_CHANNELS];
	uint64_t last_pc;
	uint32_t last_chain;		/* and that sample's stack (with stacks) */
	uint8_t last_stack_end;
	/* In profiles with clock samples: the CPU time the thread still
	 * owed its clock samples (docs/FORMAT.md), charged where its last
	 * clock sample was (also without final) */
	struct profile_clock_sample owed;
};

/* One memory mapping of a process, as /proc/PID/maps shows it.  Written at
 * start, after exec, and whenever a sampled PC fell outside every known map
 * (the full map set of the process is then written again); and each
 * executable mapping made in between, alone, with the time of its mmap.
 * A map replaces what it overlaps from its time on (docs/FORMAT.md). */
struct profile_map {
	uint32_t pid;
	uint64_t time_ns;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	/* The mapped file's size and modification time as recorded (0: not
	 * known - an older profile, a pperf one, or a file not read): what
	 * tells a rebuilt file without a build ID from the one mapped */
	uint64_t file_size;
	uint64_t file_mtime_ns;
	uint32_t prot;			/* PROT_READ | PROT_WRITE | PROT_EXEC */
	char path[PROFILE_PATH_MAX];	/* "" for anonymous maps, "[vdso]" ... */
	/* The GNU build ID of the mapped file as recorded (0 bytes: none
	 * known - an older profile, a pperf one, or a file without one) */
	uint8_t build_id_len;
	uint8_t build_id[PROFILE_BUILD_ID_MAX];
};

/* One thread in one sample. */
struct profile_thread_sample {
	uint32_t tid;
	uint32_t pid;			/* filled by the reader; ignored by the writer */
	uint64_t pc;
	uint64_t cpu_ns;		/* the thread's cumulative CPU time */
	uint64_t cpu_delta_ns;		/* reader: CPU time since this thread's previous
					 * sample (all of it at its first sample) */
	/* One entry per CHANNEL_PER_THREAD channel, in channel order:
	 * cumulative counts (writer and reader) and, from the reader, the
	 * counts since the thread's previous sample. */
	uint64_t *counters;
	uint64_t *counter_deltas;
	/* Call stack, in profiles with stacks (info.stacks) only.  The writer
	 * takes frames[0..nframes-1]: the callers of pc, innermost first,
	 * each the address of its call instruction (return address - 1).
	 * The reader gives chain instead, the stack's id in the profile (0:
	 * no callers), which profile_reader_stack() expands; frames is then
	 * NULL.  stack_end (enum profile_stack_end) says how it ended. */
	const uint64_t *frames;
	uint32_t nframes;
	uint32_t chain;
	uint8_t stack_end;
	/* Where in the interval since its previous sample the thread ran, in
	 * profiles with runs (info.runs) only: its first switch onto a CPU and
	 * its last switch off one before this sample's stop began
	 * (CLOCK_MONOTONIC ns); both 0 when not known (no switch records, it
	 * did not run, or it switched more often than the recorder kept). */
	uint64_t run_from_ns, run_to_ns;
	/* In profiles with clock samples (info.clock) only: clocked when the
	 * kernel sampled the thread on its CPU clock through the interval
	 * since its previous sample (false: not sampled so, or samples were
	 * lost), and those samples, clock[0..nclock-1], oldest first.  The
	 * reader divides cpu_delta_ns between them and pc: pc_cpu_ns is the
	 * part charged to pc (all of it without clock samples). */
	bool clocked;
	uint32_t nclock;
	const struct profile_clock_sample *clock;
	uint64_t pc_cpu_ns;
};

/* Most clock samples one thread-sample may carry (the reader refuses
 * more). */
#define PROFILE_MAX_CLOCK_SAMPLES 4096
/* and the longest clock period (10 s) */
#define PROFILE_MAX_CLOCK_PERIOD_NS 10000000000ULL

/* One synchronous snapshot of all threads. */
struct profile_sample {
	uint64_t time_ns;		/* CLOCK_MONOTONIC */
	uint32_t nthreads;
	struct profile_thread_sample *threads;
	/* One entry per CHANNEL_PER_SAMPLE channel, in channel order; NaN when
	 * the reading is missing (e.g. a meter that did not answer in time). */
	double *values;
};

/* Sampling was switched on (enabled) or off (--delay, --duration,
 * --control).  A profile with such records was sampled only inside its
 * windows, each from an enabled record to the next disabled one (or the
 * end); without any, the whole run is one window.  A run that starts with
 * sampling off (--delay, --control) starts with a disabled record, so
 * nothing before its first window counts.  The reader makes the
 * deltas leave out what happened outside the windows: the first sample
 * after an enabled record, and exits while disabled, give zero CPU-time and
 * counter deltas (the recorder takes that sample right at the window's
 * start, and records its energy readings as 0). */
struct profile_window {
	uint64_t time_ns;
	bool enabled;
};

/* Run statistics, written once at the end.  A profile without them was cut
 * short (the reader then reports it as truncated). */
struct profile_stats {
	uint64_t wall_ns;		/* first to last sample-clock instant of the run */
	uint64_t latency_ns;		/* total time the samples took: stopping the
					 * threads, reading them and the meters,
					 * resuming them */
	uint64_t samples;
	uint64_t thread_samples;
	uint64_t missed_slots;		/* schedule slots skipped because a sample was late */
	uint64_t missing_readings;	/* per-sample channel readings that were missing */
	uint64_t signals_delivered;	/* signals passed through to the target */
	uint32_t threads_seen;
	uint32_t processes_seen;
	int32_t exit_status;		/* as the sampler exits: code, or 128+signal */
	uint32_t nchannels;
	double channel_totals[PROFILE_MAX_CHANNELS]; /* per-sample channels: sum of
					 * energy values (energy), or mean (others);
					 * per-thread: sum of counts */
	uint64_t hold_ns;		/* of latency_ns, the time from each sample's
					 * instant (every thread stopped) to the
					 * threads' resume; profiles that predate it
					 * read back latency_ns */
	uint64_t channel_refused[PROFILE_MAX_CHANNELS]; /* per channel: readings
					 * refused as ones the meter cannot stand
					 * for (missing too); 0 before version 5 */
};

/* Everything known before the first sample.  The writer takes it at open;
 * the reader fills it in at open (for pperf input, what that layout has). */
struct profile_info {
	enum profile_format format;
	bool compressed;
	bool stacks;			/* thread-samples carry call stacks (native only) */
	bool runs;			/* thread-samples carry where they ran (native only) */
	bool clock;			/* thread-samples carry clock samples (native only) */
	uint64_t clock_period_ns;	/* with clock: the thread CPU time between them */
	struct profile_host host;
	uint32_t nchannels;
	struct channel_desc channels[PROFILE_MAX_CHANNELS];
	/* Derived: channels split by scope, as indexes into channels[]. */
	uint32_t nsample_channels;
	uint32_t sample_channel[PROFILE_MAX_CHANNELS];
	uint32_t nthread_channels;
	uint32_t thread_channel[PROFILE_MAX_CHANNELS];
};

/* Recompute the derived scope lists of info from its channels. */
void profile_info_index_channels(struct profile_info *info);

/* ---- writing ---------------------------------------------------------- */

struct profile_writer;

/* Create path (".bz2" suffix: compressed; "-": stdout) and write the
 * header.  Records are buffered and written in chunks; nothing is written
 * per sample.  The file is made as common/outfile.h says (never through a
 * planted symlink; an existing one is kept as PATH.old); a native profile
 * takes its name at once (readable while written), a pperf one at the end. */
struct profile_writer *profile_writer_open(const char *path,
					   enum profile_format format,
					   const struct profile_info *info,
					   struct error *err);

/* The same on an output the caller opened (outfile_open, mode 0666), e.g.
 * before starting anything that could block on it.  The writer owns out
 * from here, also when this fails. */
struct profile_writer *profile_writer_open_out(struct outfile *out,
					       enum profile_format format,
					       const struct profile_info *info,
					       struct error *err);

int profile_write_process(struct profile_writer *w, const struct profile_process *p, struct error *err);
int profile_write_exec(struct profile_writer *w, const struct profile_exec *e, struct error *err);
int profile_write_thread(struct profile_writer *w, const struct profile_thread *t, struct error *err);
int profile_write_exit(struct profile_writer *w, const struct profile_exit *e, struct error *err);
int profile_write_map(struct profile_writer *w, const struct profile_map *m, struct error *err);
int profile_write_sample(struct profile_writer *w, const struct profile_sample *s, struct error *err);
int profile_write_name(struct profile_writer *w, const struct profile_name *n, struct error *err);
int profile_write_window(struct profile_writer *w, const struct profile_window *win, struct error *err);


/* Write the statistics, flush and close.  The writer is freed in any case;
 * -1 means the profile on disk is incomplete (it is still readable up to
 * its last complete chunk).  bytes (may be NULL): how many went out, to a
 * file or a pipe. */
int profile_writer_finish(struct profile_writer *w, const struct profile_stats *stats,
			  uint64_t *bytes, struct error *err);

/* Free without writing statistics (the file reads back as truncated). */
void profile_writer_abandon(struct profile_writer *w);

/* ---- reading ---------------------------------------------------------- */

enum profile_record_type {
	PROFILE_REC_PROCESS = 1,
	PROFILE_REC_EXEC,
	PROFILE_REC_THREAD,
	PROFILE_REC_EXIT,
	PROFILE_REC_MAP,
	PROFILE_REC_SAMPLE,
	PROFILE_REC_STATS,
	PROFILE_REC_NAME = 9,		/* 8 is the native info record */
	PROFILE_REC_WINDOW = 10,
};

/* The call stacks a reader has read so far (opaque). */
struct stack_tree;

/* The call stack whose id is chain (a thread-sample's chain, an exit's
 * last_chain): the callers, innermost first, into frames[0..max-1].
 * Returns how many (at most PROFILE_MAX_FRAMES; the reader checked every
 * id and node). */
uint32_t profile_stack_frames(const struct stack_tree *stacks, uint32_t chain,
			      uint64_t *frames, uint32_t max);
/* How many callers the stack chain holds (what profile_stack_frames
 * gives with room for all), without expanding it. */
uint32_t profile_stack_depth(const struct stack_tree *stacks, uint32_t chain);

struct profile_record {
	enum profile_record_type type;
	const struct stack_tree *stacks;	/* profiles with stacks: for
						 * profile_stack_frames; else NULL */
	union {
		struct profile_process process;
		struct profile_exec exec;
		struct profile_thread thread;
		struct profile_exit exit;
		struct profile_map map;
		struct profile_sample sample;	/* arrays owned by the reader */
		struct profile_stats stats;
		struct profile_name name;
		struct profile_window window;
	};
};

struct profile_reader;

/* Open a profile of either format, plain or bzip2 (by content).  Reads and
 * checks the header; info is then available.  path "-" is stdin; pipes,
 * FIFOs and devices work too: the reader never seeks (a pperf profile,
 * read twice, keeps a temporary copy in TMPDIR of what comes that way). */
struct profile_reader *profile_reader_open(const char *path, struct error *err);

/* For a program that opens the same profile more than once (the CSV
 * exporter reads it twice): input that can be read only once ("-" from a
 * pipe, a FIFO, /dev/fd/N) is copied whole to an unlinked temporary file
 * in TMPDIR, once its first bytes show a profile, and in->path names the
 * copy until profile_input_release; any other in->path is path itself. */
struct profile_input {
	const char *path;		/* what to open */
	int fd;				/* the copy, or -1 */
	char fd_path[32];
};

int profile_input_keep(const char *path, struct profile_input *in, struct error *err);
void profile_input_release(struct profile_input *in);

const struct profile_info *profile_reader_info(const struct profile_reader *r);

/* Next record: 1 and *rec filled (pointers valid until the next call),
 * 0 at the end of the profile, -1 on corrupt input (err names the byte
 * offset and what is wrong; records before it were good). */
int profile_read_next(struct profile_reader *r, struct profile_record *rec, struct error *err);

/* After the end (or an error): true when the profile was cut short, i.e. it
 * ends without statistics or inside a chunk.  Then *good_bytes is the
 * offset up to which it was read. */
bool profile_reader_truncated(const struct profile_reader *r, uint64_t *good_bytes);

/* Values the recorder can never write, which the reader set right as it
 * read them (a damaged or hand-made profile): every consumer sees the
 * repaired value, and the program says once per kind how many there were. */
enum profile_repair_kind {
	PROFILE_REPAIR_CPU,	/* a thread's CPU time ran back or faster than
				 * the clock: no CPU time for that interval */
	PROFILE_REPAIR_COUNTER,	/* a per-thread counter ran back: 0 counts */
	PROFILE_REPAIR_ENERGY,	/* an energy reading below 0, not finite or
				 * beyond PROFILE_MAX_WATTS: a missing one */
	PROFILE_REPAIR_KINDS
};

/* The highest power a reading may stand for: any meter's ceiling
 * (pmu/plausible.h refuses more as it records). */
#define PROFILE_MAX_WATTS 1e7

/* How many values of kind the reader has repaired so far. */
uint64_t profile_reader_repaired(const struct profile_reader *r, enum profile_repair_kind kind);

/* For a main: one warning line on stderr per kind repaired (counts as
 * profile_reader_repaired gives them), "PROG: warning: INPUT: 3
 * thread-samples whose CPU time ran back or faster than the clock: ...". */
void profile_repair_warn(const char *prog, const char *input,
			 const uint64_t repaired[PROFILE_REPAIR_KINDS]);

void profile_reader_close(struct profile_reader *r);

#endif
