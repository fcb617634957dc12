#!/usr/bin/python3
"""hostile.py SEED OUTDIR - write hostile profiles for t5050, one per file.

SEED is a small valid native profile (uncompressed); its first chunk (the
info record) is reused so that later records are reached.  Every chunk gets
a correct CRC-32, so each file reaches the check it is named after:

  chunk-max        a chunk length of 64 MiB (the maximum) in a tiny file
  chunk-over       a chunk length of 4 GiB - 1
  string-max       the hostname string claims 2^64 - 1 bytes
  varint-long      an 11-byte varint (more than 64 bits)
  channels-over    65 channels (at most 64)
  nthreads-max     a sample listing 65536 threads in 20 bytes
  nthreads-over    a sample listing 65537 threads
  live-threads     65537 threads announced and none exited (at most 65536)
  comm-over        an exec whose comm has 16 bytes (at most 15)
  zero-chunk-bomb  bzip2: 64 MiB of zeros in one chunk (bad CRC, ~100 bytes packed)
  pperf-maps-max   the original layout claiming 2^32 - 1 maps
  pperf-samples-max  ... 2^64 - 1 samples
  pperf-threads-max  a sample with 2^32 - 1 threads
  pperf-valsize-max  a value size of 2^32 - 1
"""
import bz2
import os
import struct
import sys
import zlib

MAGIC = b"SMPLPROF" + struct.pack("<II", 1, 0)


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def chunk(payload, length=None):
    n = len(payload) if length is None else length
    head = struct.pack("<I", n)
    return head + struct.pack("<I", zlib.crc32(head + payload) & 0xFFFFFFFF) + payload


def chunks(data):
    off, out = 16, []
    while off + 8 <= len(data):
        n = struct.unpack_from("<I", data, off)[0]
        out.append(data[off + 8:off + 8 + n])
        off += 8 + n
    return out


def info_with(first, hostname_len=None, channels=None):
    """The seed's info record with the hostname length or channel count replaced."""
    assert first[0] == 8
    if hostname_len is not None:
        n, used = first[1], 1  # the seed's hostname is short: one length byte
        assert n < 0x80
        return bytes([8]) + hostname_len + first[1 + used + n:]
    # channel count: the seed has none; it is the byte before the end
    assert first[-1] == 0
    return first[:-1] + varint(channels)


def main():
    seed = open(sys.argv[1], "rb").read()
    out = sys.argv[2]
    info = chunks(seed)[0]
    head = MAGIC + chunk(info)
    files = {}
    files["chunk-max"] = head + struct.pack("<II", 64 << 20, 0) + b"\x06" * 100
    files["chunk-over"] = head + struct.pack("<II", 0xFFFFFFFF, 0) + b"\x06" * 100
    files["string-max"] = MAGIC + chunk(info_with(info, hostname_len=b"\xff" * 9 + b"\x01"))
    files["varint-long"] = MAGIC + chunk(info_with(info, hostname_len=b"\xff" * 10 + b"\x01"))
    chan = (b"".join(varint(len(s)) + s for s in (b"c", b"src", b"W"))
            + struct.pack("<d", 1) + b"\x01\x00")
    files["channels-over"] = MAGIC + chunk(info_with(info, channels=65) + chan * 65)
    proc = bytes([1]) + varint(10) + varint(0) + varint(1000)
    files["nthreads-max"] = head + chunk(proc + bytes([6, 0]) + varint(65536) + b"\x02" * 20)
    files["nthreads-over"] = head + chunk(
        proc + bytes([6, 0]) + varint(65537) + b"\x02" * 65537 * 3)
    threads = b"".join(
        bytes([3]) + varint(100000 + i) + varint(10) + varint(1000) for i in range(65537))
    files["live-threads"] = head + chunk(proc + threads)
    exe = bytes([2]) + varint(10) + varint(1000) + varint(16) + b"x" * 16 + varint(1) + b"x"
    files["comm-over"] = head + chunk(proc + exe)
    files["zero-chunk-bomb.bz2"] = bz2.compress(
        head + struct.pack("<II", 64 << 20, 0) + bytes(64 << 20))
    pp = struct.pack("<IQQQII", 3, 1000, 10, 1, 8, 0)
    sample = struct.pack("<Qd", 100, 1.5)
    thread = struct.pack("<IQQ", 10, 0x400000, 1000)
    one = struct.pack("<I", 1)
    files["pperf-maps-max"] = (
        struct.pack("<IQQQII", 3, 1000, 10, 1, 8, 0xFFFFFFFF) + sample + one + thread)
    files["pperf-samples-max"] = (
        struct.pack("<IQQQII", 3, 1000, 10, 2**64 - 1, 8, 0) + sample + one + thread)
    files["pperf-threads-max"] = pp + sample + struct.pack("<I", 0xFFFFFFFF) + thread * 3
    files["pperf-valsize-max"] = (
        struct.pack("<IQQQII", 3, 1000, 10, 1, 0xFFFFFFFF, 0) + sample + one + thread)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
