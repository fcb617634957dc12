/* jitcode.h - code generated at run time, as a JIT compiler makes it: a
 * loop copied into an anonymous executable mapping, and the one function
 * that calls it (jit, jitmap).  The generated function keeps a frame
 * pointer, as V8's and HotSpot's code does, and calls back into the
 * program after its loop (a JIT frame between native frames), as JIT code
 * calls the runtime.  Header-only, as workload.h. */
#ifndef SAMPLER_EXAMPLES_JITCODE_H
#define SAMPLER_EXAMPLES_JITCODE_H

#include <string.h>
#include <sys/mman.h>

#include "workload.h"

#if defined(__x86_64__)
/* void loop(void (*callback)(void)):
 *	push %rbp; mov %rsp, %rbp; mov $0x100000, %ecx; 1: dec %rcx; jnz 1b;
 *	test %rdi, %rdi; jz 2f; call *%rdi; 2: pop %rbp; ret */
static const unsigned char jit_loop_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0xb9, 0x00, 0x00, 0x10, 0x00, 0x48, 0xff, 0xc9, 0x75, 0xfb,
	0x48, 0x85, 0xff, 0x74, 0x02, 0xff, 0xd7, 0x5d, 0xc3,
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

static volatile uint64_t jit_sink;

/* What the generated code calls back: about a fifth of its time. */
__attribute__((noinline)) void jit_callback(void)
{
	jit_sink += work_units(50000, jit_sink + 1);
}

/* Calls the generated code from a frame of the program's own. */
__attribute__((noinline)) void jit_caller(void *code)
{
	((void (*)(void (*)(void)))code)(jit_callback);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

#endif
