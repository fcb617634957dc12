#!/usr/bin/python3
"""hints.py PACKAGE_DIR - list the public functions of a package that lack
type hints (a parameter or the return without an annotation) and exit 1 if
there is one; mypy checks the hints there are, this that they are there.

Public: module-level functions and methods of classes whose names do not
start with "_" (and __init__).  In the commands' modules (cli_*.py) only
their entry points run and main are public: the rest serves the command."""

import ast
import os
import sys


def missing(fn):
    """The names of fn's parameters without an annotation, and "return"."""
    a = fn.args
    params = a.posonlyargs + a.args + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p]
    out = [p.arg for p in params if p.annotation is None and p.arg not in ("self", "cls")]
    return out + ([] if fn.returns is not None else ["return"])


def public(body, command):
    """(qualified name, node) of every public function in body."""
    for node in body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_") and not command:
            for name, fn in public(node.body, command):
                yield node.name + "." + name, fn
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if command and node.name not in ("run", "main"):
                continue
            if node.name == "__init__" or not node.name.startswith("_"):
                yield node.name, node


def main():
    root = sys.argv[1]
    bad = total = 0
    for f in sorted(os.listdir(root)):
        if not f.endswith(".py"):
            continue
        with open(os.path.join(root, f), encoding="utf-8") as src:
            tree = ast.parse(src.read(), f)
        for name, fn in public(tree.body, f.startswith("cli_")):
            total += 1
            lack = missing(fn)
            if lack:
                bad += 1
                print("%s:%d: %s: no hint for %s" % (f, fn.lineno, name, ", ".join(lack)))
    print("%d public functions, %d without full hints" % (total, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
