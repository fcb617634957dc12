/* stdfds.h - make sure descriptors 0, 1 and 2 are open before anything else
 * is opened.
 *
 * A program started with one of them closed (2>&-) would otherwise get that
 * number for the next file it opens (the profile, a socket to a meter), and
 * its diagnostics or output would land there.  Well-behaved system tools
 * open /dev/null on the closed ones first thing in main. */
#ifndef SAMPLER_STDFDS_H
#define SAMPLER_STDFDS_H

/* Open /dev/null on each of 0, 1 and 2 that is closed.  Returns a mask of
 * the ones it opened (bit N: descriptor N), so that a program may close
 * them again in a child it starts; -1 when /dev/null cannot be opened
 * (nothing may be opened safely then: exit at once, silently). */
int stdfds_open(void);

#endif
