/* lib-leak.so - preloaded into a sanitizer-built program to prove that its
 * LeakSanitizer really runs at exit: a constructor leaks one block of a
 * size that stands out (LEAK_BYTES). */
#include <stdlib.h>

#define LEAK_BYTES 4242

static void *volatile sink;

__attribute__((constructor)) static void leak_one_block(void)
{
	sink = malloc(LEAK_BYTES);
	sink = NULL;
}
