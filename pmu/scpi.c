/* scpi - a live external meter answering SCPI-style line queries, over TCP
 * (tcp://HOST:PORT) or a serial line (/dev/ttyUSB0@115200): what its
 * answers mean, judged, kept and taken by the samples.  The connection and
 * its lines are scpilink.h's.
 *
 * One road: a thread of the plug-in's own owns the connection from the
 * first sample on (so it runs at the sampler's real-time priority).  It
 * asks the meter, waits for the answer (at most timeout_ms), keeps it with
 * the time it came, and asks again: as fast as the meter answers, at most
 * SCPI_POLL_HZ times a second, or poll_hz= times.  A sample never waits
 * for the meter: it takes what the thread last received.  A meter that
 * answers slowly renews its reading less often (said once, with the
 * figure); it does not slow the target.  (When each sample asked and
 * waited, a meter answering in 80 ms, within timeout_ms=100, held the
 * target stopped 99% of the time: a run of 0.19 s took 19.3 s.)  A
 * reading stands until the next answer; none in timeout_ms, or a lost
 * connection, makes it missing (NaN), and so does an age of twice that
 * (the thread was held back): a sample never gets a stale reading.
 * Answers that come after timeout_ms are recognised as late and dropped.
 * A lost connection is re-opened, at most once a second.
 *
 * Every poll is bounded in time (timeout_ms) and in bytes
 * (SCPI_READ_BUDGET): a meter that sends more than any answer could be (it
 * streams readings by itself, or one endless line) talks out of turn; that
 * reading is missing, the connection is re-opened, and the run says so
 * once.  So do answers that are not a decimal number, and negative power:
 * readings missing, one warning each, quoting what the meter sent.  Every
 * answer the thread receives is judged (plausible.h): overload codes,
 * values out of range and lone spikes are refused as missing readings
 * (never the last reading, never in a count), counted, and said at the
 * end of the run.
 *
 * What the sample takes depends on the unit:
 *
 * unit=W, A, V: the last reading, at most a poll and a round trip old.
 * The channel says so (reads_latest, docs/FORMAT.md): the energy estimate
 * places such a reading at its sample, where it placed an older
 * profile's at the previous sample, when the query went then.
 *
 * unit=J: the meter integrates (a power analyzer's watt-hour counter;
 * default query MEAS:ENER?) and answers the energy it counted so far.  The
 * channel is then an energy channel; the thread adds up the increases of
 * the count, each sample gets the sum since the previous sample (as
 * RAPL's counter does), so energy the meter counted in updates that fell
 * between two samples is never lost, where a power reading held over a
 * long interval misses them (under load 10-65% of a 500 Hz meter's
 * updates reached no reading at 1 kHz).  The handshake's answer is the
 * baseline.  A missing or refused count (timeout, garbage, SCPI's
 * 9.91e37, a count that went back or jumped: plausible.h) keeps the
 * baseline and makes the next sample missing: the next good count carries
 * the energy of both, so a single bad count costs only its update.  A
 * counter that goes on from a refused count was reset (or jumped):
 * counting goes on from there, with one warning.  The count a
 * sample takes is at most a poll (1 ms) and a round trip old, however the
 * samples come: the energy between two samples is that of the interval
 * the sample closes.
 *
 * poll_hz=N: for a meter that reports power only.  The thread asks the
 * meter N times a second and counts each update's energy, its power times
 * the time since the update before (powercount.h).  The channel then
 * counts energy (J), as with unit=J: no update between two samples is
 * lost however long an interval lasts, where one power reading per sample
 * misses the meter's updates in between (under two busy loops the sampler
 * got 4-7 ms intervals and only 35-90% of a 500 Hz meter's updates).
 * Poll at least twice as fast as the meter updates; each poll is a round
 * trip.  A refused reading is left out, as an update no poll saw.
 */
#include "pmu.h"
#include "args.h"
#include "plausible.h"
#include "powercount.h"
#include "scpi.h"
#include "scpicheck.h"
#include "scpilink.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SCPI_DEFAULT_QUERY "MEAS:POW?"
#define SCPI_DEFAULT_ENERGY_QUERY "MEAS:ENER?"	/* unit=J */
#define SCPI_DEFAULT_TIMEOUT_MS 100
#define SCPI_INIT_TIMEOUT_MS 2000	/* first answer and TCP connect */
#define SCPI_RECONNECT_NS 1000000000LL
#define SCPI_SETTLE_NS 20000000LL	/* quiet time after the first answer */
/* Most bytes taken from the meter in one read (an answer is one line of at
 * most 255 bytes; a few unrequested lines may follow it). */
#define SCPI_READ_BUDGET 4096
#define SCPI_QUOTE_MAX 48		/* bytes of a bad answer a message quotes */
/* poll_hz: the longest the poller waits before it looks whether the run
 * has ended (an answer, a re-connection) */
#define POLL_SLICE_MS 100
/* poll_hz: updates unseen this long, because the poller got no CPU, are
 * worth a warning (a few ms now and then are the scheduler's) */
#define HELD_WARN_NS 20000000LL
/* Polls a second without poll_hz=: as fast as the meter answers, up to
 * this (a meter updating faster is rare; poll_hz= goes up to 10000) */
#define SCPI_POLL_HZ 1000
/* Reads and answers seen before a meter is judged slower than the samples */
#define SCPI_PACE_READS 50
#define SCPI_PACE_ANSWERS 3

struct scpi {
	struct scpi_link *link;	/* the connection (scpilink.h) */

	char query[128];	/* with the newline */
	size_t query_len;
	int query_given;
	int timeout_ms;

	/* what the run was already warned about (once each) */
	int warned_chatter, warned_garbage, warned_negative, warned_backwards, warned_held;
	int warned_slow;

	/* unit=J: the meter counts energy; plausible keeps the baseline */
	int integrating;
	int energy_based;	/* a count was taken: there is a baseline */

	/* what a reading may be (max_w=: the meter's largest power, 0: none);
	 * the poller judges, read() and refused() may take the tally */
	double max_w;
	struct plausible *plausible;

	/* The poller thread owns the connection from the first sample on;
	 * read() only takes what it last received (lock guards from here) */
	unsigned long poll_hz;	/* 0: SCPI_POLL_HZ, readings kept as they are */
	struct power_count *count;	/* poll_hz=: the power counted as energy */
	pthread_t poller;
	int poller_started;
	atomic_bool stop;
	pthread_mutex_t lock;
	char note[sizeof(((struct error *)0)->msg)];	/* a warning for read() to pass on */
	struct meter_reading latest;	/* unit W, A, V: the last answer (NaN: none) */
	double energy_counted;	/* unit=J: the sum of the counts' increases */
	double energy_taken;	/* ... at the last good read */
	int energy_lapsed;	/* a count went missing since then */
	long long answer_ns_sum;	/* how long the answers took, */
	unsigned long answers;	/* over this many */
	struct meter_reading *trace;	/* -p help=: every answer, as it came */
	size_t ntrace, trace_max;

	/* read()'s own: how far apart the samples are */
	unsigned long reads;
	long long first_read_ns;

	struct channel_desc channel;
};

/* ---- arguments ------------------------------------------------------------ */

static int parse_unit(struct scpi *scpi, const char *unit, struct error *err)
{
	static const struct {
		const char *unit;
		enum channel_kind kind;
	} units[] = { { "W", CHANNEL_POWER }, { "A", CHANNEL_CURRENT }, { "V", CHANNEL_VOLTAGE },
		      { "J", CHANNEL_ENERGY } };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(unit, units[i].unit) == 0) {
			strcpy(scpi->channel.unit, units[i].unit);
			scpi->channel.kind = units[i].kind;
			scpi->integrating = units[i].kind == CHANNEL_ENERGY;
			return 0;
		}
	}
	return error_set(err, "scpi: bad unit '%s' (use unit=W, unit=A, unit=V, or unit=J for a meter that counts energy)", unit);
}

static int parse_option(struct scpi *scpi, const char *item, struct error *err)
{
	const char *v;
	unsigned long ms;

	if ((v = pmu_arg_option(item, "query"))) {
		if (!*v || strlen(v) + 2 > sizeof(scpi->query) || strpbrk(v, "\r\n"))
			return error_set(err, "scpi: bad query '%s' (give one line of at most %zu characters, e.g. query=MEAS:POW?)",
					 v, sizeof(scpi->query) - 2);
		scpi->query_len = (size_t)snprintf(scpi->query, sizeof(scpi->query), "%s\n", v);
		scpi->query_given = 1;
		return 0;
	}
	if ((v = pmu_arg_option(item, "unit")))
		return parse_unit(scpi, v, err);
	if ((v = pmu_arg_option(item, "timeout_ms"))) {
		if (pmu_arg_ulong("scpi", "timeout_ms", v, 1, 60000, &ms, err) < 0)
			return -1;
		scpi->timeout_ms = (int)ms;
		return 0;
	}
	if ((v = pmu_arg_option(item, "max_w"))) {
		if (reading_parse(v, &scpi->max_w) != 0 || !(scpi->max_w > 0) ||
		    scpi->max_w > PLAUSIBLE_CEILING_W)
			return error_set(err, "scpi: bad value '%s' for max_w (give the meter's largest power in W from its manual, a decimal number above 0 and at most %g, e.g. max_w=2000)",
					 v, PLAUSIBLE_CEILING_W);
		return 0;
	}
	if ((v = pmu_arg_option(item, "poll_hz")))
		return pmu_arg_ulong("scpi", "poll_hz", v, 1, 10000, &scpi->poll_hz, err);
	/* the meter's timing, from its manual: the energy estimate takes it
	 * instead of measuring it (docs/ENERGY.md) */
	if ((v = pmu_arg_option(item, "update_ms"))) {
		scpi->channel.has_update = true;
		return pmu_arg_ms("scpi", "update_ms", v, CHANNEL_TIMING_MAX_MS,
				  &scpi->channel.update_ms, err);
	}
	if ((v = pmu_arg_option(item, "delay_ms"))) {
		scpi->channel.has_delay = true;
		return pmu_arg_ms("scpi", "delay_ms", v, CHANNEL_TIMING_MAX_MS,
				  &scpi->channel.delay_ms, err);
	}
	if ((v = pmu_arg_option(item, "name"))) {
		if (!*v || strlen(v) >= sizeof(scpi->channel.name))
			return error_set(err, "scpi: bad name '%s' (give 1 to %zu characters)",
					 v, sizeof(scpi->channel.name) - 1);
		strcpy(scpi->channel.name, v);
		return 0;
	}
	return error_set(err, "scpi: unknown option '%s' (options: query=..., unit=W|A|V|J, timeout_ms=N, poll_hz=N, max_w=W, update_ms=MS, delay_ms=MS, name=...)",
			 item);
}

static int parse_args(struct scpi *scpi, const char *args, struct error *err)
{
	struct pmu_args list;
	int ret = 0;

	if (pmu_args_split(&list, "scpi", args, err) < 0)
		return -1;
	if (list.n == 0 || strchr(list.items[0], '='))
		ret = error_set(err, "scpi: no meter address (use -p scpi:tcp://HOST:PORT or -p scpi:/dev/ttyUSB0@115200)");
	for (unsigned i = 0; i < list.n && ret == 0; i++)
		ret = i == 0 ? (scpi->link = scpi_link_new(list.items[0], err)) ? 0 : -1
			     : parse_option(scpi, list.items[i], err);
	pmu_args_free(&list);
	if (ret == 0 && scpi->max_w > 0 && scpi->channel.kind != CHANNEL_POWER &&
	    !scpi->integrating)
		return error_set(err, "scpi: max_w= bounds a power meter's readings: it needs unit=W or unit=J");
	if (ret == 0 && scpi->poll_hz && scpi->channel.kind != CHANNEL_POWER)
		return error_set(err, "scpi: poll_hz= integrates power readings: it needs unit=W (a meter that counts energy itself: unit=J, without poll_hz)");
	if (ret == 0 && scpi->poll_hz) {	/* the energy of the readings */
		strcpy(scpi->channel.unit, "J");
		scpi->channel.kind = CHANNEL_ENERGY;
		/* the count sees an update when a poll does: on average half a
		 * poll period after the meter's delay (t2120 8) */
		if (scpi->channel.has_delay)
			scpi->channel.delay_ms = fmin(scpi->channel.delay_ms + 500.0 / (double)scpi->poll_hz,
						      CHANNEL_TIMING_MAX_MS);
	}
	if (ret == 0 && scpi->integrating && !scpi->query_given)
		scpi->query_len = (size_t)snprintf(scpi->query, sizeof(scpi->query), "%s\n",
						   SCPI_DEFAULT_ENERGY_QUERY);
	return ret;
}

/* What a meter sent, fit for a one-line message (error_quote). */
static const char *quote(const char *text, char *out, size_t size)
{
	return error_quote(out, size, text, SCPI_QUOTE_MAX);
}

/* Say once per run what made readings missing (err: the set prints it). */
static void warn_once(int *warned, struct error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn_once(int *warned, struct error *err, const char *fmt, ...)
{
	va_list ap;

	if (*warned || !err)
		return;
	*warned = 1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* The reading in a fresh answer into *value, and 0; or NaN and why it
 * was refused (plausible.h): not a number, an overload code, a negative
 * or implausible power (a count is judged by count_delta). */
static int answer_value(struct scpi *scpi, double *value, struct error *err)
{
	char quoted[4 * SCPI_QUOTE_MAX + 8];
	int verdict = reading_parse(scpi_link_line(scpi->link), value);

	if (verdict == CHANNEL_REFUSED_NOT_DECIMAL)
		warn_once(&scpi->warned_garbage, err,
			  "scpi: meter at %s answered '%s' to '%.*s', not a number; such readings are recorded as missing (give a query that returns one reading, e.g. query=MEAS:POW?, and set the meter to answer in decimal)",
			  scpi_link_address(scpi->link), quote(scpi_link_line(scpi->link), quoted, sizeof(quoted)),
			  (int)scpi->query_len - 1, scpi->query);
	if (!verdict && (scpi->channel.kind == CHANNEL_POWER || scpi->poll_hz) && *value < 0) {
		warn_once(&scpi->warned_negative, err,
			  "scpi: meter at %s answered '%s' to '%.*s', a negative power; such readings are recorded as missing (check the meter's wiring or current direction; unit=A or unit=V record signed values)",
			  scpi_link_address(scpi->link), quote(scpi_link_line(scpi->link), quoted, sizeof(quoted)),
			  (int)scpi->query_len - 1, scpi->query);
		verdict = CHANNEL_REFUSED_RANGE;
	}
	if (verdict) {
		plausible_refuse(scpi->plausible, verdict);
	} else if (!scpi->integrating) {
		verdict = plausible_power(scpi->plausible, *value);
	}
	if (verdict)
		*value = NAN;
	return verdict;
}

/* unit=J: the energy since the last good count, answered at t_ns, or NaN
 * (a missing or refused count: the baseline stays, and the next good
 * count carries the energy of both updates).  A counter that was reset,
 * or jumped, and goes on from there is said once. */
static double count_delta(struct scpi *scpi, double count, long long t_ns, struct error *err)
{
	double delta, from;

	if (isnan(count))
		return NAN;
	if (plausible_count(scpi->plausible, count, t_ns, &delta, &from) == 0)
		scpi->energy_based = 1;
	if (!isnan(from))
		warn_once(&scpi->warned_backwards, err,
			  "scpi: meter at %s: its energy counter was reset or jumped, and went on from %.9g J: the update in between is recorded as missing (do not reset or restart the meter's integration during a run)",
			  scpi_link_address(scpi->link), from);
	return delta;
}

/* The meter sent more than any answer could be: it talks out of turn.
 * Whatever it said this time is no reading; start afresh. */
static void on_chatter(struct scpi *scpi, struct error *err)
{
	warn_once(&scpi->warned_chatter, err,
		  "scpi: meter at %s sent more than %d bytes between two samples without being asked; such readings are recorded as missing and the connection is re-opened (set the meter to answer queries only: turn off its continuous or streaming output)",
		  scpi_link_address(scpi->link), SCPI_READ_BUDGET);
	scpi_link_disconnect(scpi->link);
}

/* ---- the poller thread --------------------------------------------------------- */

static long long poll_period_ns(const struct scpi *scpi)
{
	return 1000000000LL / (long long)(scpi->poll_hz ? scpi->poll_hz : SCPI_POLL_HZ);
}

/* A warning of the poller's, for the next read() to pass on (the first
 * one waiting wins; each is said once anyway).  Called with the lock. */
static void post_note(struct scpi *scpi, const char *msg)
{
	if (!scpi->note[0])
		snprintf(scpi->note, sizeof(scpi->note), "%s", msg);
}

/* The answer to the query just sent, as await_line until timeout_ms, but
 * in slices, so that the end of the run need not wait for a slow meter. */
static int await_answer(struct scpi *scpi)
{
	long long deadline = scpi_link_now_ns() + (long long)scpi->timeout_ms * 1000000, slice;
	int ret;

	do {
		slice = scpi_link_now_ns() + POLL_SLICE_MS * 1000000LL;
		ret = scpi_link_await(scpi->link, slice < deadline ? slice : deadline);
	} while (ret == 0 && scpi_link_now_ns() < deadline && !atomic_load(&scpi->stop));
	return ret;
}

/* unit=J: a count (NaN: none) answered at t_ns added to the energy
 * counted; a missing or refused one makes the next read missing (the
 * baseline carries the energy over to the next good count, so nothing is
 * lost).  Reads are missing anyway until there is a baseline.  Called
 * with the lock. */
static void keep_count(struct scpi *scpi, double count, long long t_ns, struct error *err)
{
	int had_base = scpi->energy_based;
	double delta = count_delta(scpi, count, t_ns, err);

	if (!isnan(delta))
		scpi->energy_counted += delta;
	else if (had_base)
		scpi->energy_lapsed = 1;
}

/* What one poll got (NaN: nothing usable), at t_ns, for the sample to
 * take: the reading itself, the count, or the power counted as energy.
 * refused: the answer was refused (plausible.h); poll_hz= leaves it out,
 * as an update no poll saw.  Returns the ns of the meter's updates no
 * poll saw (poll_hz=). */
static long long keep_answer(struct scpi *scpi, double value, int refused, long long t_ns,
			     struct error *err)
{
	long long unseen = 0;

	pthread_mutex_lock(&scpi->lock);
	if (scpi->ntrace < scpi->trace_max)
		scpi->trace[scpi->ntrace++] = (struct meter_reading){ value, t_ns };
	if (scpi->count) {
		if (!refused)
			unseen = power_count_feed(scpi->count, value, t_ns);
	} else if (scpi->integrating) {
		keep_count(scpi, value, t_ns, err);
	} else {
		scpi->latest = (struct meter_reading){ value, t_ns };
	}
	pthread_mutex_unlock(&scpi->lock);
	return unseen;
}

/* How long an answer took (a meter slower than the samples). */
static void time_answer(struct scpi *scpi, long long ns)
{
	pthread_mutex_lock(&scpi->lock);
	scpi->answer_ns_sum += ns;
	scpi->answers++;
	pthread_mutex_unlock(&scpi->lock);
}

/* One poll: a query and its answer, kept with the time it came.  A
 * connection lost or talking out of turn, or an answer that is no
 * reading, makes the reading unknown until the next good answer; one that
 * comes late stays outstanding and is dropped when it comes. */
static void poll_once(struct scpi *scpi, struct error *err)
{
	struct scpi_link *link = scpi->link;
	long long unseen, sent = 0;
	double value = NAN;
	int ret = 0, refused = 0, late;

	scpi_link_budget(link, SCPI_READ_BUDGET);
	if (!scpi_link_connected(link) &&
	    (scpi_link_now_ns() - scpi_link_tried_ns(link) < SCPI_RECONNECT_NS ||
	     scpi_link_connect(link, scpi->timeout_ms < POLL_SLICE_MS ? scpi->timeout_ms : POLL_SLICE_MS,
			       NULL) < 0))
		return;
	late = scpi_link_outstanding(link);
	if (late && (ret = scpi_link_take(link)) == 0)
		return;		/* the late answer has not come yet */
	if (!late || ret > 0) {
		scpi_link_answered(link);
		ret = scpi_link_drain(link);
		sent = scpi_link_now_ns();
		if (ret == 0 && scpi_link_send(link, scpi->query, scpi->query_len) < 0)
			ret = -1;
		if (ret == 0 && (ret = await_answer(scpi)) == 0) {
			keep_answer(scpi, NAN, 0, scpi_link_now_ns(), err);	/* no answer in time */
			return;
		}
	}
	if (ret == SCPI_LINK_CHATTER)
		on_chatter(scpi, err);
	else if (ret < 0)
		scpi_link_disconnect(link);
	else
		scpi_link_answered(link);
	if (ret > 0 && sent)
		time_answer(scpi, scpi_link_now_ns() - sent);
	if (ret > 0)
		refused = answer_value(scpi, &value, err);
	unseen = keep_answer(scpi, value, refused, scpi_link_now_ns(), err);
	if (unseen >= HELD_WARN_NS && !err->msg[0])
		warn_once(&scpi->warned_held, err,
			  "scpi: the thread polling %s was held back: %.1f ms of the meter's updates went unseen, counted at the mean power before them (give the sampler a CPU of its own; said once)",
			  scpi_link_address(scpi->link), (double)unseen * 1e-6);
	if (err->msg[0]) {
		pthread_mutex_lock(&scpi->lock);
		post_note(scpi, err->msg);
		pthread_mutex_unlock(&scpi->lock);
	}
}

static void *poll_meter(void *arg)
{
	struct scpi *scpi = arg;
	long long period = poll_period_ns(scpi), next = scpi_link_now_ns();

	while (!atomic_load(&scpi->stop)) {
		struct error got;
		struct timespec at;

		got.msg[0] = '\0';
		poll_once(scpi, &got);
		next += period;
		if (next < scpi_link_now_ns()) {	/* behind (a slow answer): no burst to catch up */
			next = scpi_link_now_ns();
			continue;
		}
		at.tv_sec = next / 1000000000LL;
		at.tv_nsec = next % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
	}
	return NULL;
}

/* Started at the first sample, once the sampler has its scheduling (the
 * thread inherits it), with every signal blocked: they are the engine's. */
static int start_poller(struct scpi *scpi, struct error *err)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&scpi->poller, NULL, poll_meter, scpi);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret != 0)
		return error_set(err, "scpi: cannot start the thread that polls the meter at %s: %s (free some memory or threads)",
				 scpi_link_address(scpi->link), strerror(ret));
	scpi->poller_started = 1;
	return 0;
}

/* Polls further apart than this lost the meter: the time between them is
 * not counted, a reading this old is none. */
static long long scpi_gap_ns(const struct scpi *scpi)
{
	return (long long)scpi->timeout_ms * 1000000 + poll_period_ns(scpi);
}

/* ---- reading ------------------------------------------------------------------- */

/* What the sample takes, with the lock: the reading the poller last
 * received (it stands until the next answer, or NaN when none comes in
 * timeout_ms), unless it is older than two such waits (the poller was
 * held back: a missing reading, never a stale one); the count since the
 * previous read. */
static double take_reading(struct scpi *scpi, long long t_ns)
{
	double energy;

	if (scpi->count)
		return power_count_take(scpi->count);
	if (!scpi->integrating)
		return t_ns - scpi->latest.t_ns <= 2 * scpi_gap_ns(scpi) ? scpi->latest.value : NAN;
	if (scpi->energy_lapsed || !scpi->energy_based) {
		scpi->energy_lapsed = 0;
		return NAN;	/* energy_taken stays: the next read covers both */
	}
	energy = scpi->energy_counted - scpi->energy_taken;
	scpi->energy_taken = scpi->energy_counted;
	return energy;
}

/* Say once when the meter answers slower than the samples come: its
 * reading is renewed less often than they are (the target is not held). */
static void check_pace(struct scpi *scpi, long long t_ns, struct error *err)
{
	double answer_ms, asked_ms, sample_ms;

	scpi->reads++;
	if (scpi->warned_slow || err->msg[0] || scpi->reads < SCPI_PACE_READS ||
	    scpi->answers < SCPI_PACE_ANSWERS)
		return;
	answer_ms = (double)scpi->answer_ns_sum / (double)scpi->answers * 1e-6;
	asked_ms = (double)poll_period_ns(scpi) * 1e-6;
	sample_ms = (double)(t_ns - scpi->first_read_ns) / (double)(scpi->reads - 1) * 1e-6;
	/* slower than the samples, or than the polls poll_hz= asked for */
	if (answer_ms < 2 * sample_ms && (!scpi->poll_hz || answer_ms < 1.5 * asked_ms))
		return;
	warn_once(&scpi->warned_slow, err,
		  "scpi: meter at %s takes %.1f ms to answer '%.*s': its reading is renewed every %.1f ms at best, samples come every %.1f ms; each sample records the meter's latest reading, the target is not held (a meter answering faster gives more readings; said once)",
		  scpi_link_address(scpi->link), answer_ms, (int)scpi->query_len - 1, scpi->query,
		  fmax(answer_ms, asked_ms), sample_ms);
}

/* The sample never waits for the meter: the poller thread asks it, the
 * sample takes what came last and the poller's warning if one waits. */
static int scpi_read(void *state, double *values, struct error *err)
{
	struct scpi *scpi = state;
	long long t_ns = scpi_link_now_ns();

	if (!scpi->poller_started) {
		/* the handshake's reading stands until the poller's first
		 * answer, as any reading until the next */
		scpi->latest.t_ns = t_ns;
		scpi->first_read_ns = t_ns;
		/* poll_hz=: the handshake's power counts until the poller's
		 * first answer (which a loaded machine delayed by up to 75 ms
		 * of a 1.5 s run, uncounted before) */
		if (scpi->count && !isnan(scpi->latest.value))
			power_count_feed(scpi->count, scpi->latest.value, t_ns);
		if (start_poller(scpi, err) < 0)
			return -1;
	}
	pthread_mutex_lock(&scpi->lock);
	values[0] = take_reading(scpi, t_ns);
	if (scpi->note[0] && err)
		snprintf(err->msg, sizeof(err->msg), "%s", scpi->note);
	scpi->note[0] = '\0';
	if (err)
		check_pace(scpi, t_ns, err);
	pthread_mutex_unlock(&scpi->lock);
	return 0;
}

/* ---- the parsers alone, for the fuzz targets (scpi.h) ------------------------ */

int scpi_check_args(const char *args, struct error *err)
{
	struct scpi *scpi = calloc(1, sizeof(*scpi));
	int ret;

	if (!scpi)
		return error_set(err, "scpi: out of memory");
	ret = parse_args(scpi, args, err);
	scpi_link_free(scpi->link);
	free(scpi);
	return ret;
}

size_t scpi_scan_replies(const char *data, size_t len, size_t chunk)
{
	/* any address will do: nothing is connected, the bytes are fed */
	struct scpi_link *link = scpi_link_new("/dev/null", NULL);
	struct plausible *power = plausible_new(true, 0, 0), *count = plausible_new(true, 0, 0);
	size_t numbers = 0;
	long long t_ns = 0;
	double value;

	if (!link || !power || !count)
		goto out;
	chunk = chunk ? chunk : 1;
	while (len) {
		size_t n = scpi_link_feed(link, data, len < chunk ? len : chunk);

		data += n;
		len -= n;
		while (scpi_link_next(link)) {
			const char *line = scpi_link_line(link);
			char quoted[4 * SCPI_QUOTE_MAX + 8];

			if (reading_parse(line, &value) == 0) {
				double delta, from;

				numbers++;	/* judged as power and as a count */
				plausible_power(power, value);
				plausible_count(count, value, t_ns += 1000000, &delta, &from);
			} else if (strlen(quote(line, quoted, sizeof(quoted))) >= sizeof(quoted))
				abort();	/* never: the quote fits */
		}
	}
out:
	plausible_free(power);
	plausible_free(count);
	scpi_link_free(link);
	return numbers;
}

/* ---- set-up ------------------------------------------------------------------ */

static int chatter_error(const struct scpi *scpi, struct error *err)
{
	return error_set(err, "scpi: meter at %s sends more than %d bytes without being asked (set it to answer queries only: turn off its continuous or streaming output)",
			 scpi_link_address(scpi->link), SCPI_READ_BUDGET);
}

/* Ask once and insist on a number, so that a wrong address, baud rate or
 * query stops the run before the target starts. */
static int handshake(struct scpi *scpi, struct error *err)
{
	char quoted[4 * SCPI_QUOTE_MAX + 8];
	double value;
	int ret;

	if (scpi_link_send(scpi->link, scpi->query, scpi->query_len) < 0)
		return error_set(err, "scpi: cannot send to %s: %s (check the connection)",
				 scpi_link_address(scpi->link), strerror(errno));
	scpi_link_budget(scpi->link, SCPI_READ_BUDGET);
	ret = scpi_link_await(scpi->link, scpi_link_now_ns() + (long long)SCPI_INIT_TIMEOUT_MS * 1000000);
	if (ret == SCPI_LINK_CHATTER)
		return chatter_error(scpi, err);
	if (ret <= 0)
		return error_set(err, "scpi: meter at %s %s '%.*s' within %d ms (check query=, the baud rate, and that the meter ends answers with a newline)",
				 scpi_link_address(scpi->link), ret < 0 ? "closed the connection instead of answering" : "did not answer",
				 (int)scpi->query_len - 1, scpi->query, SCPI_INIT_TIMEOUT_MS);
	scpi_link_answered(scpi->link);
	if (reading_parse(scpi_link_line(scpi->link), &value) == CHANNEL_REFUSED_NOT_DECIMAL)
		return error_set(err, "scpi: meter at %s answered '%s' to '%.*s', not a number (give a query that returns one reading, e.g. query=MEAS:POW?)",
				 scpi_link_address(scpi->link), quote(scpi_link_line(scpi->link), quoted, sizeof(quoted)),
				 (int)scpi->query_len - 1, scpi->query);
	/* unit=J: the baseline; else the first sample's reading, until the
	 * poller has one, judged as any answer */
	if (scpi->integrating)
		count_delta(scpi, value, scpi_link_now_ns(), NULL);
	else
		answer_value(scpi, &value, NULL);
	/* let lines that follow an answer (some meters add one) go by */
	while ((ret = scpi_link_await(scpi->link, scpi_link_now_ns() + SCPI_SETTLE_NS)) > 0)
		;
	if (ret == SCPI_LINK_CHATTER)
		return chatter_error(scpi, err);
	scpi_link_forget(scpi->link);
	scpi->latest = (struct meter_reading){ value, scpi_link_now_ns() };
	return 0;
}

static void scpi_release(void *state)
{
	struct scpi *scpi = state;

	if (!scpi)
		return;
	if (scpi->poller_started) {
		atomic_store(&scpi->stop, true);
		pthread_join(scpi->poller, NULL);
	}
	power_count_free(scpi->count);
	plausible_free(scpi->plausible);
	free(scpi->trace);
	pthread_mutex_destroy(&scpi->lock);
	scpi_link_free(scpi->link);
	free(scpi);
}

static int scpi_init(void **state, const char *args, struct error *err)
{
	struct scpi *scpi = calloc(1, sizeof(*scpi));

	if (!scpi)
		return error_set(err, "scpi: out of memory");
	scpi->timeout_ms = SCPI_DEFAULT_TIMEOUT_MS;
	scpi->query_len = (size_t)snprintf(scpi->query, sizeof(scpi->query), "%s\n", SCPI_DEFAULT_QUERY);
	strcpy(scpi->channel.name, "scpi");
	strcpy(scpi->channel.source, "scpi");
	strcpy(scpi->channel.unit, "W");
	scpi->channel.scale = 1;
	scpi->channel.kind = CHANNEL_POWER;
	scpi->channel.scope = CHANNEL_PER_SAMPLE;
	scpi->channel.reads_latest = true;	/* the thread's last answer */
	if (pthread_mutex_init(&scpi->lock, NULL) != 0) {
		free(scpi);
		return error_set(err, "scpi: out of memory");
	}
	if (parse_args(scpi, args, err) < 0 ||
	    (!(scpi->plausible = plausible_new(scpi->channel.kind == CHANNEL_POWER || scpi->integrating ||
						 scpi->poll_hz, scpi->max_w,
						 scpi->channel.has_update ? scpi->channel.update_ms * 1e-3 : 0)) &&
	     error_set(err, "scpi: out of memory") < 0) ||
	    (scpi->poll_hz && !(scpi->count = power_count_new(scpi_gap_ns(scpi))) &&
	     error_set(err, "scpi: out of memory") < 0) ||
	    scpi_link_connect(scpi->link, SCPI_INIT_TIMEOUT_MS, err) < 0 ||
	    handshake(scpi, err) < 0) {
		scpi_release(scpi);
		return -1;
	}
	*state = scpi;
	return 0;
}

/* ---- -p help=scpi:...: the meter checked before a run ------------------------ */

#define CHECK_NS 1000000000LL	/* how long the meter is watched */

/* The unit of the meter's answers (poll_hz= records them as J). */
static const char *answer_unit(const struct scpi *scpi)
{
	return scpi->integrating ? "J" : scpi->poll_hz ? "W" : scpi->channel.unit;
}

/* Watch the meter for a second, as a run's poller would ask it, and say
 * what it gives; refuse a meter that says nothing or only 0. */
static int scpi_check(void *state, FILE *out, struct error *err)
{
	struct scpi *scpi = state;
	struct timespec wait = { CHECK_NS / 1000000000LL, CHECK_NS % 1000000000LL };
	char query[sizeof(scpi->query)];
	struct scpi_check_setup setup = {
		.address = scpi_link_address(scpi->link), .query = query,
		.unit = answer_unit(scpi), .integrating = scpi->integrating,
		.timeout_ms = scpi->timeout_ms,
		.has_update = scpi->channel.has_update, .update_ms = scpi->channel.update_ms,
		.has_delay = scpi->channel.has_delay, .delay_ms = scpi->channel.delay_ms,
		.delay_plus_poll = scpi->poll_hz != 0,
	};

	scpi->trace_max = (size_t)(CHECK_NS / poll_period_ns(scpi)) + 16;
	scpi->trace = calloc(scpi->trace_max, sizeof(*scpi->trace));
	if (!scpi->trace)
		return error_set(err, "scpi: out of memory");
	if (start_poller(scpi, err) < 0)
		return -1;
	while (nanosleep(&wait, &wait) < 0 && errno == EINTR)
		;
	atomic_store(&scpi->stop, true);
	pthread_join(scpi->poller, NULL);
	scpi->poller_started = 0;
	snprintf(query, sizeof(query), "%.*s", (int)scpi->query_len - 1, scpi->query);
	if (scpi->answers)
		setup.answer_ms = (double)scpi->answer_ns_sum / (double)scpi->answers * 1e-6;
	return scpi_check_answers(scpi->trace, scpi->ntrace, &setup, out, err);
}

static void scpi_refused(void *state, struct channel_refused *out)
{
	struct scpi *scpi = state;

	plausible_tally(scpi->plausible, out);
}

static size_t scpi_channels(void *state, const struct channel_desc **channels)
{
	struct scpi *scpi = state;

	*channels = &scpi->channel;
	return 1;
}

static int scpi_probe(struct error *why)
{
	(void)why;
	return 0;
}

static void scpi_list(FILE *out)
{
	fputs("needs a meter address, e.g. scpi:tcp://192.168.1.50:5025 or scpi:/dev/ttyUSB0@115200", out);
}

const struct pmu_ops pmu_scpi = {
	.name = "scpi",
	.syntax = "scpi:ADDRESS[,query=Q][,unit=W|A|V|J][,timeout_ms=N][,poll_hz=N][,max_w=W][,update_ms=MS][,delay_ms=MS][,name=N]",
	.summary = "external meter over tcp://HOST:PORT or /dev/ttyX@BAUD, one SCPI query per sample (default MEAS:POW?), or poll_hz=N a second, integrated",
	.probe = scpi_probe,
	.list = scpi_list,
	.init = scpi_init,
	.channels = scpi_channels,
	.read = scpi_read,
	.refused = scpi_refused,
	.release = scpi_release,
	.check = scpi_check,
};
