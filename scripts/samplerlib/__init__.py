"""samplerlib - what sampler-report, -compare, -plot and -import share.

Modules (each one concern):
  cli       argument parsing, the one error style ("PROG: error: ...") and
            the commands' exit status
  tools     finding and running the C programs (sampler-export, sampler-profile)
  fileio    plain/bzip2 input and output, progress on a terminal
  textview  contract 1: the text view of a profile (sampler-profile dump/build)
  csvprof   contract 2: reading a profile through sampler-export's CSV
  colprof   reading a profile through sampler-export's binary columns
  stats     confidence intervals and run-to-run spread
  runagg    the run aggregate: sums per (pid, tid, dso, symbol), their layout
  agg       loading runs (and their cache), grouping per function, dso,
            thread or process
  blockagg  the numpy aggregation of a profile's rows, block by block; the
            rows in blocks of whole samples, for every reader of them
  metrics   the rows of a report or comparison: shares, energy, power and
            their intervals, per run and pooled over runs
  job       the profiles of a job (ranks of an MPI run, hosts) as one run
  callpaths trees of call paths (profiles with stacks), their shares
  callread  reading profiles with stacks into a call-path tree
  callrows  a call-path tree as report rows and indented text
  calldiff  two call-path trees compared, changes flagged
  flame     flame graphs of a call-path tree (interactive SVG, figures)
  timeline  per-sample series of one profile, for sampler-plot's timeline
  table     text / CSV / JSON output of row tables
  meter     equipment tables and timeline integrals (sampler-import)
  elfmap    maps from /proc/PID/maps or an ELF file (sampler-import)
  cli_report, cli_compare, cli_plot, cli_import
            the four commands (main() is each one's entry point)

Importing the package or a command's module needs nothing but Python: the
modules that need numpy import it, and only when a command reads rows (a
report answered from the cache never does).  A command that needs numpy
where it is missing ends with one error line and exit status 2 (cli).

The profile's binary format is never parsed here: profiles are read through
`sampler-export --format csv` and written through `sampler-profile build`.
"""

VERSION = "0.1.0"  # the project's one version number (the Makefile reads it)
