/* maplist-check START-END:PGOFF:PATH... - map_list_insert (procfs.h) on
 * an empty list, each argument in turn; prints the list that results, one
 * "start-end pgoff path" line (hex) a map. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sampler/procfs.h"

int main(int argc, char **argv)
{
	struct map_list list = { NULL, 0 };

	for (int i = 1; i < argc; i++) {
		struct map_entry m = { 0 };
		char path[256];

		if (sscanf(argv[i], "%" SCNx64 "-%" SCNx64 ":%" SCNx64 ":%255s", &m.start, &m.end,
			   &m.pgoff, path) != 4) {
			fprintf(stderr, "maplist-check: %s: not START-END:PGOFF:PATH\n", argv[i]);
			return 2;
		}
		m.path = path;
		if (map_list_insert(&list, &m) < 0) {
			fprintf(stderr, "maplist-check: out of memory\n");
			return 1;
		}
	}
	for (size_t i = 0; i < list.n; i++)
		printf("%" PRIx64 "-%" PRIx64 " %" PRIx64 " %s\n", list.maps[i].start,
		       list.maps[i].end, list.maps[i].pgoff, list.maps[i].path);
	map_list_free(&list);
	return 0;
}
