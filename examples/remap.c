/* remap [SECONDS] - a program that maps a second copy of its own code
 * elsewhere, as node does with V8's builtins, then works in its own
 * functions (main -> remap_outer -> remap_inner) from the first copy.
 * Built -no-pie as remap-nopie (node is not PIE either): the copy is not
 * the program, whose frames must still be unwound with its CFI.  Prints
 * "copy=ADDR" once the copy is mapped. */
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

#define NOINLINE __attribute__((noinline))

static volatile uint64_t sink;

NOINLINE void remap_inner(void)
{
	sink += work_units(100000, sink + 1);
}

NOINLINE void remap_outer(void)
{
	remap_inner();
	__asm__ volatile("" ::: "memory");	/* no tail call */
}

/* The program's first executable segment, mapped again from its file. */
static int map_text_again(struct dl_phdr_info *info, size_t size, void *data)
{
	long page = sysconf(_SC_PAGESIZE);
	void **copy = data;
	int fd;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		off_t off = (off_t)(ph->p_offset & ~(ElfW(Off))(page - 1));

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 1;
		*copy = mmap(NULL, ph->p_filesz + (ph->p_offset - off), PROT_READ | PROT_EXEC,
			     MAP_PRIVATE, fd, off);
		close(fd);
		return 1;
	}
	return 1;	/* the first object is the program */
}

int main(int argc, char **argv)
{
	double end = now_s() + arg_double(argc, argv, 1, 1.0);
	void *copy = MAP_FAILED;

	dl_iterate_phdr(map_text_again, &copy);
	if (copy == MAP_FAILED) {
		fprintf(stderr, "remap: could not map the program's code again\n");
		return 1;
	}
	printf("copy=%p\n", copy);
	fflush(stdout);
	while (now_s() < end)
		remap_outer();
	return 0;
}
