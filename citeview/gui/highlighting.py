"""Pygments colouring for the read-only panes: choosing a lexer, and colouring only what is seen.

``QSyntaxHighlighter`` re-highlights every block of a document when it is attached and when the
text is set (0.8 s of Python callbacks for 200,000 lines, measured), before it can colour what is
on screen. :class:`LazyHighlighter` does what it does inside, per block (format ranges on the
block's layout, then ``markContentsDirty``), but only for the blocks on screen, lexing the
document in chunks of lines on demand. Read-only text only: edits are not tracked.
"""

from __future__ import annotations

import contextlib
from bisect import bisect_right

from pygments.lexer import Lexer
from pygments.styles import get_style_by_name
from pygments.token import Token
from pygments.util import ClassNotFound
from PySide6.QtCore import QObject, QPoint, QTimer
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextLayout
from PySide6.QtWidgets import QPlainTextEdit

from citeview.gui.offsets import LineUnits


class TokenFormats:
    """Character formats of a Pygments style, per token type (foreground and weight/slant
    only: backgrounds belong to the highlight and tint roles)."""

    def __init__(self, style_name: str) -> None:
        try:
            self._style = get_style_by_name(style_name)
        except ClassNotFound:
            self._style = get_style_by_name("default")
        self._cache: dict[tuple[str, ...], QTextCharFormat | None] = {}

    def format(self, ttype: tuple[str, ...]) -> QTextCharFormat | None:
        if ttype in self._cache:
            return self._cache[ttype]
        fmt: QTextCharFormat | None = None
        if ttype is not Token.Text and ttype is not Token.Text.Whitespace:
            st = self._style.style_for_token(ttype)
            if st["color"] or st["bold"] or st["italic"] or st["underline"]:
                fmt = QTextCharFormat()
                if st["color"]:
                    fmt.setForeground(QColor("#" + st["color"]))
                if st["bold"]:
                    fmt.setFontWeight(QFont.Weight.Bold)
                if st["italic"]:
                    fmt.setFontItalic(True)
                if st["underline"]:
                    fmt.setFontUnderline(True)
        self._cache[ttype] = fmt
        return fmt


def visible_block_range(editor: QPlainTextEdit) -> tuple[int, int]:
    """First and last block numbers on screen (public API only: works for any editor)."""
    vp = editor.viewport()
    first = editor.cursorForPosition(QPoint(0, 0)).blockNumber()
    last = editor.cursorForPosition(QPoint(0, max(vp.height() - 1, 0))).blockNumber()
    return first, max(first, last)


class LazyHighlighter(QObject):
    """Colours the on-screen blocks of a read-only ``QPlainTextEdit`` with a Pygments lexer.

    Lexes chunks of :attr:`CHUNK` lines when first seen, each with :attr:`CONTEXT` lines before it
    so that the lexer's state has settled (a document of up to :attr:`WHOLE` lines is lexed in one
    go and is exact). Colouring runs from the event loop after a scroll or resize, never before
    the first paint; :meth:`colour_visible` does it now.
    """

    CHUNK = 400
    CONTEXT = 200
    WHOLE = 5000

    def __init__(self, editor: QPlainTextEdit, lexer: Lexer, formats: TokenFormats) -> None:
        super().__init__(editor)
        self._editor = editor
        self._doc = editor.document()
        self._lexer = lexer
        self._formats = formats
        self._pending: dict[int, list[QTextLayout.FormatRange]] = {}
        self._lexed: set[int] = set()
        self._applied: set[int] = set()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.colour_visible)
        self._attached = False
        self.attach()

    @property
    def lexer_name(self) -> str:
        return str(self._lexer.name)

    def attach(self) -> None:
        """Follow the editor's scrolling again (its document is ours again)."""
        if not self._attached:
            self._attached = True
            self._editor.updateRequest.connect(self._schedule)
        self._timer.start()

    def detach(self) -> None:
        """Stop following the editor (it shows another document now)."""
        self._timer.stop()
        if self._attached:
            self._attached = False
            with contextlib.suppress(RuntimeError, TypeError):
                self._editor.updateRequest.disconnect(self._schedule)

    def restyle(self, formats: TokenFormats) -> None:
        """Recolour with another style (the palette switched between light and dark)."""
        self._formats = formats
        for number in self._applied:
            block = self._doc.findBlockByNumber(number)
            if block.isValid() and block.layout().formats():
                block.layout().setFormats([])
                self._doc.markContentsDirty(block.position(), block.length())
        self._pending.clear()
        self._lexed.clear()
        self._applied.clear()
        self._schedule()

    def _schedule(self, *_: object) -> None:
        if self._editor.document() is self._doc and not self._timer.isActive():
            self._timer.start()

    def colour_visible(self) -> None:
        if self._editor.document() is not self._doc:
            return
        first, last = visible_block_range(self._editor)
        self.colour_blocks(first, last)

    def colour_blocks(self, first: int, last: int) -> None:
        """Colour blocks ``first..last`` (block numbers, inclusive)."""
        n = self._doc.blockCount()
        last = min(last, n - 1)
        if first > last:
            return
        chunk = n if n <= self.WHOLE else self.CHUNK
        for c in range(first // chunk, last // chunk + 1):
            if c not in self._lexed:
                self._lexed.add(c)
                self._lex(c * chunk, min((c + 1) * chunk, n), 0 if chunk == n else self.CONTEXT)
        block = self._doc.findBlockByNumber(first)
        while block.isValid() and block.blockNumber() <= last:
            number = block.blockNumber()
            if number not in self._applied:
                self._applied.add(number)
                ranges = self._pending.pop(number, None)
                if ranges:
                    block.layout().setFormats(ranges)
                    self._doc.markContentsDirty(block.position(), block.length())
            block = block.next()

    def _lex(self, start: int, end: int, context: int) -> None:
        begin = max(0, start - context)
        lines: list[str] = []
        block = self._doc.findBlockByNumber(begin)
        while block.isValid() and block.blockNumber() < end:
            lines.append(block.text())
            block = block.next()
        starts: list[int] = []
        pos = 0
        for line in lines:
            starts.append(pos)
            pos += len(line) + 1
        text = "\n".join(lines)
        skip = start - begin
        per_line: dict[int, list[tuple[int, int, QTextCharFormat]]] = {}
        for index, ttype, value in self._lexer.get_tokens_unprocessed(text):
            fmt = self._formats.format(ttype)
            if fmt is None or not value:
                continue
            tok_end = index + len(value)
            i = bisect_right(starts, index) - 1
            while i < len(lines) and starts[i] < tok_end:
                if i >= skip:
                    a = max(index, starts[i]) - starts[i]
                    b = min(tok_end, starts[i] + len(lines[i])) - starts[i]
                    if b > a:
                        per_line.setdefault(i, []).append((a, b, fmt))
                i += 1
        for i, spans in per_line.items():
            units = LineUnits(lines[i])
            ranges: list[QTextLayout.FormatRange] = []
            for a, b, fmt in spans:
                r = QTextLayout.FormatRange()
                r.start = units(a)
                r.length = units(b) - r.start
                r.format = fmt
                ranges.append(r)
            self._pending[begin + i] = ranges
