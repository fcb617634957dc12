"""Row tables as aligned text, CSV or JSON (one schema for all three).

A column is (field, heading, format); format is a %-format or a function.
CSV and JSON use the field names; NaN / missing values are empty / null.
Names are shown by the one escaping rule of every text output (escape.py).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import sys
from argparse import Namespace
from typing import Any, Callable, Iterable, Mapping, Sequence, Tuple

from .escape import display, display_lines
from .fileio import Output

Row = Mapping[str, Any]  # field -> value
Column = Tuple[str, str, Any]  # (field, heading, %-format or function of the row)


def _value(row, field):
    v = row.get(field)
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, str):
        return display(v)  # a name: no control byte, valid UTF-8
    return v


def _text(row, column):
    field, _, fmt = column
    v = _value(row, field)
    if v is None:
        return "-"
    if callable(fmt):
        return fmt(row)
    return fmt % v


CUT = "..."  # where a name too long for the width lost its middle
MIN_NAME = 24  # a name column is never cut narrower


def width_of(args: Namespace) -> int | None:
    """The width a text table may take: --width, else the terminal's (or
    $COLUMNS) when the output is one, else $COLUMNS; None: no limit."""
    given = getattr(args, "width", None)
    if given is not None:
        return given if given > 0 else None
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    if getattr(args, "output", None) in (None, "-") and sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


def cut_middle(name: str, width: int) -> str:
    """name in at most width characters: its head and tail around CUT."""
    if len(name) <= width:
        return name
    keep = width - len(CUT)
    return name[: (keep + 1) // 2] + CUT + name[len(name) - keep // 2:]


def short_name(name: str) -> str:
    """A C++/Rust name without its template and function arguments:
    std::map<int, std::string>::find(int const&) as std::map<>::find()."""
    out, depth = [], 0
    for ch in name:
        if ch in "<(":
            if depth == 0:
                out.append(ch)
            depth += 1
        elif ch in ">)" and depth:
            depth -= 1
            if depth == 0:
                out.append(ch)
        elif depth == 0:
            out.append(ch)
    return "".join(out) if depth == 0 else name  # unbalanced: as it is


def text(
    columns: Sequence[Column],
    rows: Iterable[Row],
    footer: Row | None = None,
    args: Namespace | None = None,
) -> str:
    """Aligned text; with args, names shortened (--short-names) and the
    name column cut to fit the width (width_of)."""
    short = bool(getattr(args, "short_names", False))
    cells = [[c[1] for c in columns]]
    for row in rows:
        r = [display(_text(row, c)) for c in columns]
        if short:
            r[0] = short_name(r[0])
        cells.append(r)
    if footer:
        cells.append([_text(footer, c) if footer.get(c[0]) is not None else "" for c in columns])
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    limit = width_of(args) if args is not None else None
    if limit is not None:
        room = limit - sum(widths[1:]) - 2 * (len(widths) - 1)
        if widths[0] > max(room, MIN_NAME):
            widths[0] = max(room, MIN_NAME)
            for r in cells:
                r[0] = cut_middle(r[0], widths[0])
    out = io.StringIO()
    for n, r in enumerate(cells):
        if footer and n == len(cells) - 1:
            out.write("-" * (sum(widths) + 2 * (len(widths) - 1)) + "\n")
        parts = []
        for i, cell in enumerate(r):
            # first column left-aligned (names), numbers right-aligned
            parts.append(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]))
        out.write("  ".join(parts).rstrip() + "\n")
    return out.getvalue()


def to_csv(fields: Sequence[str], rows: Iterable[Row]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(fields)
    for row in rows:
        w.writerow(["" if _value(row, f) is None else _fmt_csv(_value(row, f)) for f in fields])
    return out.getvalue()


def _fmt_csv(v):
    if isinstance(v, float):
        return "%.6g" % v if abs(v) < 1e15 else repr(v)
    return str(v)


def to_json(meta: Mapping[str, Any], fields: Sequence[str], rows: Iterable[Row]) -> str:
    clean = [{f: _value(row, f) for f in fields} for row in rows]
    doc = dict(meta)
    doc["rows"] = clean
    return json.dumps(doc, indent=1, allow_nan=False, default=str) + "\n"


def clean_nan(obj: Any) -> Any:
    """Replace NaN floats by None, recursively (JSON has no NaN)."""
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: clean_nan(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean_nan(v) for v in obj]
    return obj


def emit(
    args: Namespace,
    fields: Sequence[str],
    rows: Sequence[Row],
    meta: Callable[[], Mapping[str, Any]],
    text_out: Callable[[], str],
) -> None:
    """Write rows as args asks (--csv, --json or text, to -o or stdout).
    meta() gives the JSON document's other keys; text_out() the whole text."""
    with Output(args.output) as out:
        if args.csv:
            out.write(to_csv(fields, rows))
        elif args.json:
            out.write(to_json(meta(), fields, rows))
        else:
            out.write(display_lines(text_out()))
