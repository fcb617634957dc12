"""The one escaping rule of every text output, the same as the C writers'
(common/textescape.h; docs/EXPORT.md, "Names in text outputs").

A control character (C0 0x00-0x1f, DEL, C1 U+0080-U+009F) and a byte that
is not part of well-formed UTF-8 are written %XX (upper-case hex), byte by
byte; so is every character of the caller's own separators (the text form
adds space, '%', '=', ',' and '"').  Everything else is as it is.  So a
name shown in a table, a tree, a message, an SVG, JSON or CSV file sends
no escape sequence to a terminal, forges no line and is valid UTF-8.

Text is str decoded from UTF-8 with errors="surrogateescape": a byte that
is not UTF-8 is a surrogate U+DC80-U+DCFF and is written as its byte.
"""

from __future__ import annotations

import re
from typing import Dict

_UNSHOWN = "\x00-\x1f\x7f-\x9f\ud800-\udfff"
_patterns: Dict[str, "re.Pattern[str]"] = {}


def to_bytes(value: object) -> bytes:
    """str (surrogate-escaped), bytes or a number -> the bytes it stands for."""
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "surrogateescape")


def to_text(data: bytes) -> str:
    """bytes -> str that gives the same bytes back (to_bytes)."""
    return data.decode("utf-8", "surrogateescape")


def _percent(m: "re.Match[str]") -> str:
    return "".join("%%%02X" % b for b in to_bytes(m.group(0)))


def escape_text(value: object, also: str = "") -> str:
    """value (str, bytes or a number) by the rule, with also's characters
    escaped too."""
    pattern = _patterns.get(also)
    if pattern is None:
        pattern = re.compile("[%s%s]" % (_UNSHOWN, re.escape(also)))
        _patterns[also] = pattern
    return pattern.sub(_percent, to_text(to_bytes(value)))


def display(value: object) -> str:
    """A name as every text output shows it (a table cell, a tree line, a
    message, an SVG label, a JSON string)."""
    return escape_text(value)


def display_lines(text: str) -> str:
    """Whole text of several lines by the rule, its own newlines kept: the
    last guard of a text output whose names display() already escaped."""
    return "\n".join(display(line) for line in text.split("\n"))
