/* textescape.h - the one escaping rule of every text output.
 *
 * A byte that cannot be shown as it is is written %XX (two upper-case hex
 * digits), byte by byte: a C0 control (0x00-0x1f: ESC, BEL, newline, tab),
 * DEL (0x7f), a C1 control (U+0080-U+009F, bytes C2 80-C2 9F) and any byte
 * that is not part of a well-formed UTF-8 sequence.  So is every byte of
 * the caller's `also` set, the separators of its own syntax (the text form
 * of profiles adds space, '%', '=' and ','; see profile/textform.h).  Every
 * other byte is written as it is.
 *
 * The result is valid UTF-8 holding no control character: a terminal
 * shows it and interprets nothing, no line can be forged, and an XML or
 * JSON writer only has its own syntax characters left to quote.  With '%'
 * in `also` it reads back byte for byte (textform_unescape).  Python
 * applies the same rule (scripts/samplerlib/textview.py, escape_text);
 * docs/EXPORT.md, "Names in text outputs", shows it on a hostile name.
 */
#ifndef SAMPLER_COMMON_TEXTESCAPE_H
#define SAMPLER_COMMON_TEXTESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* How many bytes at s can be written as they are: the length of the
 * printable UTF-8 character at s that is not in also (1 to 4), or 0 when
 * the byte at s must be written %XX (or s is at its end). */
size_t textescape_shown(const char *s, const char *also);

/* The byte ch as %XX: into out[0..2] (no NUL), or to f. */
void textescape_byte(char out[3], unsigned char ch);
void textescape_put_byte(FILE *f, unsigned char ch);

/* Write s to f by the rule. */
void textescape_put(FILE *f, const char *s, const char *also);

/* Write s by the rule into out (size > 0 bytes), cut before the escape or
 * character that would not fit; returns out. */
char *textescape_str(char *out, size_t size, const char *s, const char *also);

#endif
