#!/usr/bin/python3
"""scrub-seed.py SEED... - rewrite, in place, what a recorded profile says
of the machine it was recorded on, and nothing else: the host name becomes
"seed-host", every local absolute path (outside /usr, /lib, /opt, ...)
becomes a neutral one: relative in the command line (build/sampler ...),
under /opt/sampler/ in exec and map records (the kernel's paths are
absolute).  Native profiles (plain or bzip2) keep their format version,
their chunks and streams; pperf profiles every offset.  Check with
`sampler-profile dump` before and after that only those fields changed
(tests/t0090 checks the seeds for local paths and this host's name)."""
import bz2
import re
import struct
import sys
import zlib

HOST = b"seed-host"
# An absolute path of two components or more in no system directory: a
# path as recorded in a checkout, a home, a temporary directory.
LOCAL = re.compile(rb"(?<![\w.+@:/-])/(?!(?:usr|lib|lib32|lib64|bin|sbin|etc|opt|dev|proc|sys|run|var)/)"
                   rb"[\w.+-]+(?:/[\w.+@:-]+)+")
PRINTABLE = re.compile(rb"[\x20-\x7e]*")


def tail(path):
    """What stays of a local path: below its build directory, else its name."""
    return path.split(b"/build/")[-1] if b"/build/" in path else path.rsplit(b"/", 1)[-1]


def words(s, neutral):
    return b" ".join(neutral(w) if LOCAL.fullmatch(w) else w for w in s.split(b" "))


def relative(s):
    return words(s, tail)


def absolute(s):
    return words(s, lambda w: b"/opt/sampler/" + tail(w))


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def get_varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def get_string(b, i):
    n, i = get_varint(b, i)
    return b[i:i + n], i + n


def scrub_info(p):
    """The info record: hostname first, cmdline the 8th string."""
    fields, i = [], 1
    for kind in "ssssss vvv ss".replace(" ", ""):
        start = i
        if kind == "s":
            s, i = get_string(p, i)
        else:
            _, i = get_varint(p, i)
        fields.append((kind, p[start:i], s if kind == "s" else None))
    out = bytearray(p[:1])
    for n, (kind, raw, s) in enumerate(fields):
        if n == 0:
            s = HOST
        elif n == 10:
            s = relative(s)
        out += varint(len(s)) + s if kind == "s" else raw
    return bytes(out + p[i:])


def string_at(p, i):
    """The string whose bytes start at i: (start of its length, length), or None."""
    if i >= 1 and p[i - 1] < 0x80 and (i < 2 or p[i - 2] < 0x80):
        return i - 1, p[i - 1]
    if i >= 2 and p[i - 1] < 0x80 and p[i - 2] >= 0x80 and (i < 3 or p[i - 3] < 0x80):
        return i - 2, (p[i - 2] & 0x7F) | p[i - 1] << 7
    return None


def scrub_records(p):
    """Strings that begin with a local path (exec argv, map paths)."""
    out, done = bytearray(), 0
    for m in LOCAL.finditer(p):
        i = m.start()
        at = string_at(p, i) if i >= done else None
        if not at or i + at[1] > len(p) or not PRINTABLE.fullmatch(p[i:i + at[1]]):
            continue
        s = absolute(p[i:i + at[1]])
        out += p[done:at[0]] + varint(len(s)) + s
        done = i + at[1]
    return bytes(out + p[done:])


def scrub_native(d):
    out, chunks, i, first = bytearray(d[:16]), [], 16, True
    while i < len(d):
        n, _ = struct.unpack_from("<II", d, i)
        p = d[i + 8:i + 8 + n]
        if len(p) < n:		# a cut chunk (a truncated seed): kept as cut
            chunks.append(d[i:])
            break
        p = scrub_info(p) if first else scrub_records(p)
        head = struct.pack("<I", len(p))
        chunks.append(head + struct.pack("<I", zlib.crc32(head + p)) + p)
        i += 8 + n
        first = False
    chunks[0] = bytes(out) + chunks[0]
    return chunks


def scrub_pperf(d):
    """Map labels, in place: each is NUL-padded to 256 bytes.  Offsets stay
    as they were, so a mutated seed (a regression input) stays as mutated."""
    out = bytearray(d)
    for m in LOCAL.finditer(d):
        path = m.group()
        new = absolute(path)
        if d[m.end():m.end() + 1] == b"\0" and len(new) <= len(path):
            out[m.start():m.end()] = new.ljust(len(path), b"\0")
    return bytes(out)


def main():
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            d = f.read()
        compressed = d[:3] == b"BZh"
        if compressed:
            d = bz2.decompress(d)
        if d[:8] == b"SMPLPROF":
            chunks = scrub_native(d)
        else:
            chunks = [scrub_pperf(d)]
        data = b"".join(chunks)
        left = [m.group() for m in LOCAL.finditer(data)]
        if left:
            sys.exit("scrub-seed.py: %s: local paths left: %s" % (path, b" ".join(left[:5]).decode(errors="replace")))
        if compressed:		# one stream per chunk, as the writer does
            data = b"".join(bz2.compress(c, 1) for c in chunks)
        with open(path, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
