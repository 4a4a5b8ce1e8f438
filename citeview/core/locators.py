"""Line locators: ``L8`` and ``L8-L13``, and recognising near misses such as ``L8-13``."""

from __future__ import annotations

import re
from dataclasses import dataclass

# The guide's pattern. Python's \d also matches other Unicode decimal digits; int() reads them,
# so a locator the reference accepts always has a value here.
LINE_LOCATOR_RE = re.compile(r"^L\d+(?:-L\d+)?$")
_LOCATOR_PARTS = re.compile(r"L(\d+)(?:-L(\d+))?")

# Near misses a model writes when it means a line locator: "L8-13", "l8-l13", "lines 8-13",
# "L8–L13" (en dash), "L8 - L13", "line 8", "L8:L13", "#L8-L13".
_NEAR_MISS = re.compile(
    r"^#?\s*(?:lines?\s*|ll?\.?\s*)?(\d+)\s*(?:(?:-|–|—|:|to|\.\.)\s*(?:l\.?\s*)?(\d+))?$",
    re.IGNORECASE,
)


@dataclass(slots=True, frozen=True)
class Locator:
    """A parsed line locator: the first and last line label it names, and its raw text."""

    raw: str
    first: int
    last: int

    @property
    def is_range(self) -> bool:
        return "-" in self.raw

    @property
    def reversed(self) -> bool:
        return self.first > self.last

    def __str__(self) -> str:
        return self.raw


def is_line_locator(text: str) -> bool:
    """True when ``text`` is a locator exactly as the guide defines it."""
    return LINE_LOCATOR_RE.fullmatch(text) is not None


# raw -> parse_locator(raw): a locator is parsed once, not once per citation of every case (a
# Locator is frozen, so sharing one is safe). Cleared when full.
_PARSED: dict[str, Locator | None] = {}
_PARSED_MAX = 1 << 12
_UNSEEN = Locator("", 0, 0)


def parse_locator(raw: str) -> Locator | None:
    """``L8`` -> Locator(first=8, last=8); ``L8-L13`` -> (8, 13); anything else None."""
    found = _PARSED.get(raw, _UNSEEN)
    if found is not _UNSEEN:
        return found
    m = _LOCATOR_PARTS.fullmatch(raw)  # the guide's pattern, with its numbers captured
    if m is None:
        loc = None
    else:
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) is not None else first
        loc = Locator(raw, first, last)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[raw] = loc
    return loc


def near_miss_locator(text: str) -> Locator | None:
    """The locator a malformed one most likely meant (``L8-13`` -> L8-L13), or None.

    Only called on parts that are not valid locators; a bare number ("8") counts, an id such as
    ``turn0file0`` does not.
    """
    if LINE_LOCATOR_RE.fullmatch(text):
        return None
    m = _NEAR_MISS.fullmatch(text.strip())
    if not m:
        return None
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) is not None else first
    raw = f"L{first}" if m.group(2) is None else f"L{first}-L{last}"
    return Locator(raw, first, last)
