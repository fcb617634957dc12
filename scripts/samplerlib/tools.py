"""Finding and running the C programs the scripts build on.

Search order: $SAMPLER_BIN_DIR, ../build next to the script's real path
(in-tree use), the script's own directory (installed next to it), PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Any, Container, Iterable

from .cli import SamplerError


def _script_dir() -> str:
    return os.path.dirname(os.path.realpath(sys.argv[0]))


def find_program(name: str) -> str:
    env = os.environ.get("SAMPLER_BIN_DIR")
    if env:
        path = os.path.join(env, name)
        if os.access(path, os.X_OK):
            return path
        raise SamplerError(
            "%s not found in SAMPLER_BIN_DIR=%s (unset it or point it at the directory holding %s)"
            % (name, env, name)
        )
    here = _script_dir()
    for d in (os.path.join(here, "..", "build"), here):
        path = os.path.join(d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.normpath(path)
    found = shutil.which(name)
    if found:
        return found
    raise SamplerError(
        "%s not found in ../build, next to this script or in PATH"
        " (run make, or set SAMPLER_BIN_DIR)" % name
    )


def start(
    name: str, args: Iterable[str], stdin: Any = None, stdout: Any = subprocess.PIPE
) -> subprocess.Popen[bytes]:
    """Start a program; its stderr is captured for the error message."""
    argv = [find_program(name)] + list(args)
    try:
        return subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE)
    except OSError as e:
        raise SamplerError("cannot run %s: %s" % (argv[0], e.strerror))


# What the profile reader says of damage (a chunk failing its CRC, a bad
# record), unlike a truncation: the C tools end a partial export either way.
DAMAGE = "corrupt profile at byte offset"


# What the profile reader says of values the recorder never writes, which
# it repaired (profile.h): passed on once each, however often a profile
# is read.
REPAIRED = "values the recorder never writes"
_repairs_told: set[str] = set()


def pass_on_repairs(lines: list[str]) -> None:
    prog = os.path.basename(sys.argv[0])
    for line in lines:
        if REPAIRED in line and line not in _repairs_told:
            _repairs_told.add(line)
            sys.stderr.write("%s: warning: %s\n" % (prog, line.split("warning: ", 1)[-1]))


def repairs_told() -> int:
    """How many repair lines were passed on so far."""
    return len(_repairs_told)


def check_finished(proc: subprocess.Popen[bytes], name: str, ok: Container[int] = (0,)) -> int:
    """Wait for proc; a failure becomes one SamplerError line.  A partial
    export (status 2) is a truncation, which the caller may accept; one
    cut by damage is an error, with the offset the reader named."""
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    status = proc.wait()
    lines = [line for line in err.splitlines() if line.strip()]
    pass_on_repairs(lines)
    damage = [line for line in lines if DAMAGE in line]
    if status in ok and not (status == 2 and damage):
        return status
    if damage:  # "...: dropped the rest: PATH: corrupt profile at byte offset N: ..."
        raise SamplerError(damage[-1].split("dropped the rest: ", 1)[-1].split("error: ", 1)[-1])
    why = lines[-1] if lines else "exit status %d" % status
    # The program's line already says "name: error: ...": keep its words.
    marker = "error: "
    if marker in why:
        why = why.split(marker, 1)[1]
    raise SamplerError("%s failed: %s" % (name, why))
