#!/usr/bin/python3
"""tap.py TRASH TEST_FILE... - run pytest on tests/scripts/TEST_FILE... and
print one TAP line per test for tests/run: `ok N - name`, `not ok N - name`
(followed by the failure, indented), `ok N # skip name: reason`."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    trash, files = sys.argv[1], sys.argv[2:]
    junit = os.path.join(trash, "junit.xml")
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--basetemp",
        os.path.join(trash, "pytest"),
        "--junitxml",
        junit,
        "-o",
        "junit_family=xunit1",
    ]
    proc = subprocess.run(
        cmd + [os.path.join(HERE, f) for f in files], cwd=HERE, capture_output=True, text=True
    )
    if not os.path.exists(junit):
        print("not ok 1 - pytest ran (%s)" % " ".join(files))
        for line in (proc.stdout + proc.stderr).splitlines()[-30:]:
            print("#   " + line)
        return 1
    count = failed = 0
    for case in ET.parse(junit).getroot().iter("testcase"):
        count += 1
        name = "%s::%s" % (case.get("classname", "").rsplit(".", 1)[-1], case.get("name"))
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        skipped = case.find("skipped")
        if bad is not None:
            failed += 1
            print("not ok %d - %s" % (count, name))
            for line in (bad.text or bad.get("message", "")).splitlines()[-25:]:
                print("#   " + line)
        elif skipped is not None:
            print(
                "ok %d # skip %s: %s"
                % (count, name, skipped.get("message", "").replace("\n", " "))
            )
        else:
            print("ok %d - %s" % (count, name))
    print("# %d tests, %d failed" % (count, failed))
    if count == 0:
        print("not ok 1 - pytest collected no tests in %s" % " ".join(files))
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
