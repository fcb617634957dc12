/* native.h - the layout of this project's profile format, shared by its
 * writer (native-write.c) and its reader (native-read.c), which are mirror
 * images of each other.
 *
 * The layout is specified byte by byte in docs/FORMAT.md; in short:
 *   header  "SMPLPROF", u32 version, u32 flags (0)
 *   chunks  u32 payload length, u32 CRC-32 of (length bytes + payload), payload
 *   payload whole records: one tag byte (type, flags) then varint fields
 * Records never span chunks, so a file cut anywhere reads back up to its
 * last complete chunk.  Deltas (sample time, per-thread PC, CPU time and
 * counters) run across chunks; both ends keep the same per-thread state.
 * The record types are PROFILE_REC_* (profile.h) and REC_INFO.
 */
#ifndef SAMPLER_PROFILE_NATIVE_H
#define SAMPLER_PROFILE_NATIVE_H

/* Version 2 added the name record, version 3 the map's build ID, version 4
 * the runs header flag, version 5 the refused readings in the statistics,
 * version 6 the clock header flag and the channel flag of a reading that
 * is the meter's latest at the sample, version 7 the mapped file's size
 * and modification time and the process's start; older files read as
 * before. */
#define NATIVE_VERSION 7
#define HEADER_SIZE 16
#define HEADER_STACKS 0x1		/* header flag: thread-samples carry stacks */
#define HEADER_RUNS 0x2			/* header flag: thread-samples carry their runs (version 4) */
#define HEADER_CLOCK 0x4		/* header flag: thread-samples carry clock samples (version 5) */
#define CHUNK_HEADER 8
#define CHUNK_MAX (64u * 1024 * 1024)		/* the reader refuses longer chunks */

#define REC_INFO 8
#define REC_TYPE_MASK 0x0f
#define SAMPLE_SAME_THREADS 0x10	/* same tid list as the previous sample */
#define EXIT_FINAL 0x10			/* the exit carries final values */
#define WINDOW_ENABLED 0x10		/* sampling switched on (else off) */
#define MAP_BUILD_ID 0x10		/* the map's build ID follows (version 3) */
#define MAP_FILE_STAMP 0x20		/* then the file's size and mtime (version 7) */
#define PROCESS_START 0x10		/* the process's start time follows (version 7) */
/* The low 3 bits of a sample's time residual ride in the top of its tag:
 * jitter of up to +-64 us then costs 2 varint bytes instead of 3. */
#define SAMPLE_TIME_SHIFT 5
#define SAMPLE_TIME_BITS 3
/* A thread-sample's stack code: how the stack ended in the low bits, then
 * what follows: 0 the thread's previous stack, 1 new nodes, 2 + id. */
#define STACK_END_BITS 3
#define STACK_SAME 0
#define STACK_NEW 1
#define STACK_ID_BASE 2

#endif
