"""Argument parsing and the one error style shared by every script.

Every failure ends as one line on stderr, "PROG: error: what: why (fix)",
and exit status 1; never a traceback.  A package the command needs that
Python cannot import (numpy) ends it the same way with exit status 2: the
input may be fine, the installation is not.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from typing import Any, Callable, NoReturn, Sequence

from .escape import display_lines

# What the commands import beyond Python's own library, and its Debian package.
PACKAGES = {"numpy": "python3-numpy"}


class SamplerError(Exception):
    """An error the user can act on; the message is the whole line."""


class Terminated(BaseException):
    """SIGTERM arrived (catch_term); a BaseException, as KeyboardInterrupt."""


def _on_term(signum: int, frame: Any) -> None:
    raise Terminated()


def catch_term() -> None:
    """SIGTERM raises Terminated, as SIGINT raises KeyboardInterrupt: the
    exporter and the workers are stopped on the way out (run_main)."""
    signal.signal(signal.SIGTERM, _on_term)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 1, and -V/--version."""

    def __init__(self, **kw: Any) -> None:
        from . import VERSION

        super().__init__(**kw)
        self.add_argument(
            "-V",
            "--version",
            action="version",
            version="%(prog)s " + VERSION,
            help="print the version (the one of the sampler tools) and exit",
        )

    def error(self, message: str) -> NoReturn:
        raise SamplerError("%s (see %s --help)" % (message, self.prog))


def add_table_options(p: argparse.ArgumentParser) -> None:
    """Output options shared by the scripts that print tables."""
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="CSV output")
    fmt.add_argument("--json", action="store_true", help="JSON output")
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (.bz2: compressed; default stdout)"
    )
    p.add_argument(
        "--width",
        type=int,
        metavar="N",
        help="text tables at most N characters wide, long names cut in the middle "
        "(default: the terminal's width, or $COLUMNS; 0 or output to a file or pipe "
        "without $COLUMNS: no limit)",
    )
    p.add_argument(
        "--short-names",
        action="store_true",
        help="C++ and Rust names without template and function arguments: f<...>(...) as f<>()",
    )
    add_cache_option(p)


def add_cache_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")


def run_main(prog: str, main: Callable[[Sequence[str]], int | None]) -> int:
    """Run main(argv) and turn every failure into one error line."""
    catch_term()
    try:
        status = main(sys.argv[1:])
        try:
            sys.stdout.flush()
        except OSError as e:
            if isinstance(e, BrokenPipeError):
                raise
            return _fail(prog, "cannot write the standard output: %s" % (e.strerror or e))
    except SamplerError as e:
        return _fail(prog, str(e))
    except BrokenPipeError:
        # Reader went away (e.g. `| head`): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return _fail(prog, "interrupted")
    except Terminated:
        _fail(prog, "terminated")
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)  # the status of a process SIGTERM ended
        return 128 + signal.SIGTERM
    except MemoryError:
        return _fail(prog, "out of memory (use a smaller profile or --by dso)")
    except OSError as e:
        where = (" %s" % e.filename) if e.filename else ""
        return _fail(prog, "cannot access%s: %s" % (where, e.strerror or e))
    except Exception as e:  # a package we need, or a bug of ours: still one line
        missing = missing_package() if isinstance(e, ImportError) else None
        if missing is not None:
            return _fail(prog, missing, status=2)
        return _fail(
            prog,
            "internal error: %s: %s (please report this with the input that caused it)"
            % (type(e).__name__, e),
        )
    return status or 0


def _fail(prog: str, message: str, status: int = 1) -> int:
    try:
        sys.stdout.flush()
    except Exception:
        pass
    sys.stderr.write("%s: error: %s\n" % (prog, display_lines(message)))
    return status


def missing_package() -> str | None:
    """The error message for the first of PACKAGES that Python cannot
    import, or None.  It is imported again to tell: an ImportError names
    the module only when it is absent, not when the module itself fails."""
    for name, deb in PACKAGES.items():
        try:
            importlib.import_module(name)
        except ImportError as e:
            why = (str(e).strip().splitlines() or ["it cannot be imported"])[0]
            # A python3 of pyenv or conda first on PATH lacks Debian's numpy:
            # the commands make writes into build/ run with /usr/bin/python3.
            elsewhere = (
                ""
                if sys.executable == "/usr/bin/python3"
                else "; or run the commands make writes into build/, which use /usr/bin/python3"
            )
            return "%s is not available to %s: %s (make deps, or apt-get install %s%s)" % (
                name,
                sys.executable,
                why,
                deb,
                elsewhere,
            )
    return None


WEIGHTS = "cpu (default), samples, energy[:CHANNEL]"


def add_weight_option(
    p: argparse.ArgumentParser, what: str = "rows, call paths and flame graph frames"
) -> None:
    """--weight, as every tool has it (docs/SCRIPTS.md, "Weights")."""
    p.add_argument(
        "--weight",
        default="cpu",
        metavar="W",
        help="what weighs %s: %s (thread-samples: the wall view, blocked threads "
        "included)" % (what, WEIGHTS),
    )


def add_demangle_option(p: argparse.ArgumentParser) -> None:
    """--no-demangle and --no-inline: how the exporter names the frames."""
    p.add_argument(
        "--no-demangle",
        action="store_true",
        help="show C++ and Rust names as the binary holds them (passed to sampler-export)",
    )
    p.add_argument(
        "--no-inline",
        action="store_true",
        help="no frames of inlined functions in the stacks (passed to sampler-export)",
    )


def add_energy_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--energy-rule",
        choices=("trapezoid", "end"),
        help="how an interval's energy is divided among the code that ran in it "
        "(passed to sampler-export; docs/ENERGY.md): trapezoid (default) or end "
        "(the old rule, biased at every change of what runs)",
    )
    p.add_argument(
        "--meter-delay",
        action="append",
        metavar="[CHANNEL=]MS",
        help="the meter's delay (passed to sampler-export; default 0)",
    )


def export_args(args: argparse.Namespace) -> tuple[str, ...]:
    """Options the scripts pass through to sampler-export."""
    out: list[str] = ["--no-demangle"] if getattr(args, "no_demangle", False) else []
    if getattr(args, "no_inline", False):
        out.append("--no-inline")
    if getattr(args, "energy_rule", None):
        out += ["--energy-rule", args.energy_rule]
    for spec in getattr(args, "meter_delay", None) or ():
        out += ["--meter-delay", spec]
    return tuple(out)


def warn(prog: str, message: str) -> None:
    sys.stderr.write("%s: warning: %s\n" % (prog, display_lines(message)))


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not an integer: %r" % text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be > 0: %r" % text)
    return value


def percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError("must be between 0 and 100: %r" % text)
    return value


def confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if value > 1:
        value /= 100
    if not 0.5 <= value < 1:
        raise argparse.ArgumentTypeError(
            "must be between 0.5 and 0.999 (or 50..99.9 %%): %r" % text
        )
    return value
