#!/bin/bash
# The persistent symbol cache (symbols/symcache.c): one file per build-id,
# the same CSV with and without it, damaged or hostile entries ignored and
# rewritten, stale entries (same build-id, other file) never used, an
# unwritable directory harmless, and off means off.
. "$(dirname "$0")/lib.sh"

CACHE=$TRASH/cache

csv() {		# profile out [options]: CSV with symbols through the cache in $CACHE
	local p=$1 o=$2
	shift 2
	SAMPLER_CACHE_DIR=$CACHE "$EXPORT" --format csv --symbols "$@" -o "$o" "$p"
}

build_id() {	# elf: its GNU build-id in hex, "" when none
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

# The checksum of symcache.c, to write hostile entries that pass it.
CRAFT='
import sys
M = (1 << 64) - 1
def checksum(b):
    n = len(b); h = (0x9e3779b97f4a7c15 ^ n) & M; i = 0
    while n - i >= 8:
        h = ((h ^ int.from_bytes(b[i:i + 8], "little")) * 0xff51afd7ed558ccd) & M
        h ^= h >> 32; i += 8
    h = ((h ^ int.from_bytes(b[i:] + bytes(8 - (n - i)), "little")) * 0xc4ceb9fe1a85ec53) & M
    return h ^ (h >> 29)
def u64(b, off): return int.from_bytes(b[off:off + 8], "little")
def put(b, off, v, n=8): b[off:off + n] = (v & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
b = bytearray(open(sys.argv[1], "rb").read())
nseg, nsym, names = u64(b, 80), u64(b, 88), u64(b, 96)
syms = 104 + 24 * nseg
how = sys.argv[2]
if how == "count": put(b, 88, 1 << 62)
elif how == "names-size": put(b, 96, names + 8)
elif how == "name-offset": put(b, syms + 24 * (nsym - 1) + 16, names + 100, 4)
elif how == "unterminated": b[-1] = 0x41
elif how == "unsorted": b[syms:syms + 24], b[syms + 24 * (nsym - 1):syms + 24 * nsym] = b[syms + 24 * (nsym - 1):syms + 24 * nsym], b[syms:syms + 24]
elif how == "foreign": put(b, 56, u64(b, 56) + 1)
elif how == "version": put(b, 8, 99, 4)
elif how == "padded": b += bytes(24)
put(b, 16, 0)
put(b, 16, checksum(bytes(b)))
open(sys.argv[1], "wb").write(b)
'

cat >app.c <<'CEOF'
#include <stdio.h>
#include <time.h>
/* static: only .symtab names it, so a stripped copy resolves it differently */
__attribute__((noinline)) static long local_spin(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i * i ^ s;
	return s;
}
int main(void)
{
	char buf[64];
	long s = 0;
	struct timespec t;

	/* 0.3 s of CPU time, not of wall time: on a loaded machine the run
	 * lasts longer, and the sampler gets about as many samples of it */
	do {
		s += local_spin(1000000 + (s & 1));	/* not hoisted */
		for (int i = 0; i < 500; i++)
			s += snprintf(buf, sizeof(buf), "%ld %d %f", s, i, i * 0.5);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec * 1000000000L + t.tv_nsec < 300000000L);
	return s == 42;
}
CEOF

test_expect_success 'a recording with PCs in a local function and in libc; reference CSV without cache' '
	cc -O1 -g -o app app.c &&
	"$SAMPLER" -f 2000 -o p.prof -- ./app &&
	"$EXPORT" --no-symbol-cache --format csv --symbols -o ref.csv p.prof &&
	expect_ge 50 "$(grep -c ",$TRASH/app,local_spin\$" ref.csv)" "rows in local_spin" &&
	grep -o ",/[^,]*/libc\.so[^,]*," ref.csv | head -1 | tr -d , >libc-path &&
	expect_ge 20 "$(grep -c ",$(cat libc-path),[^0[]" ref.csv)" "rows in named libc functions" &&
	test -n "$(build_id app)" && test -n "$(build_id "$(cat libc-path)")"
'
LIBC=$(cat libc-path 2>/dev/null)

test_expect_success 'an export with --symbols writes one cache file per build-id, mode per umask' '
	(umask 027 && csv p.prof c1.csv) &&
	cmp ref.csv c1.csv &&
	for elf in app "$LIBC"; do
		f=$CACHE/$(build_id "$elf").sym &&
		test -f "$f" &&
		expect_eq SMPLSYMC "$(head -c 8 "$f")" "magic of $f" &&
		expect_eq "-rw-r-----" "$(stat -c %A "$f")" "mode of $f" || exit 1
	done &&
	expect_empty "$(ls "$CACHE" | grep -v "\.sym\$")" "other files in the cache" &&
	cp "$CACHE/$(build_id app).sym" good-app.sym &&
	cp "$CACHE/$(build_id "$LIBC").sym" good-libc.sym
'

test_expect_success 'a second export reads the cache: byte-identical CSV, nothing rewritten' '
	ls -i "$CACHE" >inodes.before &&
	csv p.prof c2.csv &&
	cmp ref.csv c2.csv &&
	ls -i "$CACHE" >inodes.after &&
	expect_eq "$(cat inodes.before)" "$(cat inodes.after)" "cache files (inode name)"
'

test_expect_success 'default directory: $XDG_CACHE_HOME/sampler/symbols, else ~/.cache/sampler/symbols' '
	env -u SAMPLER_CACHE_DIR XDG_CACHE_HOME=$TRASH/xdg HOME=$TRASH/home1 \
		"$EXPORT" --format csv --symbols -o x.csv p.prof &&
	cmp ref.csv x.csv && test -f "xdg/sampler/symbols/$(build_id app).sym" && test ! -e home1 &&
	env -u SAMPLER_CACHE_DIR -u XDG_CACHE_HOME HOME=$TRASH/home \
		"$EXPORT" --format csv --symbols -o h.csv p.prof &&
	cmp ref.csv h.csv && test -f "home/.cache/sampler/symbols/$(build_id app).sym"
'

test_expect_success 'a truncated or damaged cache file gives the same CSV and is rewritten' '
	app=$CACHE/$(build_id app).sym libc=$CACHE/$(build_id "$LIBC").sym &&
	for damage in half 104 10 0 flip header; do
		for f in "$app" "$libc"; do
			size=$(stat -c %s "$f") &&
			case $damage in
			half) truncate -s $((size / 2)) "$f" ;;
			flip) printf "\377\377\377\377" | dd of="$f" bs=1 seek=$((size - 40)) conv=notrunc 2>/dev/null ;;
			header) head -c 104 /dev/urandom | dd of="$f" conv=notrunc 2>/dev/null ;;
			*) truncate -s $damage "$f" ;;
			esac || exit 1
		done &&
		csv p.prof d.csv 2>err &&
		cmp ref.csv d.csv && expect_empty "$(cat err)" "stderr ($damage)" &&
		cmp good-app.sym "$app" && cmp good-libc.sym "$libc" || { echo "damage: $damage"; exit 1; }
	done
'

test_expect_success 'entries with a valid checksum but bad counts, offsets, order or key are not trusted' '
	app=$CACHE/$(build_id app).sym &&
	for how in count names-size name-offset unterminated unsorted foreign version padded; do
		/usr/bin/python3 -c "$CRAFT" "$app" $how &&
		! cmp -s good-app.sym "$app" &&
		csv p.prof h.csv &&
		cmp ref.csv h.csv && cmp good-app.sym "$app" || { echo "hostile: $how"; exit 1; }
	done
'

test_expect_success 'a FIFO or a directory in place of a cache file: no hang, same CSV' '
	app=$CACHE/$(build_id app).sym &&
	rm "$app" && mkfifo "$app" &&
	SAMPLER_CACHE_DIR=$CACHE timeout 20 "$EXPORT" --format csv --symbols -o f.csv p.prof &&
	cmp ref.csv f.csv && cmp good-app.sym "$app" &&
	rm "$app" && mkdir -p "$app/sub" &&
	csv p.prof g.csv && cmp ref.csv g.csv && test -d "$app" &&
	rm -r "$app" && csv p.prof g.csv && cmp good-app.sym "$app"
'

test_expect_success NOBODY_CAN_READ 'a cache directory that cannot be written does not fail the export' '
	: >afile &&
	SAMPLER_CACHE_DIR=$TRASH/afile/cache "$EXPORT" --format csv --symbols -o u.csv p.prof 2>err &&
	cmp ref.csv u.csv && expect_empty "$(cat err)" "stderr" &&
	mkdir ro && chmod 755 ro &&
	as_nobody env SAMPLER_CACHE_DIR=$TRASH/ro "$EXPORT" --format csv --symbols -o - p.prof >n.csv 2>err &&
	cmp ref.csv n.csv && expect_empty "$(cat err)" "stderr as nobody" &&
	expect_empty "$(ls -A ro)" "files in the read-only cache"
'

test_expect_success 'with the cache off (--no-symbol-cache, SAMPLER_CACHE_DIR=) no file is written' '
	SAMPLER_CACHE_DIR=$TRASH/off "$EXPORT" --no-symbol-cache --format csv --symbols -o o.csv p.prof &&
	cmp ref.csv o.csv && test ! -e off &&
	SAMPLER_CACHE_DIR= XDG_CACHE_HOME=$TRASH/xdg-off HOME=$TRASH/home-off \
		"$EXPORT" --format csv --symbols -o o.csv p.prof &&
	cmp ref.csv o.csv && test ! -e xdg-off && test ! -e home-off &&
	rm -rf "$CACHE" && csv p.prof o.csv --no-symbol-cache &&
	cmp ref.csv o.csv && test ! -e "$CACHE"
'

test_expect_success 'same build-id, other file (stripped): the entry is not used, and is replaced' '
	rm -rf "$CACHE" && csv p.prof s1.csv && cmp ref.csv s1.csv &&
	id=$(build_id app) && cp -p app app.full && strip app &&
	expect_eq "$id" "$(build_id app)" "build-id kept by strip" &&
	"$EXPORT" --no-symbol-cache --format csv --symbols -o s-ref.csv p.prof &&
	expect_eq 0 "$(grep -c ",local_spin\$" s-ref.csv)" "local_spin rows once stripped" &&
	csv p.prof s2.csv && cmp s-ref.csv s2.csv &&
	! cmp -s good-app.sym "$CACHE/$id.sym" &&
	cp -p app.full app && csv p.prof s3.csv && cmp ref.csv s3.csv
'

test_expect_success 'a DSO without a build-id is not cached' '
	rm -rf "$CACHE" && cc -O1 -g -Wl,--build-id=none -o app app.c &&
	expect_empty "$(build_id app)" "build-id of the rebuilt app" &&
	"$EXPORT" --no-symbol-cache --format csv --symbols -o b-ref.csv p.prof &&
	csv p.prof b.csv && cmp b-ref.csv b.csv &&
	grep -v "^#" b.csv | tail -n +2 | awk -F, "{ print \$(NF - 1) }" | sort -u | grep "^/" >dsos &&
	for d in $(cat dsos); do build_id "$d"; done | grep . | sed "s/\$/.sym/" | sort >want &&
	ls "$CACHE" | sort >got &&
	expect_eq "$(cat want)" "$(cat got)" "cache files (build-ids of the DSOs but app)" &&
	expect_ge 1 "$(wc -l <got)" "cache files"
'

test_done
