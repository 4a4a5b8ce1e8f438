"""Text helpers: line breaks and the one conversion between code points and UTF-16 units.

Line breaks are ``\\n``, ``\\r\\n`` and ``\\r`` only. ``str.splitlines`` also splits on U+2028,
U+0085, form feed and others, which the material format does not treat as line breaks.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def iter_lines(text: str) -> Iterator[tuple[int, int, int]]:
    """Yield ``(start, end, next_start)`` for each line: ``text[start:end]`` is the line without
    its break, ``next_start`` the offset after the break. A final line without a break is yielded
    too; a text ending in a break has no empty last line."""
    pos = 0
    n = len(text)
    for m in _LINE_BREAK.finditer(text):
        yield pos, m.start(), m.end()
        pos = m.end()
    if pos < n:
        yield pos, n, n


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their breaks (``\\n``, ``\\r\\n``, ``\\r`` only)."""
    lines = normalize_breaks(text).split("\n")  # str methods: C speed, no regex
    if lines[-1] == "":
        lines.pop()  # a final break ends the last line; it does not start another
    return lines


def normalize_breaks(text: str) -> str:
    """``text`` with every line break written as ``\\n`` (``\\r\\n`` and ``\\r`` replaced); other
    characters, U+2028 included, are kept. Splitting the result on ``"\\n"`` gives
    :func:`split_lines` (plus an empty last piece when the text ends with a break)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in code points) of ``offset`` in ``text``. An offset between the
    two characters of a ``\\r\\n`` belongs to the line the break ends."""
    return LineIndex(text).line_col(offset)


class LineIndex:
    """Offsets of line starts, for many ``line_col`` look-ups on one text in O(log n) each."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        self._starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect_right(self._starts, offset) - 1
        return i + 1, offset - self._starts[i] + 1


class Utf16Map:
    """Converts code-point offsets to UTF-16 offsets (what Qt counts) and back.

    Built once per text in O(n); each conversion is O(log a) for ``a`` astral characters, and O(1)
    for texts without any.
    """

    __slots__ = ("_astral", "_lows")

    def __init__(self, text: str) -> None:
        # Code-point offsets of characters outside the BMP: each takes two UTF-16 units.
        self._astral = [m.start() for m in _ASTRAL.finditer(text)]
        # UTF-16 offset of each such character's low surrogate.
        self._lows = [c + j + 1 for j, c in enumerate(self._astral)]

    def to_utf16(self, offset: int) -> int:
        if not self._astral:
            return offset
        return offset + bisect_right(self._astral, offset - 1)

    def from_utf16(self, unit: int) -> int:
        """A unit pointing between the two halves of a surrogate pair maps to the character."""
        if not self._lows:
            return unit
        return unit - bisect_right(self._lows, unit)


def to_utf16(text: str, offset: int) -> int:
    """UTF-16 offset (Qt's) of the code-point ``offset`` in ``text``."""
    return Utf16Map(text[:offset]).to_utf16(offset)


def from_utf16(text: str, unit: int) -> int:
    """Code-point offset of the UTF-16 ``unit`` offset in ``text`` (a unit inside a surrogate pair
    maps to the character's start)."""
    return Utf16Map(text).from_utf16(unit)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# A JSON \u escape of a surrogate: the only way parsed JSON gets one into a Python string.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def scrub_surrogates(value: object) -> object:
    """``value`` (parsed JSON) with lone surrogates in every string replaced by U+FFFD.

    JSON may escape half a surrogate pair (``"\\ud800"``); Python keeps it as a lone surrogate,
    which cannot be encoded as UTF-8 and would crash printing, SQLite and Qt far from the input.
    """
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [scrub_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {scrub_surrogates(k): scrub_surrogates(v) for k, v in value.items()}
    return value


def may_hold_surrogates(json_text: str) -> bool:
    """True when ``json_text`` has an escaped surrogate (pairs too: cheap, rarely true)."""
    return _SURROGATE_ESCAPE.search(json_text) is not None
