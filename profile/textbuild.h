/* textbuild.h - a profile written from its text view (docs/FORMAT.md,
 * "Text view"): what `sampler-profile build` reads, the lines `dump`
 * prints, so that tests and tools can write any profile, damaged ones
 * included. */
#ifndef SAMPLER_PROFILE_TEXTBUILD_H
#define SAMPLER_PROFILE_TEXTBUILD_H

#include "../common/error.h"
#include "profile.h"

/* Read the text from stdin and write the profile it describes to path
 * (ending in .bz2: compressed) in format.  -1: err says which line and
 * why (the profile written so far reads back as truncated). */
int profile_text_build(const char *path, enum profile_format format, struct error *err);

#endif
