/* demangle.c - mangled symbol names made readable (see demangle.h). */
#include "demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

char *demangle(const char *name)
{
	const char *at = strchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);
	char *bare, *plain, *out;

	/* _Z: C++ and Rust legacy (_ZN...17h<hash>E); _R: Rust v0.  Anything
	 * else is a C name, never handed to the demangler. */
	if (len < 3 || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	bare = strndup(name, len);
	if (!bare)
		return NULL;
	plain = cplus_demangle(bare, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	free(bare);
	if (!plain || !at)
		return plain;
	out = malloc(strlen(plain) + strlen(at) + 1);
	if (out)
		sprintf(out, "%s%s", plain, at);
	free(plain);
	return out;
}
