// cxxnames [SECONDS] - C++ and Rust symbol names for the demangling tests:
// the work runs in a class template's member in a namespace, an operator,
// a lambda, a function of an anonymous namespace, and two functions whose
// symbols are a Rust legacy and a Rust v0 name (set with asm labels, so no
// Rust compiler is needed).  Each takes about the same CPU time.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "workload.h"

#define UNITS 200000

namespace energy {
template <typename T> struct Kernel {
	T seed;
	__attribute__((noinline)) T crunch(long n) { return (T)work_units((uint64_t)n, seed); }
};
} // namespace energy

struct Vec {
	uint64_t x;
};

__attribute__((noinline)) Vec operator+(const Vec &a, const Vec &b)
{
	return Vec{ work_units(UNITS, a.x ^ b.x) };
}

namespace {
__attribute__((noinline)) uint64_t hidden_work(uint64_t seed)
{
	return work_units(UNITS, seed);
}
} // namespace

// std::rt::lang_start (legacy) and mycrate::foo (v0), as rustc mangles them
extern "C" uint64_t rust_legacy(uint64_t) __asm__("_ZN3std2rt10lang_start17h0123456789abcdefE");
extern "C" uint64_t rust_v0(uint64_t) __asm__("_RNvCs15kBYyAo9fc_7mycrate3foo");
extern "C" __attribute__((noinline, used)) uint64_t rust_legacy(uint64_t seed)
{
	return work_units(UNITS, seed);
}
extern "C" __attribute__((noinline, used)) uint64_t rust_v0(uint64_t seed)
{
	return work_units(UNITS, seed);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5, end = now_s() + seconds;
	energy::Kernel<unsigned long> k{ 3 };
	auto lambda = [](uint64_t seed) __attribute__((noinline)) { return work_units(UNITS, seed); };
	uint64_t sum = 0;

	while (now_s() < end) {
		sum += k.crunch(UNITS);
		sum += (Vec{ sum } + Vec{ 5 }).x;
		sum += lambda(sum);
		sum += hidden_work(sum);
		sum += rust_legacy(sum);
		sum += rust_v0(sum);
	}
	printf("checksum=%llu\n", (unsigned long long)sum);
	return 0;
}
