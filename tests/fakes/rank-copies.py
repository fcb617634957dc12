#!/usr/bin/python3
"""rank-copies.py PROFILE N DIR - N copies of one profile, each its own rank.

A job of N ranks without running N programs: PROFILE is a native,
uncompressed profile whose rank is 9876543 (sampler-profile dump, the
host line's rank= set to it, sampler-profile build); copy i, DIR/app.i.prof,
has rank i.  The info record is alone in the first chunk (docs/FORMAT.md),
so that chunk is rewritten with its new length and CRC-32 and the rest of
the file is kept as it is: 10,000 copies take seconds, where 10,000 builds
take minutes.
"""
import struct
import sys
import zlib

MARK = b"\x079876543"  # the rank as a string: its length, then its digits


def main() -> None:
    data = open(sys.argv[1], "rb").read()
    n, _ = struct.unpack_from("<II", data, 16)
    info = data[24:24 + n]
    at = info.rfind(MARK)
    if data[:8] != b"SMPLPROF" or at < 0:
        sys.exit("rank-copies.py: %s is no uncompressed native profile of rank 9876543"
                 % sys.argv[1])
    for i in range(int(sys.argv[2])):
        rank = str(i).encode()
        new = info[:at] + bytes([len(rank)]) + rank + info[at + len(MARK):]
        head = struct.pack("<I", len(new))
        with open("%s/app.%d.prof" % (sys.argv[3], i), "wb") as f:
            f.write(data[:16] + head + struct.pack("<I", zlib.crc32(head + new)) + new
                    + data[24 + n:])


main()
