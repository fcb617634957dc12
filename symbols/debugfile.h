/* debugfile.h - the separate debug file of an ELF file, where perf and gdb
 * look for it: the distribution's, by build ID
 * (/usr/lib/debug/.build-id/NN/REST.debug), else the one its
 * .gnu_debuglink section names - beside the file, in .debug/ there, or
 * under /usr/lib/debug/ with the file's directory - when its CRC-32 is the
 * one the link gives (a debug file of another build names the wrong
 * functions).
 */
#ifndef SAMPLER_EXPORT_DEBUGFILE_H
#define SAMPLER_EXPORT_DEBUGFILE_H

#include <stddef.h>

/* The path of the debug file of the ELF file at path, in buf: 0, or -1
 * when it has none that is there and intact. */
int debug_file_find(const char *path, char *buf, size_t size);

#endif
