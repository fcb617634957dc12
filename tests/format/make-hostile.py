#!/usr/bin/python3
"""Write hostile profiles for t0004: well-framed (valid CRC-32) native files
and pperf files whose counts and lengths claim far more than they hold.
Written from docs/FORMAT.md, not from sampler's code.  Usage: make-hostile.py DIR"""
import bz2
import os
import struct
import sys
import zlib


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def chunk(payload):
    head = struct.pack("<I", len(payload))
    return head + struct.pack("<I", zlib.crc32(head + payload)) + payload


HEADER = b"SMPLPROF" + struct.pack("<II", 1, 0)
# info: 6 empty host strings, cpus 0 0, mem 0, version "", cmdline "",
# realtime 0, monotonic 0, start 0, target_hz 0.0, no channels
INFO = bytes([8]) + b"\0" * 6 + b"\0\0\0" + b"\0\0" + b"\0\0\0" + struct.pack("<d", 0.0) + b"\0"
START = HEADER + chunk(INFO)


def sample(nthreads, body=b""):
    return bytes([6]) + varint(0) + varint(nthreads) + body


def write(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def main():
    out = sys.argv[1]
    write(out, "nthreads.prof", START + chunk(sample(0xFFFFFFFF)))
    write(out, "nofit.prof", START + chunk(sample(60000, b"\1\2\3\4")))
    path = bytes([5]) + varint(1) + varint(0) * 8 + varint(1 << 40) + b"x"
    write(out, "string.prof", START + chunk(path))
    write(out, "chunkmax.prof", START + struct.pack("<II", 0xFFFFFFF0, 0) + b"x" * 100)
    write(out, "chunklen.prof", START + struct.pack("<II", 60 << 20, 0) + b"x" * 100)
    # 70000 live threads announced, none exits (the limit is 65536)
    recs = [bytes([3]) + varint(t) + varint(1) + varint(0) for t in range(1, 70001)]
    write(out, "threads.prof", START + b"".join(chunk(b"".join(recs[i:i + 8000]))
                                                for i in range(0, len(recs), 8000)))
    # bzip2: a chunk claiming 60 MiB of which 2 MiB exist
    write(out, "chunklen.prof.bz2",
          bz2.compress(START + struct.pack("<II", 60 << 20, 0) + b"\0" * (2 << 20)))
    # pperf: counts of 2^63 samples and 2^32-1 maps over a few bytes
    head = struct.pack("<IQQQII", 3, 1, 1, 1 << 63, 8, 0xFFFFFFFF)
    write(out, "counts.pperf",
          head + struct.pack("<QdI", 5, 1.0, 1) + struct.pack("<IQQ", 7, 8, 9))
    write(out, "pthreads.pperf", struct.pack("<IQQQII", 3, 1, 1, 1, 8, 0) +
          struct.pack("<QdI", 5, 1.0, 0xFFFFFFFF) + b"\0" * 40)
    write(out, "maps.pperf.bz2", bz2.compress(struct.pack("<IQQQII", 0, 1, 1, 0, 8, 0xFFFFFFFF) +
                                              b"\0" * (272 * 5000)))


if __name__ == "__main__":
    main()
