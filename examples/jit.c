/* jit [SECONDS] - code generated at run time, as a JIT compiler makes it:
 * a loop copied into an anonymous executable mapping and called there for
 * most of the time, from jit_caller().  A sample in it has a PC in no
 * file mapping: its stack cannot be unwound with CFI ("unknown map"). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "workload.h"

#if defined(__x86_64__)
/* mov $0x100000, %ecx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char loop_code[] = {
	0xb9, 0x00, 0x00, 0x10, 0x00, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3,
};
#endif

__attribute__((noinline)) void jit_caller(void (*fn)(void))
{
	fn();
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 1.0);
	void *code = MAP_FAILED;

#if defined(__x86_64__)
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code != MAP_FAILED)
		memcpy(code, loop_code, sizeof(loop_code));
#endif
	if (code == MAP_FAILED) {
		fprintf(stderr, "jit: no executable anonymous memory here\n");
		return 1;
	}
	while (now_s() < end)
		jit_caller((void (*)(void))code);
	return 0;
}
