#!/bin/sh
# bench/symcache.sh - the persistent symbol cache (symbols/symcache.c):
# `sampler-export --format csv --symbols` with an empty cache (cold: reads
# and sorts the ELF symbol tables, then writes the cache), with a filled
# cache (warm), and with the cache off, median of 3 runs each, on
#   - a synthetic profile of 1 million thread-samples (bench/genprofile:
#     PCs in genprofile's own few functions), and
#   - a real recording of examples/demo-workload (PCs in the program, libm
#     and libc, whose .symtab comes from its build-id debug file), and
#   - when clang is installed, a recording of clang compiling a small file
#     (PCs in libLLVM and libclang-cpp: .dynsym of 45 000 and more symbols).
# Prints, never asserts.
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
N=${SYMCACHE_BENCH_SAMPLES:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sampler-bench-symcache.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ ! -x "$BUILD/bench/genprofile" ] || [ ! -x "$BUILD/sampler-export" ] ||
   [ ! -x "$BUILD/sampler" ] || [ ! -x "$BUILD/examples/demo-workload" ]; then
	echo "symcache: skipped ($BUILD/bench/genprofile, sampler-export, sampler or examples/demo-workload not built; run make)"
	exit 0
fi
"$BUILD/bench/genprofile" "$tmp/synthetic" "$N" 2 >/dev/null || exit 1
"$BUILD/sampler" -o "$tmp/recording" -- "$BUILD/examples/demo-workload" >/dev/null 2>&1 || exit 1
profiles="synthetic recording"
if command -v clang >/dev/null 2>&1; then
	printf 'int f(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * i; return s; }\n' >"$tmp/x.c"
	"$BUILD/sampler" -o "$tmp/clang" -- clang -O2 -c "$tmp/x.c" -o "$tmp/x.o" >/dev/null 2>&1 &&
		profiles="$profiles clang"
fi

# "cold warm off" seconds (medians of 3) for one profile; cold runs start
# from an empty cache directory (emptied outside the timed part).
/usr/bin/python3 - "$BUILD/sampler-export" "$tmp" $profiles <<'EOF' || echo "symcache: failed"
import os, shutil, statistics, subprocess, sys, time

export, tmp, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
cache = os.path.join(tmp, "cache")
env = dict(os.environ, SAMPLER_CACHE_DIR=cache)

def run(profile, *opts):
    args = [export, "--format", "csv", "--symbols", *opts, "-o", os.path.join(tmp, "out.csv"), profile]
    t = time.monotonic()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t

def rows(profile):
    with open(os.path.join(tmp, "out.csv")) as f:
        return sum(1 for line in f if not line.startswith("#")) - 1

def same_csv(profile):
    run(profile, "--no-symbol-cache")
    with open(os.path.join(tmp, "out.csv"), "rb") as f:
        ref = f.read()
    run(profile)
    with open(os.path.join(tmp, "out.csv"), "rb") as f:
        return f.read() == ref

print("symcache: sampler-export --format csv --symbols, median of 3 runs, seconds")
print("  %-44s %8s %8s %8s  %s" % ("profile", "cold", "warm", "off", "cache files"))
for name in profiles:
    profile = os.path.join(tmp, name)
    cold = []
    for i in range(3):
        shutil.rmtree(cache, ignore_errors=True)
        cold.append(run(profile))
    warm = [run(profile) for i in range(3)]
    off = [run(profile, "--no-symbol-cache") for i in range(3)]
    files = sorted(os.listdir(cache))
    size = sum(os.path.getsize(os.path.join(cache, f)) for f in files)
    label = "%s (%d thread-samples)" % (name, rows(profile))
    print("  %-44s %8.4f %8.4f %8.4f  %d, %d KB%s" % (
        label, statistics.median(cold), statistics.median(warm), statistics.median(off),
        len(files), size // 1024, "" if same_csv(profile) else "  CSV DIFFERS"))
EOF
