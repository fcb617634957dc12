"""samplerlib - what sampler-report, -compare, -plot and -import share.

Modules (each one concern):
  cli      argument parsing and the one error style ("PROG: error: ...")
  tools    finding and running the C programs (sampler-export, sampler-profile)
  fileio   plain/bzip2 input and output, progress on a terminal
  textview contract 1: the text view of a profile (sampler-profile dump/build)
  csvprof  contract 2: reading a profile through sampler-export's CSV
  stats    confidence intervals and run-to-run spread
  agg      per-function (dso, thread, process) aggregation and its cache
  table    text / CSV / JSON output of row tables

The profile's binary format is never parsed here: profiles are read through
`sampler-export --format csv` and written through `sampler-profile build`.
"""

VERSION = "0.1.0"
