#!/usr/bin/python3
"""Write hostile native profiles with call stacks for t0020: well framed
(valid CRC-32), header flag 0x1, one thread whose stack codes point at
stacks never written, parents out of range, empty or too deep runs of new
frames, or more nodes than the reader keeps.  Written from docs/FORMAT.md,
not from sampler's code.  Usage: make-hostile-stacks.py DIR"""
import importlib.util
import os
import struct
import sys

# The framing and the info record of make-hostile.py (t0004's writer).
_spec = importlib.util.spec_from_file_location(
    "make_hostile", os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-hostile.py")
)
_hostile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_hostile)
varint, chunk = _hostile.varint, _hostile.chunk

HEADER = b"SMPLPROF" + struct.pack("<II", 2, 1)  # version 2, flag 0x1: stacks
START = HEADER + chunk(_hostile.INFO) + chunk(bytes([3]) + varint(7) + varint(7) + varint(0))


def stack(sel, end=0):
    return varint(sel << 3 | end)


def new(parent_back, frames):
    """A run of new frames from the node parent_back nodes back."""
    return stack(1) + varint(parent_back) + varint(len(frames)) + \
        b"".join(varint(f) for f in frames)


def sample(code, first=False):
    """One sample of thread 7: PC delta 0, CPU delta 0, then code."""
    tids = b"" if not first else varint(1) + varint(14)  # count 1, zigzag(7)
    tag = 6 if first else 6 | 0x10				# same threads after
    return bytes([tag]) + varint(0) + tids + varint(0) + varint(0) + code


def write(out, name, *samples):
    records = [sample(s, i == 0) for i, s in enumerate(samples)]
    with open(os.path.join(out, name), "wb") as f:
        f.write(START + b"".join(chunk(r) for r in records))


def main():
    out = sys.argv[1]
    write(out, "undefined.prof", new(1, [2, 2]), stack(2 + 9))
    write(out, "parent.prof", new(1, [2]), new(5, [2]))
    write(out, "empty.prof", new(1, []))
    write(out, "deep.prof", new(1, [2] * 1025))
    write(out, "deeper.prof", new(1, [2] * 1000), new(1, [2] * 25))
    write(out, "claim.prof", stack(1) + varint(1) + varint(1 << 40) + b"\2\2")
    write(out, "cut.prof", new(1, [2] * 10)[:-3])
    # 2200 runs of 1000 new frames, each from the empty stack: more nodes
    # (2.2 million) than the 2097152 a reader keeps
    runs, nodes = [], 1
    for _ in range(2200):
        runs.append(new(nodes, [2] * 1000))
        nodes += 1000
    write(out, "nodes.prof", *runs)


if __name__ == "__main__":
    sys.exit(main())
