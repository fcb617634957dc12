#!/bin/bash
# Issue 11 #2: an output name another user planted as a symlink in a shared
# (sticky, world-writable) directory is not followed: root's sampler and
# sampler-export write a new file of their own in its place, and the file
# the link points to stays as it was.  (The kernel's fs.protected_symlinks
# would refuse such a link too; containers and older systems have it off.)
. "$(dirname "$0")/lib.sh"

# the attack is on root, by uid 65534
test_have_prereq NOBODY_CAN_READ || { skip_all="missing $test_missing_"; test_done; }

test_expect_success 'a shared sticky directory where uid 65534 planted links to a root file' '
	mkdir shared && chmod 1777 shared &&
	echo "root only" >victim && chmod 600 victim &&
	for name in prof prof.bz2 data csv pperf forced; do
		as_nobody ln -s "$TRASH/victim" shared/evil-$name || exit 1
	done &&
	expect_eq "$NOBODY" "$(stat -c %u shared/evil-prof)" "owner of the link" &&
	expect_eq symlink "$(stat -c %F shared/evil-prof | sed "s/symbolic link/symlink/")" "type"
'

# planted NAME: the output is a new regular file owned by root, the link
# is kept as NAME.old (unless forced), the root file is untouched.
planted() {
	expect_eq "root only" "$(cat victim)" "content of the file the link points to" &&
	expect_eq 600 "$(stat -c %a victim)" "its mode" &&
	expect_eq "regular file:0" "$(stat -c %F:%u "shared/evil-$1")" "the output" &&
	if [ "${2:-}" = forced ]; then
		expect_eq no "$([ -e "shared/evil-$1.old" ] || [ -L "shared/evil-$1.old" ] && echo yes || echo no)" ".old after --force"
	else
		expect_eq "$TRASH/victim" "$(readlink "shared/evil-$1.old")" "the planted link, kept as .old"
	fi
}

test_expect_success 'sampler -o LINK: a new profile in its place, the root file intact' '
	"$SAMPLER" -f 1000 -o shared/evil-prof -- "$EXAMPLES/busy" 0.05 &&
	planted prof &&
	"$BUILD/sampler-profile" dump shared/evil-prof >dump.txt &&
	expect_grep "^stats " dump.txt
'

test_expect_success 'sampler -o LINK.bz2 (compressed): the same' '
	"$SAMPLER" -f 1000 -o shared/evil-prof.bz2 -- "$EXAMPLES/busy" 0.05 &&
	planted prof.bz2 &&
	expect_eq BZh "$(head -c 3 shared/evil-prof.bz2)" "magic"
'

test_expect_success 'sampler-export -o LINK for perf.data, CSV and pperf: the same' '
	"$EXPORT" -o shared/evil-data shared/evil-prof &&
	planted data &&
	expect_eq PERFILE2 "$(head -c 8 shared/evil-data)" "perf.data magic" &&
	"$EXPORT" --format csv -o shared/evil-csv shared/evil-prof &&
	planted csv &&
	expect_eq "# sampler csv v2" "$(head -1 shared/evil-csv)" "CSV" &&
	"$EXPORT" --format pperf -o shared/evil-pperf shared/evil-prof &&
	planted pperf
'

test_expect_success '--force replaces the link without keeping it, and still does not follow it' '
	"$SAMPLER" --force -f 1000 -o shared/evil-forced -- "$EXAMPLES/busy" 0.05 &&
	planted forced forced
'

test_expect_success 'a link the user made (owned by root here) to a FIFO is written through' '
	mkfifo pipe &&
	ln -s "$TRASH/pipe" mine &&
	{ cat pipe >through.prof & } &&
	"$SAMPLER" -f 1000 -o mine -- "$EXAMPLES/busy" 0.05 &&
	wait &&
	expect_eq symlink "$(stat -c %F mine | sed "s/symbolic link/symlink/")" "the link stays" &&
	"$BUILD/sampler-profile" dump through.prof >through.txt &&
	expect_grep "^stats " through.txt
'

test_done
