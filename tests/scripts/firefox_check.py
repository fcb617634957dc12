#!/usr/bin/python3
"""firefox_check.py PROFILE.json FOLDED [CSV] - check a --format firefox
export (t3200) against the Firefox Profiler's processed profile format,
version 66 (firefox-devtools/profiler src/types/profile.ts, the upgraders
of processed-profile-versioning.ts, samply's fxprof-processed-profile):
the required fields, every table's columns as long as its length, the
indexes (strings, frames, funcs, categories, stack prefixes) in range and
prefixes before their stacks, the counters' samples; then the figures:
the CPU time of each stack, the threads added up, equals the folded
export's (--weight cpu, whole ns), and with CSV each power counter's
energy equals the CSV's energy column of its channel.  Prints a summary
line ("N threads, ...") and what differs; exit 1 if anything."""

import json
import sys

PWH_PER_JOULE = 1e12 / 3600
VERSION = 66


class Checker:
    def __init__(self):
        self.bad = []

    def need(self, cond, what):
        if not cond:
            self.bad.append(what)
        return cond

    def fields(self, obj, names, where):
        for n in names:
            self.need(n in obj, "%s: no field %r" % (where, n))

    def table(self, t, columns, where):
        """columns all lists of t['length'] entries"""
        n = t.get("length")
        if not self.need(isinstance(n, int) and n >= 0, "%s: length %r" % (where, n)):
            return 0
        for c in columns:
            col = t.get(c)
            if self.need(isinstance(col, list), "%s: column %s missing" % (where, c)):
                self.need(len(col) == n, "%s.%s: %d entries, length %d" % (where, c, len(col), n))
        return n

    def indexes(self, col, size, where, allow=()):
        for i, v in enumerate(col):
            if v in allow:
                continue
            if not (isinstance(v, int) and 0 <= v < size):
                self.bad.append("%s[%d] = %r, not an index below %d" % (where, i, v, size))
                return


def check_meta(ck, meta):
    ck.fields(meta, ("interval", "startTime", "processType", "product", "stackwalk", "version",
                     "preprocessedProfileVersion", "markerSchema", "categories", "sampleUnits"),
              "meta")
    ck.need(meta.get("preprocessedProfileVersion") == VERSION,
            "meta.preprocessedProfileVersion %r" % meta.get("preprocessedProfileVersion"))
    ck.need(meta.get("interval", 0) > 0, "meta.interval %r" % meta.get("interval"))
    cats = meta.get("categories", [])
    ck.need(any(c.get("color") == "grey" for c in cats), "meta.categories: none grey")
    for c in cats:
        ck.need(len(c.get("subcategories", [])) >= 1, "category %r: no subcategory" % c)
    units = meta.get("sampleUnits", {})
    ck.need(units.get("time") == "ms" and units.get("threadCPUDelta") in ("ns", "µs"),
            "meta.sampleUnits %r" % units)
    return cats


def check_shared(ck, shared, cats):
    strings = shared.get("stringArray", [])
    ck.need(all(isinstance(s, str) for s in strings), "stringArray: not all strings")
    st = shared["stackTable"]
    ft = shared["frameTable"]
    fn = shared["funcTable"]
    ns = ck.table(st, ("frame", "prefixOffset"), "stackTable")
    nf = ck.table(ft, ("func", "category", "subcategory", "line", "column", "address",
                       "nativeSymbol", "inlineDepth", "innerWindowID", "originalLocation"),
                  "frameTable")
    nu = ck.table(fn, ("name", "isJS", "relevantForJS", "resource", "source", "lineNumber",
                       "columnNumber", "originalLocation"), "funcTable")
    nr = ck.table(shared["resourceTable"], ("lib", "name", "host", "type"), "resourceTable")
    ck.table(shared["nativeSymbols"], ("address", "functionSize", "libIndex", "name"),
             "nativeSymbols")
    ck.table(shared["sources"], ("id", "filename", "startLine", "startColumn", "sourceMapURL",
                                 "content"), "sources")
    ck.table(shared["sourceLocationTable"], ("source", "line", "column"), "sourceLocationTable")
    ck.indexes(st.get("frame", []), nf, "stackTable.frame")
    for i, off in enumerate(st.get("prefixOffset", [])):
        if not ck.need(isinstance(off, int) and 0 <= off <= i,
                       "stackTable.prefixOffset[%d] = %r: not a stack before it" % (i, off)):
            break
    ck.indexes(ft.get("func", []), nu, "frameTable.func")
    ck.indexes(ft.get("category", []), len(cats), "frameTable.category", (None,))
    for i, (c, s) in enumerate(zip(ft.get("category", []), ft.get("subcategory", []))):
        if c is not None and 0 <= c < len(cats):
            ck.need(isinstance(s, int) and 0 <= s < len(cats[c]["subcategories"]),
                    "frameTable.subcategory[%d] = %r" % (i, s))
    ck.indexes(fn.get("name", []), len(strings), "funcTable.name")
    ck.indexes(fn.get("resource", []), nr, "funcTable.resource", (-1,))
    if ck.bad:
        return []
    # a stack's frames, outermost first, as names
    names = []
    for i in range(ns):
        off = st["prefixOffset"][i]
        func = ft["func"][st["frame"][i]]
        name = strings[fn["name"][func]]
        names.append((names[i - off] + [name]) if off else [name])
    return names


def check_threads(ck, threads, nstacks):
    pids = {}
    for k, t in enumerate(threads):
        where = "threads[%d]" % k
        ck.fields(t, ("name", "isMainThread", "pausedRanges", "pid", "tid", "processType",
                      "processStartupTime", "processShutdownTime", "registerTime",
                      "unregisterTime", "samples", "markers"), where)
        ck.need(isinstance(t.get("pid"), str), "%s.pid %r is not a string" % (where, t.get("pid")))
        pids.setdefault(t.get("pid"), k)
        s = t["samples"]
        ck.table(s, ("stack", "timeDeltas", "weight", "threadCPUDelta"), where + ".samples")
        ck.need(s.get("weightType") in ("samples", "tracing-ms", "bytes"),
                "%s.samples.weightType %r" % (where, s.get("weightType")))
        ck.indexes(s.get("stack", []), nstacks, where + ".samples.stack", (None,))
        ck.need(all(d >= 0 for d in s.get("timeDeltas", [])), where + ": time goes back")
        ck.table(t["markers"], ("category", "data", "endTime", "name", "phase", "startTime"),
                 where + ".markers")
    return pids


def check_counters(ck, counters, threads):
    for k, c in enumerate(counters):
        where = "counters[%d]" % k
        ck.fields(c, ("name", "category", "description", "pid", "mainThreadIndex", "samples",
                      "display"), where)
        ck.need(c.get("category") == "power", "%s.category %r" % (where, c.get("category")))
        m = c.get("mainThreadIndex", -1)
        if ck.need(isinstance(m, int) and 0 <= m < len(threads),
                   "%s.mainThreadIndex %r" % (where, m)):
            ck.need(threads[m]["pid"] == c.get("pid"), "%s.pid %r is not its main thread's %r"
                    % (where, c.get("pid"), threads[m]["pid"]))
        ck.table(c["samples"], ("count", "number", "timeDeltas"), where + ".samples")
        ck.need(all(d >= 0 for d in c["samples"]["timeDeltas"]), where + ": time goes back")
        d = c.get("display", {})
        ck.fields(d, ("graphType", "unit", "color", "markerSchemaLocation", "sortWeight", "label",
                      "tooltipRows"), where + ".display")
        ck.need(d.get("unit") == "pWh" and d.get("graphType") == "line-rate",
                "%s.display: unit %r, graph %r" % (where, d.get("unit"), d.get("graphType")))


def folded_cpu(path):
    lines = {}
    with open(path) as f:
        for line in f:
            text, w = line.rstrip("\n").rsplit(" ", 1)
            key = text.split(";", 1)[1]  # without the comm
            lines[key] = lines.get(key, 0.0) + float(w)
    return lines


def csv_energy(path):
    """channel name -> the CSV's energy total in J (cells x scale)"""
    scale, cols, total = {}, None, {}
    with open(path) as f:
        for line in f:
            if line.startswith("# channel "):
                kv = dict(p.split("=", 1) for p in line.split()[2:])
                if kv.get("kind") in ("energy", "power"):
                    scale[kv["name"]] = float(kv["scale"])
            elif line.startswith("#"):
                continue
            elif cols is None:
                cols = line.rstrip("\n").split(",")
            else:
                cells = line.rstrip("\n").split(",")
                for name in scale:
                    v = cells[cols.index(name)]
                    if v:
                        total[name] = total.get(name, 0.0) + float(v) * scale[name]
    return total


def main(path, folded, csv=None):
    with open(path) as f:
        doc = json.load(f)
    ck = Checker()
    ck.fields(doc, ("meta", "libs", "shared", "threads", "counters"), "profile")
    cats = check_meta(ck, doc["meta"])
    names = check_shared(ck, doc["shared"], cats)
    threads = doc["threads"]
    pids = check_threads(ck, threads, len(names))
    check_counters(ck, doc["counters"], threads)
    if ck.bad:
        print("%d problems of format" % len(ck.bad))
        print("\n".join(ck.bad))
        return 1
    cpu = {}
    for t in threads:
        s = t["samples"]
        for st, w in zip(s["stack"], s["weight"]):
            key = ";".join(names[st])
            cpu[key] = cpu.get(key, 0.0) + w * 1e6  # ms -> ns
    lines = folded_cpu(folded)
    for key in sorted(set(cpu) | set(lines)):
        a, b = cpu.get(key, 0.0), lines.get(key, 0.0)
        if abs(a - b) > 1 and not (b == 0 and a < 1):
            ck.bad.append("%s: firefox %s ns, folded %s ns" % (key, a, b))
    energy = {c["name"]: sum(c["samples"]["count"]) / PWH_PER_JOULE for c in doc["counters"]}
    if csv:
        expect = csv_energy(csv)
        ck.need(set(expect) == set(energy),
                "power counters %s, CSV energy channels %s" % (sorted(energy), sorted(expect)))
        for name in sorted(set(expect) & set(energy)):
            ck.need(abs(energy[name] - expect[name]) <= 1e-6 * max(abs(expect[name]), 1e-6),
                    "%s: counter %.9g J, CSV %.9g J" % (name, energy[name], expect[name]))
    print("%d threads, %d processes, %d stacks, %d folded stacks, cpu %.0f ns, %s"
          % (len(threads), len(pids), len(cpu), len(lines), sum(cpu.values()),
             ", ".join("%s %.6f J" % kv for kv in sorted(energy.items())) or "no counter"))
    for b in ck.bad:
        print(b)
    return 1 if ck.bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
