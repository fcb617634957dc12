#!/usr/bin/python3
"""speedscope_check.py SPEEDSCOPE.json FOLDED UNIT - check a speedscope export
against the folded export of the same profile and weight (t3180): the
file's shape (speedscope's schema: a sampled profile per thread, frame
indices into the shared table, weights parallel to the samples, endValue
their sum, UNIT), the heaviest thread opened first, and the same stacks
with the same weights once the threads are added up (the folded lines
are rounded to whole units).  Prints what differs; exit 1 if anything."""

import json
import sys


def main(path, folded, unit):
    with open(path) as f:
        doc = json.load(f)
    bad = []
    if doc.get("$schema") != "https://www.speedscope.app/file-format-schema.json":
        bad.append("$schema is %r" % doc.get("$schema"))
    names = [fr["name"] for fr in doc["shared"]["frames"]]
    stacks, heaviest = {}, []
    for p in doc["profiles"]:
        if p["type"] != "sampled" or p["unit"] != unit or p["startValue"] != 0:
            bad.append("profile %s: type %s, unit %s" % (p["name"], p["type"], p["unit"]))
        if len(p["samples"]) != len(p["weights"]):
            bad.append(
                "profile %s: %d samples, %d weights"
                % (p["name"], len(p["samples"]), len(p["weights"]))
            )
        total = sum(p["weights"])
        if abs(total - p["endValue"]) > 1e-6 * max(total, 1):
            bad.append(
                "profile %s: endValue %s, weights add up to %s" % (p["name"], p["endValue"], total)
            )
        heaviest.append(total)
        for s, w in zip(p["samples"], p["weights"]):
            key = ";".join(names[i] for i in s)
            stacks[key] = stacks.get(key, 0.0) + w
    if heaviest and heaviest.index(max(heaviest)) != doc["activeProfileIndex"]:
        bad.append("activeProfileIndex %d is not the heaviest thread" % doc["activeProfileIndex"])
    lines = {}
    with open(folded) as f:
        for line in f:
            text, w = line.rstrip("\n").rsplit(" ", 1)
            key = text.split(";", 1)[1]  # without the comm
            lines[key] = lines.get(key, 0.0) + float(w)
    for key in sorted(set(stacks) | set(lines)):
        a, b = stacks.get(key, 0.0), lines.get(key, 0.0)
        if abs(a - b) > 1 and not (b == 0 and a < 1):
            bad.append("%s: speedscope %s, folded %s" % (key, a, b))
    print(
        "%d profiles, %d frames, %d stacks, %d folded stacks"
        % (len(doc["profiles"]), len(names), len(stacks), len(lines))
    )
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
