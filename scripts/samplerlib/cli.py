"""Argument parsing and the one error style shared by every script.

Every failure ends as one line on stderr, "PROG: error: what: why (fix)",
and exit status 1; never a traceback.
"""

import argparse
import os
import sys


class SamplerError(Exception):
    """An error the user can act on; the message is the whole line."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit status 1, and -V/--version."""

    def __init__(self, **kw):
        from . import VERSION

        super().__init__(**kw)
        self.add_argument(
            "-V",
            "--version",
            action="version",
            version="%(prog)s " + VERSION,
            help="print the version (the one of the sampler tools) and exit",
        )

    def error(self, message):
        raise SamplerError("%s (see %s --help)" % (message, self.prog))


def add_table_options(p):
    """Output options shared by the scripts that print tables."""
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="CSV output")
    fmt.add_argument("--json", action="store_true", help="JSON output")
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (.bz2: compressed; default stdout)"
    )
    add_cache_option(p)


def add_cache_option(p):
    p.add_argument("--no-cache", action="store_true", help="do not read or write the result cache")


def run_main(prog, main):
    """Run main(argv) and turn every failure into one error line."""
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
    except MemoryError:
        return _fail(prog, "out of memory (use a smaller profile or --by dso)")
    except OSError as e:
        where = (" %s" % e.filename) if e.filename else ""
        return _fail(prog, "cannot access%s: %s" % (where, e.strerror or e))
    except Exception as e:  # a bug of ours: still one line, but say so
        return _fail(
            prog,
            "internal error: %s: %s (please report this with the input that caused it)"
            % (type(e).__name__, e),
        )
    return status or 0


def _fail(prog, message):
    try:
        sys.stdout.flush()
    except Exception:
        pass
    sys.stderr.write("%s: error: %s\n" % (prog, message))
    return 1


WEIGHTS = "cpu (default), samples, energy[:CHANNEL]"


def add_weight_option(p, what="rows, call paths and flame graph frames"):
    """--weight, as every tool has it (docs/SCRIPTS.md, "Weights")."""
    p.add_argument(
        "--weight",
        default="cpu",
        metavar="W",
        help="what weighs %s: %s (thread-samples: the wall view, blocked threads "
        "included)" % (what, WEIGHTS),
    )


def add_demangle_option(p):
    p.add_argument(
        "--no-demangle",
        action="store_true",
        help="show C++ and Rust names as the binary holds them (passed to sampler-export)",
    )


def add_energy_options(p):
    p.add_argument(
        "--energy-rule",
        choices=("trapezoid", "end"),
        help="how an interval's energy is divided among the code that ran in it "
        "(passed to sampler-export; docs/ACCURACY.md): trapezoid (default) or end "
        "(the old rule, biased at every change of what runs)",
    )
    p.add_argument(
        "--meter-delay",
        action="append",
        metavar="[CHANNEL=]MS",
        help="the meter's delay (passed to sampler-export; default 0)",
    )


def export_args(args):
    """Options the scripts pass through to sampler-export."""
    out = ["--no-demangle"] if getattr(args, "no_demangle", False) else []
    if getattr(args, "energy_rule", None):
        out += ["--energy-rule", args.energy_rule]
    for spec in getattr(args, "meter_delay", None) or ():
        out += ["--meter-delay", spec]
    return tuple(out)


def warn(prog, message):
    sys.stderr.write("%s: warning: %s\n" % (prog, message))


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not an integer: %r" % text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be > 0: %r" % text)
    return value


def percent(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError("must be between 0 and 100: %r" % text)
    return value


def confidence(text):
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
