"""The one place where Python code-point offsets become Qt document positions and back.

Qt counts UTF-16 units, and ``QTextDocument.setPlainText`` turns ``\\r``, ``\\r\\n``, U+2029 and
U+FDD0/U+FDD1 into block separators that count one position each, and drops a leading U+FEFF.
:class:`DocumentText` builds the text to give Qt (line breaks as ``\\n``, the other separators
and a leading byte-order mark replaced one-for-one so that a line of the material stays one
block) and converts offsets both ways, through :class:`citeview.core.text.Utf16Map`.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate

from citeview.core.text import Utf16Map

# Characters Qt's plain-text import treats as block separators although the material format does
# not: replaced by a same-length stand-in so that offsets only change at CRLF pairs.
_QT_SEPARATORS = str.maketrans({"\u2029": "\u2028", "\ufdd0": "\ufffd", "\ufdd1": "\ufffd"})
_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")


class DocumentText:
    """``text`` as a Qt document sees it, with code point <-> Qt position conversion.

    ``qt_text`` is what to pass to ``setPlainText``: one block per line of ``text`` (breaks
    ``\\n``, ``\\r\\n``, ``\\r``). A code-point offset of ``text`` maps to the Qt position of
    the same character; an offset inside a CRLF pair maps to the block separator.
    """

    __slots__ = ("_crlf_doc", "_crlf_src", "_line_starts", "_units", "length", "qt_text", "text")

    def __init__(self, text: str, line_starts: Sequence[int] | None = None) -> None:
        """``line_starts``: where the lines of ``text`` start, when the caller knows (a parsed
        source whose every line is labelled: its lines' starts), not worked out again."""
        self.text = text
        self.length = len(text)
        doc = text
        if not doc.isascii() and ("\u2029" in doc or "\ufdd0" in doc or "\ufdd1" in doc):
            doc = doc.translate(_QT_SEPARATORS)
        crlf: list[int] = []
        if "\r" in doc:
            crlf = [m.start() for m in re.finditer("\r\n", doc)]
            doc = doc.replace("\r\n", "\n").replace("\r", "\n")
        # Source offsets of the CR of each CRLF pair, and the doc offsets of their separators.
        self._crlf_src = crlf
        self._crlf_doc = [r - k for k, r in enumerate(crlf)]
        if doc.startswith("\ufeff"):
            # setPlainText drops a leading byte-order mark, which would shift every position
            # by one: a zero-width word joiner (one unit too) keeps them.
            doc = "\u2060" + doc[1:]
        self.qt_text = doc
        # Utf16Map scans for astral characters with a regex (0.5 s on 12 MB); the codec tells
        # in milliseconds whether there is any.
        self._units: Utf16Map | None = None
        self._line_starts: Sequence[int] | None = line_starts
        if not doc.isascii() and len(doc.encode("utf-16-le")) != 2 * len(doc):
            self._units = Utf16Map(doc)

    def to_qt(self, offset: int) -> int:
        """Qt document position of the code-point ``offset`` in ``text`` (clamped to the text)."""
        offset = min(max(offset, 0), self.length)
        if self._crlf_src:
            offset -= bisect_left(self._crlf_src, offset)
        return offset if self._units is None else self._units.to_utf16(offset)

    def from_qt(self, position: int) -> int:
        """Code-point offset in ``text`` of the Qt document ``position``."""
        doc = max(position, 0)
        if self._units is not None:
            doc = self._units.from_utf16(doc)
        if self._crlf_doc:
            doc += bisect_left(self._crlf_doc, doc)
        return min(doc, self.length)

    def block_of(self, offset: int) -> int:
        """Number of the Qt block (line) holding the code-point ``offset`` of ``text``, without
        asking Qt: thousands of look-ups (tints) stay fast."""
        doc = min(max(offset, 0), self.length)
        if self._crlf_src:
            doc -= bisect_left(self._crlf_src, doc)
        return max(bisect_right(self.line_starts, doc) - 1, 0)

    @property
    def line_starts(self) -> Sequence[int]:
        """Offsets in ``qt_text`` where its lines start."""
        if self._line_starts is None:
            # C loops only: a regex scan takes ~0.5 s on 12 MB.
            lengths = map(len, self.qt_text.split("\n"))
            self._line_starts = list(accumulate(map((1).__add__, lengths), initial=0))[:-1]
        return self._line_starts

    @property
    def longest_line(self) -> int:
        """Length of the longest line, in code points."""
        starts = self.line_starts
        ends = [*starts[1:], len(self.qt_text) + 1]
        return max(map(int.__sub__, ends, starts)) - 1

    def span_to_qt(self, span: tuple[int, int]) -> tuple[int, int]:
        return self.to_qt(span[0]), self.to_qt(span[1])

    def span_from_qt(self, span: tuple[int, int]) -> tuple[int, int]:
        return self.from_qt(span[0]), self.from_qt(span[1])


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 units (what Qt's string lengths count)."""
    return len(text) + len(_ASTRAL_RE.findall(text)) if not text.isascii() else len(text)


class LineUnits:
    """Code-point columns of one line to UTF-16 columns (for per-block format ranges)."""

    __slots__ = ("_map",)

    def __init__(self, line: str) -> None:
        self._map: Utf16Map | None = None if line.isascii() else Utf16Map(line)

    def __call__(self, column: int) -> int:
        return column if self._map is None else self._map.to_utf16(column)

