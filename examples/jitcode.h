/* jitcode.h - code generated at run time, as a JIT compiler makes it: a
 * loop copied into an anonymous executable mapping, and the one function
 * that calls it (jit, jitmap).  Header-only, as workload.h. */
#ifndef SAMPLER_EXAMPLES_JITCODE_H
#define SAMPLER_EXAMPLES_JITCODE_H

#include <string.h>
#include <sys/mman.h>

#if defined(__x86_64__)
/* mov $0x100000, %ecx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char jit_loop_code[] = {
	0xb9, 0x00, 0x00, 0x10, 0x00, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3,
};
#else
static const unsigned char jit_loop_code[1];
#endif

/* The loop in a new anonymous executable mapping, or MAP_FAILED. */
static inline void *jit_loop_new(void)
{
	void *code = MAP_FAILED;

#if defined(__x86_64__)
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code != MAP_FAILED)
		memcpy(code, jit_loop_code, sizeof(jit_loop_code));
#endif
	return code;
}

/* Calls the generated code from a frame of the program's own. */
__attribute__((noinline)) void jit_caller(void (*fn)(void))
{
	fn();
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

#endif
