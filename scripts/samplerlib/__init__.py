"""samplerlib - what sampler-report, -compare, -plot and -import share.

Modules (each one concern):
  cli      argument parsing and the one error style ("PROG: error: ...")
  tools    finding and running the C programs (sampler-export, sampler-profile)
  fileio   plain/bzip2 input and output, progress on a terminal
  textview contract 1: the text view of a profile (sampler-profile dump/build)
  csvprof  contract 2: reading a profile through sampler-export's CSV
  stats    confidence intervals and run-to-run spread
  agg      per-function (dso, thread, process) aggregation and its cache
  blockagg the numpy aggregation of a profile's rows, block by block
  callpaths trees of call paths (profiles with stacks), their shares
  flame    flame graphs of a call-path tree (interactive SVG, figures)
  table    text / CSV / JSON output of row tables
  meter    equipment tables and timeline integrals (sampler-import)
  elfmap   maps from /proc/PID/maps or an ELF file (sampler-import)
  cli_report, cli_compare, cli_plot, cli_import
           the four commands (main() is each one's entry point)

The profile's binary format is never parsed here: profiles are read through
`sampler-export --format csv` and written through `sampler-profile build`.
"""

import importlib.util
import os
import sys

VERSION = "0.1.0"  # the project's one version number (the Makefile reads it)

if importlib.util.find_spec("numpy") is None:  # every script aggregates with it
    # A python3 of pyenv or conda first on PATH lacks Debian's numpy: the
    # commands make writes into build/ run with /usr/bin/python3.
    sys.stderr.write(
        "%s: error: numpy is not available to %s (apt-get install python3-numpy%s)\n"
        % (
            os.path.basename(sys.argv[0]) or "samplerlib",
            sys.executable,
            "" if sys.executable == "/usr/bin/python3" else
            "; or run the commands make writes into build/, which use /usr/bin/python3",
        )
    )
    sys.exit(1)
