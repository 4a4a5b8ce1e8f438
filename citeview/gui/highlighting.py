"""Pygments colouring for the read-only panes: choosing a lexer, and colouring only what is seen.

``QSyntaxHighlighter`` re-highlights every block of a document when it is attached and when the
text is set (0.8 s of Python callbacks for 200,000 lines, measured), before it can colour what is
on screen. :class:`LazyHighlighter` does what it does inside, per block (format ranges on the
block's layout, then ``markContentsDirty``), but only for the blocks on screen, lexing the
document in chunks of lines on demand. Read-only text only: edits are not tracked.
"""

from __future__ import annotations

import contextlib
import json
import re
from bisect import bisect_right
from functools import lru_cache
from urllib.parse import urlsplit

from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class, get_lexer_for_filename
from pygments.lexers.data import JsonLexer
from pygments.lexers.markup import MarkdownLexer
from pygments.lexers.special import TextLexer
from pygments.styles import get_style_by_name
from pygments.token import Token
from pygments.util import ClassNotFound
from PySide6.QtCore import QObject, QPoint, QTimer
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextLayout
from PySide6.QtWidgets import QPlainTextEdit

from citeview.gui.offsets import LineUnits

# A content guess must score at least this in the lexer's own ``analyse_text`` (0..1): prose
# scores 0.01 and an HTML-looking sentence 0.45, real Python or HTML 0.5-1.0.
GUESS_THRESHOLD = 0.5
_SAMPLE = 8000
# The text of a web page is extracted prose, whatever the URL's extension says.
_WEB_PAGE_EXTENSIONS = {"html", "htm", "xhtml", "php", "asp", "aspx", "jsp", "cfm", "shtml"}
_FILENAME_RE = re.compile(r"^[\w.@+-]*\.[A-Za-z0-9]{1,10}$")
# Lexers with an ``analyse_text`` of their own (names as Pygments spells them: an unknown name
# makes Pygments scan every installed package's entry points).
_CONTENT_LEXERS = ("Python", "Bash", "HTML", "XML", "Diff", "C", "C++", "PHP", "Perl", "Ruby",
                   "TeX", "INI", "Makefile", "SQL", "reStructuredText")
_MARKDOWN_FEATURES = (
    re.compile(r"^#{1,6} \S", re.M),  # heading
    re.compile(r"^\s*(```|~~~)", re.M),  # code fence
    re.compile(r"^\s*(?:[-*+]|\d+\.) \S", re.M),  # list item
    re.compile(r"^\s*\|.*\|\s*$\n^\s*\|?\s*:?-{3,}", re.M),  # table
    re.compile(r"\[[^\]\n]+\]\([^)\s]+\)"),  # link
    re.compile(r"(\*\*|__)\S.*?\S\1"),  # strong emphasis
    re.compile(r"`[^`\n]+`"),  # inline code
)


def _filename_candidates(title: str | None, url: str | None) -> list[str]:
    names: list[str] = []
    if url:
        try:
            path = urlsplit(url.strip()).path
        except ValueError:
            path = ""
        name = path.rstrip("/").rsplit("/", 1)[-1]
        if "." in name and name.rsplit(".", 1)[1].lower() not in _WEB_PAGE_EXTENSIONS:
            names.append(name)
    if title:
        t = title.strip().rsplit("/", 1)[-1]
        if _FILENAME_RE.match(t) and t.rsplit(".", 1)[1].lower() not in _WEB_PAGE_EXTENSIONS:
            names.append(t)
    return names


def _looks_like_json(sample: str, text: str) -> bool:
    s = sample.lstrip()
    if not s or s[0] not in "{[":
        return False
    if len(text) <= 200_000:
        try:
            json.loads(text)
        except ValueError:
            return False
        return True
    # Too big to parse while opening: a JSON-looking start is enough to colour it.
    return re.match(r'[\[{]\s*(?:"|\{|\[|\]|\}|-?\d)', s) is not None


def markdown_score(sample: str) -> int:
    """How many distinct Markdown constructs ``sample`` uses."""
    return sum(1 for rx in _MARKDOWN_FEATURES if rx.search(sample))


def guess_lexer(title: str | None, url: str | None, text: str) -> Lexer | None:
    """The lexer for a source, or None for plain text.

    The title's or URL's file name decides first (``notes.md``, ``.../config.json``); otherwise
    the content: JSON that parses, Markdown with two or more distinct constructs, or Pygments'
    lexers' own ``analyse_text`` when its confidence reaches :data:`GUESS_THRESHOLD`.
    """
    sample = text[:_SAMPLE]
    for name in _filename_candidates(title, url):
        try:
            lexer = get_lexer_for_filename(name, sample)
        except ClassNotFound:
            continue
        return None if isinstance(lexer, TextLexer) else lexer
    if not sample.strip():
        return None
    if _looks_like_json(sample, text):
        return JsonLexer()
    if markdown_score(sample) >= 2:
        return MarkdownLexer()
    best: tuple[float, type[Lexer]] | None = None
    for cls in _content_candidates():
        score = float(cls.analyse_text(sample))
        if score >= GUESS_THRESHOLD and (best is None or score > best[0]):
            best = (score, cls)
    return best[1]() if best is not None else None


@lru_cache(maxsize=1)
def _content_candidates() -> tuple[type[Lexer], ...]:
    """Lexers whose own ``analyse_text`` recognises content reliably. Pygments' ``guess_lexer``
    asks all ~600 lexers and imports each module first (1 s, measured); these are the ones that
    recognise material a model is shown."""
    out: list[type[Lexer]] = []
    for name in _CONTENT_LEXERS:
        cls = find_lexer_class(name)
        if cls is not None:
            out.append(cls)
    return tuple(out)


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
