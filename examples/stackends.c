/* stackends MODE [SECONDS] - stacks that end short, each for one reason,
 * for the tests of how the recorder names and counts the reasons:
 *   nocfi   main -> hash_caller -> asm_hash: hand-written assembly without
 *           CFI whose rbp points at data on the stack (as openssl's
 *           SHA-256 keeps its message schedule): no unwinder can find its
 *           caller ("no-cfi")
 *   jitcall main -> jit_caller -> code in an anonymous executable mapping
 *           that keeps a frame pointer and calls back c_work(): stacks in
 *           c_work pass the JIT frame and reach _start ("complete")
 *   deep    a recursion 300 deep works at its bottom: deeper than
 *           --max-stack's default of 127 ("max-depth") */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "workload.h"

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;

#if defined(__x86_64__)
/* uint64_t asm_hash(uint64_t n): n rounds mixing through a scratch buffer
 * on the stack that rbp points at (as openssl's SHA-256 keeps its message
 * schedule); no .cfi_* directives, so no FDE covers it, and rbp as a frame
 * pointer leads to data, not to a return address. */
__asm__(".text\n"
	".globl asm_hash\n"
	".type asm_hash, @function\n"
	"asm_hash:\n"
	"	push %rbp\n"
	"	sub $32, %rsp\n"
	"	mov %rsp, %rbp\n"
	"	mov %rdi, %rcx\n"
	"	mov $0x9e3779b97f4a7c15, %rax\n"
	"	mov %rax, 0(%rbp)\n"
	"	mov %rax, 8(%rbp)\n"
	"1:	mov 8(%rbp), %rdx\n"
	"	add %rdx, %rax\n"
	"	rol $13, %rax\n"
	"	xor %rax, %rdx\n"
	"	or $1, %rdx\n"
	"	mov %rdx, 8(%rbp)\n"
	"	mov %rax, 0(%rbp)\n"
	"	dec %rcx\n"
	"	jnz 1b\n"
	"	add $32, %rsp\n"
	"	pop %rbp\n"
	"	ret\n"
	".size asm_hash, .-asm_hash\n");
uint64_t asm_hash(uint64_t n);
#endif

NOINLINE void hash_caller(void)
{
#if defined(__x86_64__)
	sink += asm_hash(1000000);
#endif
	sink++;
}

NOINLINE void c_work(void)
{
	sink += work_units(200000, sink + 1);
}

#if defined(__x86_64__)
/* push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret */
static const unsigned char jit_code[] = {
	0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3,
};
#endif

NOINLINE void jit_caller(void (*code)(void (*)(void)))
{
	code(c_work);
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

NOINLINE uint64_t deep(int depth)
{
	if (depth == 0)
		return work_units(200000, sink + 2);
	return deep(depth - 1) + 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double end = now_s() + arg_double(argc, argv, 2, 1.0);
	void *code = MAP_FAILED;

	if (strcmp(mode, "jitcall") == 0) {
#if defined(__x86_64__)
		code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (code != MAP_FAILED)
			memcpy(code, jit_code, sizeof(jit_code));
#endif
		if (code == MAP_FAILED) {
			fprintf(stderr, "stackends: no executable anonymous memory here\n");
			return 1;
		}
	} else if (strcmp(mode, "nocfi") != 0 && strcmp(mode, "deep") != 0) {
		fprintf(stderr, "usage: stackends nocfi|jitcall|deep [SECONDS]\n");
		return 2;
	}
	while (now_s() < end) {
		if (*mode == 'n')
			hash_caller();
		else if (*mode == 'j')
			jit_caller((void (*)(void (*)(void)))code);
		else
			sink += deep(300);
	}
	return 0;
}
