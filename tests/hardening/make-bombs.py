#!/usr/bin/python3
"""Write decompression bombs for the readers (t5160), from docs/FORMAT.md.

    make-bombs.py KIND MIB OUT

KIND is one of
  empty-chunks  a native header and info, then MIB MiB of valid empty chunks
  records       a native header and info, then MIB MiB of valid chunks of
                one process record each
  zeros         MIB MiB of zeros
  pperf-zeros   a pperf header claiming 2^40 samples, then MIB MiB of zeros
all bzip2-compressed.  Each is built from one small compressed stream
repeated (bzip2 readers read concatenated streams as one), so that even
10 GiB take a second to write and a few kB of disk.
"""
import bz2
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import MAGIC, chunk, varint  # noqa: E402  (t5050's writer)

BLOCK = 1 << 20		# bytes of repeated data per stream (zeros: 16 MiB)


NATIVE = MAGIC + chunk(
    bytes([8]) + b"\0" * 6 + b"\0\0\0" + b"\0\0" + b"\0\0\0" + struct.pack("<d", 0.0) + b"\0")
PPERF = struct.pack("<IQQQII", 3, 0, 0, 1 << 40, 8, 0)
KINDS = {
    "empty-chunks": (NATIVE, chunk(b"")),
    "records": (NATIVE, chunk(bytes([1]) + varint(1) + varint(0) + varint(0))),
    "zeros": (b"", b"\0"),
    "pperf-zeros": (PPERF, b"\0"),
}


def main():
    kind, mib, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    head, unit = KINDS[kind]
    size = BLOCK * 16 if unit == b"\0" else BLOCK
    block = bz2.compress(unit * (size // len(unit)), 9)
    with open(out, "wb") as f:
        if head:
            f.write(bz2.compress(head, 9))
        for _ in range(max(1, mib * (1 << 20) // size)):
            f.write(block)


main()
