/* demangle.h - C++ (Itanium ABI) and Rust (legacy and v0) symbol names as
 * people read them, with libiberty's cplus_demangle, the flags perf uses
 * (DMGL_PARAMS | DMGL_ANSI: parameters, const; std:: abbreviations kept;
 * Rust without its hash or crate disambiguator, as perf shows them).
 */
#ifndef SAMPLER_EXPORT_DEMANGLE_H
#define SAMPLER_EXPORT_DEMANGLE_H

/* The readable form of name, malloc'd; NULL when name is not mangled (or
 * not valid, or out of memory): then name is shown as it is.  A version or
 * stub suffix stays: "_Znwm@plt" is "operator new(unsigned long)@plt". */
char *demangle(const char *name);

#endif
