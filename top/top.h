/* top.h - sampler top: a live view of where a program's time and energy
 * go while it runs.
 *
 * Two rooms: the recorder (the sampler's own main, in a child process)
 * writes the profile into a pipe, as with -o -; the view (this process)
 * reads it with the profile reader and the exporter's rows and symbolizer
 * (table.h), in a thread of its own, and shows it every refresh: plain
 * tables (--stdio, top.c) or a terminal view (ncurses, screen.c; the
 * views' shared parts are in view.h).  The recorder never waits for the
 * view beyond the pipe's buffer, and symbolization happens in the view's
 * process only.
 */
#ifndef SAMPLER_TOP_TOP_H
#define SAMPLER_TOP_TOP_H

/* (TOP_PROG, the name its messages give: table.h) */

/* The recorder: the sampler's main without "top" (sampler/main.c). */
typedef int (*top_record_fn)(int argc, char **argv);

/* sampler top [options] (-- command | --pid PID | --tid TID): argv[0] is
 * "top".  Returns the exit status. */
int top_main(int argc, char **argv, top_record_fn record);

#endif
