#!/bin/sh
# t3200-export-firefox.sh - sampler-export --format firefox: the Firefox
# Profiler's processed profile format (version 66), checked against the
# format as the profiler's types and upgraders define it
# (tests/scripts/firefox_check.py), the CPU time of every stack against the
# folded export, the power counters' energy against the CSV export and,
# on a recording with a fake RAPL package, against what the fake was told
# to add.  (The profiler is no npm package: it is not run here.)
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/export-lib.sh"

CHECK="/usr/bin/python3 $ROOT/tests/scripts/firefox_check.py"

# names FILE: each thread's "processName/name pid tid"
names() {
	/usr/bin/python3 -c 'import json, sys
for t in json.load(open(sys.argv[1]))["threads"]:
    print("%s/%s\t%s %s" % (t["processName"], t["name"], t["pid"], t["tid"]))' "$1"
}

test_expect_success 'setup: the stacks fixture (two threads, energy, a counter)' '
	"$BUILD/sampler-profile" build p.prof <"$ROOT/tests/fixtures/stacks.txt"
'

test_expect_success 'the fixture: the format, CPU as folded, energy as the CSV' '
	"$EXPORT" --format firefox -o p.json p.prof &&
	"$EXPORT" --format folded --weight cpu p.prof >p.folded &&
	"$EXPORT" --format csv -o p.csv p.prof &&
	$CHECK p.json p.folded p.csv >check.out || { cat check.out; exit 1; }
	cat check.out &&
	expect_grep "^2 threads, 1 processes, 8 stacks, 8 folded stacks, cpu 6920000 ns, package-0 0.006000 J$" check.out &&
	names p.json >names &&
	printf "%s\n" "app/app	500 500" "app/app	500 501" >expect &&
	cmp expect names
'

test_expect_success 'the checker refuses a broken file' '
	for case in prefix:prefixOffset column:samples.weight: string:funcTable.name \
		    counter:package-0:.counter cpu:ns,.folded; do
		bad=${case%%:*} &&
		/usr/bin/python3 - p.json $bad <<-\PY >bad.json &&
		import json, sys
		d = json.load(open(sys.argv[1]))
		s, what = d["shared"], sys.argv[2]
		if what == "prefix":
		    s["stackTable"]["prefixOffset"][0] = 1
		elif what == "column":
		    d["threads"][0]["samples"]["weight"].pop()
		elif what == "string":
		    s["funcTable"]["name"][0] = len(s["stringArray"])
		elif what == "counter":
		    d["counters"][0]["samples"]["count"][1] *= 1.01
		else:
		    d["threads"][1]["samples"]["weight"][0] += 0.001
		json.dump(d, sys.stdout)
		PY
		run_status $CHECK bad.json p.folded p.csv >check.out &&
		expect_eq 1 "$rc" "checker status on a broken $bad" &&
		expect_grep "${case#*:}" check.out || exit 1
	done
'

test_expect_success 'control bytes and invalid UTF-8 in a name give valid JSON, escaped by the one rule (speedscope too)' '
	sed "s/comm=app /comm=a%01%ff%22%c3%a9b /" "$ROOT/tests/fixtures/stacks.txt" >odd.txt &&
	"$BUILD/sampler-profile" build odd.prof <odd.txt &&
	"$EXPORT" --format firefox -o odd.json odd.prof &&
	/usr/bin/python3 -c "import json, sys; d = json.load(open(sys.argv[1], encoding=\"utf-8\")); print(ascii(d[\"threads\"][0][\"name\"]))" \
		odd.json >name &&
	echo "'"'"'a%01%FF\"\\xe9b'"'"'" >expect &&
	cmp expect name &&
	"$EXPORT" --format speedscope -o odd-ss.json odd.prof &&
	/usr/bin/python3 -c "import json, sys; d = json.load(open(sys.argv[1], encoding=\"utf-8\")); print(ascii(d[\"profiles\"][0][\"name\"].split(\" \")[0]))" \
		odd-ss.json >name &&
	cmp expect name
'

test_expect_success 'a -g recording with a fake RAPL package: a power track of its energy' '
	record_fake_rapl 10 0.5 -g -f 500 -p rapl:package-0 -o rec.prof -- "$EXAMPLES/demo-workload" 1 >demo.out &&
	fake_energy_holds rec.prof 10 0.5 &&
	"$EXPORT" --format firefox -o rec.json rec.prof &&
	"$EXPORT" --format folded --weight cpu rec.prof >rec.folded &&
	"$EXPORT" --format csv -o rec.csv rec.prof &&
	$CHECK rec.json rec.folded rec.csv >check.out || { cat check.out; exit 1; }
	cat check.out &&
	added=$(sed -n "s/^zone=intel-rapl:0 added=\([0-9]*\) .*/\1/p" rapl.log) &&
	joules=$(sed -n "s/.* package-0 \([0-9.]*\) J$/\1/p" check.out) &&
	expect_near "$added" "$(awk -v j="$joules" "BEGIN { printf \"%d\", j * 1e6 }")" "$((added / 100))" \
		"the power track'"'"'s energy (uJ) against what the fake added" &&
	expect_grep "\"main\"" rec.json
'

test_expect_success 'a rank'"'"'s profile names its process with the rank; merged ranks apart' '
	OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=4 "$SAMPLER" -f 200 -o r.%r.prof -- "$EXAMPLES/busy" 0.2 >/dev/null 2>&1 &&
	OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 "$SAMPLER" -f 200 -o r.%r.prof -- "$EXAMPLES/busy" 0.2 >/dev/null 2>&1 &&
	"$EXPORT" --format firefox -o r2.json r.2.prof &&
	names r2.json | cut -f1 >names &&
	echo "busy[rank 2]/busy" >expect &&
	cmp expect names &&
	"$EXPORT" --format firefox -o m.json r.2.prof r.3.prof &&
	"$EXPORT" --format folded --weight cpu r.2.prof r.3.prof >m.folded &&
	$CHECK m.json m.folded >check.out || { cat check.out; exit 1; }
	expect_grep "^2 threads, 2 processes," check.out &&
	names m.json | cut -f1 >names &&
	printf "%s\n" "busy[rank 2]/busy[rank 2]" "busy[rank 3]/busy[rank 3]" >expect &&
	cmp expect names
'

test_done
