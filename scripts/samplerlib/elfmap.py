"""Memory maps for imported profiles: /proc/PID/maps text, or a map
synthesised from an ELF executable's PT_LOAD program headers (as the
loader would map it at its link address, or at --load-base for PIE)."""

from __future__ import annotations

import os
import struct
from typing import Any

from .cli import SamplerError

PAGE = 4096
PT_LOAD = 1
MACHINES = {3: "i686", 40: "arm", 62: "x86_64", 183: "aarch64", 243: "riscv64", 8: "mips"}

Map = dict[str, Any]  # start, len, pgoff, dev, inode, prot, path


def read_maps(path: str) -> list[Map]:
    """[{start, len, pgoff, dev, inode, prot, path}] from /proc/PID/maps syntax."""
    maps: list[Map] = []
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise SamplerError(
            "cannot read %s: %s (give a copy of /proc/PID/maps)" % (path, e.strerror)
        )
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split(None, 5)
        try:
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            perms, pgoff, dev, inode = parts[1], int(parts[2], 16), parts[3], int(parts[4])
        except (ValueError, IndexError):
            raise SamplerError("%s:%d: not a /proc/PID/maps line: %r" % (path, number, line[:60]))
        if hi <= lo:
            raise SamplerError("%s:%d: map ends before it starts" % (path, number))
        maps.append(
            {
                "start": lo,
                "len": hi - lo,
                "pgoff": pgoff,
                "dev": dev,
                "inode": inode,
                "prot": perms[:3],
                "path": parts[5].strip() if len(parts) > 5 else "",
            }
        )
    if not maps:
        raise SamplerError("%s: no maps (give a copy of /proc/PID/maps)" % path)
    return maps


def binary_maps(path: str, load_base: int = 0) -> tuple[list[Map], str]:
    """Maps of an ELF executable's loadable segments, and its machine name."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 16)
            st = os.fstat(f.fileno())
    except OSError as e:
        raise SamplerError("cannot read %s: %s" % (path, e.strerror))
    if data[:4] != b"\x7fELF" or len(data) < 52:
        raise SamplerError("%s: not an ELF file (give the profiled executable)" % path)
    is64 = data[4] == 2
    end = "<" if data[5] == 1 else ">"
    e_type, e_machine = struct.unpack_from(end + "HH", data, 16)
    if is64:
        (phoff,) = struct.unpack_from(end + "Q", data, 32)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 54)
    else:
        (phoff,) = struct.unpack_from(end + "I", data, 28)
        phentsize, phnum = struct.unpack_from(end + "HH", data, 42)
    if phoff + phentsize * phnum > len(data):
        raise SamplerError(
            "%s: program headers beyond the first 64 KiB (not a usual executable)" % path
        )
    base = load_base if e_type == 3 else 0  # ET_DYN (PIE): relative to its load base
    maps = []
    for i in range(phnum):
        at = phoff + i * phentsize
        if is64:
            p_type, flags, offset, vaddr, _, filesz, memsz, _ = struct.unpack_from(
                end + "IIQQQQQQ", data, at
            )
        else:
            p_type, offset, vaddr, _, filesz, memsz, flags, _ = struct.unpack_from(
                end + "IIIIIIII", data, at
            )
        if p_type != PT_LOAD or memsz == 0:
            continue
        start = (vaddr + base) & ~(PAGE - 1)
        stop = (vaddr + base + memsz + PAGE - 1) & ~(PAGE - 1)
        prot = (
            ("r" if flags & 4 else "-") + ("w" if flags & 2 else "-") + ("x" if flags & 1 else "-")
        )
        maps.append(
            {
                "start": start,
                "len": stop - start,
                "pgoff": offset & ~(PAGE - 1),
                "dev": "%02x:%02x" % (os.major(st.st_dev) & 0xFF, os.minor(st.st_dev) & 0xFF),
                "inode": st.st_ino,
                "prot": prot,
                "path": os.path.abspath(path),
            }
        )
    if not maps:
        raise SamplerError("%s: no loadable segments (give the profiled executable)" % path)
    return maps, MACHINES.get(e_machine, "unknown")
