/* scpilink.h - the line connection to an SCPI meter: its address
 * (tcp://HOST:PORT or /dev/ttyUSB0@BAUD), connecting within a time,
 * queries out, whole answer lines in, each read bounded in bytes.  What
 * the lines mean is the scpi plug-in's (scpi.c); this knows only bytes,
 * lines and sockets. */
#ifndef SAMPLER_PMU_SCPILINK_H
#define SAMPLER_PMU_SCPILINK_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/error.h"

/* take/await/drain: the meter sent more than the read's byte budget */
#define SCPI_LINK_CHATTER (-2)
/* Longest answer line kept (a longer one is dropped whole) */
#define SCPI_LINK_LINE_MAX 255

struct scpi_link;

/* CLOCK_MONOTONIC now, in ns: the clock of the deadlines below */
long long scpi_link_now_ns(void);

/* A link to the meter at addr, not connected yet; NULL and err when the
 * address is not one (the message names the forms). */
struct scpi_link *scpi_link_new(const char *addr, struct error *err);
void scpi_link_free(struct scpi_link *link);

/* The address as given, for messages. */
const char *scpi_link_address(const struct scpi_link *link);

/* Connect (TCP: the name is resolved the first time only; a re-connection
 * goes to the address that answered then) within timeout_ms; what was
 * received before is dropped.  0, or -1 with err (may be NULL). */
int scpi_link_connect(struct scpi_link *link, int timeout_ms, struct error *err);
void scpi_link_disconnect(struct scpi_link *link);
bool scpi_link_connected(const struct scpi_link *link);
/* CLOCK_MONOTONIC ns of the last connection attempt (0: none) */
long long scpi_link_tried_ns(const struct scpi_link *link);

/* Send one query (its newline included): 0, or -1 with errno.  The query
 * is outstanding until scpi_link_answered(). */
int scpi_link_send(struct scpi_link *link, const char *query, size_t len);
bool scpi_link_outstanding(const struct scpi_link *link);
void scpi_link_answered(struct scpi_link *link);

/* The bytes the reads that follow may take, together (SCPI_LINK_CHATTER
 * once spent). */
void scpi_link_budget(struct scpi_link *link, size_t bytes);

/* The next whole line, CR/LF cut, into scpi_link_line(): take what has
 * arrived without blocking (1, 0: none yet, -1: the connection is gone,
 * SCPI_LINK_CHATTER); await it until deadline_ns, CLOCK_MONOTONIC (the
 * same, 0: none in time). */
int scpi_link_take(struct scpi_link *link);
int scpi_link_await(struct scpi_link *link, long long deadline_ns);
const char *scpi_link_line(const struct scpi_link *link);

/* Drop what arrived that answers nothing (extra lines, echoes): 0, -1
 * (gone) or SCPI_LINK_CHATTER; forget: drop it without reading more. */
int scpi_link_drain(struct scpi_link *link);
void scpi_link_forget(struct scpi_link *link);

/* Bytes as if they had arrived (no connection needed, for the fuzz
 * target): how many were taken (as many as there is room for), then
 * scpi_link_next() moves each whole line into scpi_link_line() (1; 0
 * when none is left). */
size_t scpi_link_feed(struct scpi_link *link, const char *data, size_t len);
int scpi_link_next(struct scpi_link *link);

#endif
