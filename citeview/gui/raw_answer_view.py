"""The raw answer pane: the exact answer, markers made visible and never wrapped in the middle,
coloured by the marker lexer, diagnostics underlined (View > Raw Answer, side by side)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any  # Pygments (untyped): its lexer and token types

from PySide6.QtCore import (
    QMimeData,
    QPoint,
    QTextBoundaryFinder,
    QTimer,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QResizeEvent,
    QTextCharFormat,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import (
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from citeview.core.diagnostics import Diagnostic
from citeview.core.markers import START, STOP
from citeview.core.text import Utf16Map
from citeview.gui.offsets import DocumentText
from citeview.gui.palette import ColorRoles, color_roles, mix


class RawAnswerView(QPlainTextEdit):
    """The exact answer with markers made visible (``⟦cite|id|L1⟧``), coloured by the Pygments
    marker lexer and with diagnostics underlined. Only the lines around the visible ones are
    coloured (after a scroll, from the event loop), so a huge answer costs nothing until it is
    looked at.

    A marker is never wrapped in the middle: a WORD JOINER (zero width) stands in the document
    at each line-break opportunity inside a START..STOP marker, and a ZERO WIDTH SPACE before
    one that follows a word, so the marker moves to the next line as a whole (unless it is
    longer than a line; see :func:`keep_markers_whole`). Every offset this view takes or gives is
    a code point of the answer; copying gives the answer's exact text, markers and all."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.setFont(font)
        self._answer = ""
        self._shown = ""  # the answer with visible markers (one for one): what is lexed
        self._doc: DocumentText | None = None  # the document's text: shown plus joiners
        self._joined = JoinedText([])
        self._diagnostics: list[tuple[int, int, str]] = []  # code points, severity
        self._active: list[tuple[int, int, str]] = []  # (start, end, role) code points
        self._lexer: Any = None
        # Colouring after a scroll or resize waits for the event loop: never inside a scroll
        # cascade (a synchronised pane scrolls this one), and once for a burst of scrolls.
        self._recolour_timer = QTimer(self)
        self._recolour_timer.setSingleShot(True)
        self._recolour_timer.setInterval(0)
        self._recolour_timer.timeout.connect(self._recolour)
        self.verticalScrollBar().valueChanged.connect(self._recolour_timer.start)
        self.dark = False

    def set_answer(self, answer: str, diagnostics: Sequence[Diagnostic]) -> None:
        from citeview.lexers import CitationMarkerLexer, visible_markers

        self._answer = answer
        self._shown, _offsets = visible_markers(answer)
        text, self._joined = keep_markers_whole(self._shown, answer)
        self._doc = DocumentText(text)
        self._lexer = CitationMarkerLexer()
        self._diagnostics = [(d.start, max(d.end, d.start + 1), d.severity.value)
                             for d in diagnostics]
        self._active = []
        self.setPlainText(self._doc.qt_text)
        self._recolour()

    def shown_text(self) -> str:
        """The answer as shown: markers visible, without the joiners that keep them whole."""
        return self._shown

    def answer(self) -> str:
        return self._answer

    def position_of(self, offset: int, end: bool = False) -> int:
        """Qt document position of the answer's code point ``offset`` (``end``: as the end
        of a span, before the joiner that may stand there)."""
        if self._doc is None:
            return 0
        return self._doc.to_qt(self._joined.to_display(offset, end))

    def offset_of(self, position: int) -> int:
        """Code point of the answer at Qt document ``position``."""
        if self._doc is None:
            return 0
        return self._joined.from_display(self._doc.from_qt(position))

    def top_offset(self) -> int:
        """The first code point on the first line the viewport shows (even partly)."""
        return self.offset_of(self.cursorForPosition(QPoint(0, 0)).position())

    def scroll_to_top(self, offset: int) -> None:
        """Scroll so that the line holding code point ``offset`` is the first one shown."""
        c = QTextCursor(self.document())
        c.setPosition(self.position_of(offset))
        block = c.block()
        self.blockBoundingRect(block)  # lays the block out: its lines are known
        layout = block.layout()
        in_block = layout.lineForTextPosition(c.positionInBlock()).lineNumber() \
            if layout is not None else 0
        bar = self.verticalScrollBar()
        # The bar counts lines, wrapped ones too (Qt's plain-text layout).
        bar.setValue(block.firstLineNumber() + max(in_block, 0))
        # The lines of blocks not laid out yet were guessed: near the viewport the cursor's
        # place is exact, so a few steps settle it.
        line = max(self.fontMetrics().lineSpacing(), 1)
        for _ in range(4):
            step = round(self.cursorRect(c).top() / line)
            if step == 0:
                break
            before = bar.value()
            bar.setValue(before + step)
            if bar.value() == before:
                break

    def createMimeDataFromSelection(self) -> QMimeData:  # noqa: N802
        """What is copied is the answer's own text: the marker characters, no joiner."""
        data = QMimeData()
        c = self.textCursor()
        if self._doc is not None:
            data.setText(self._answer[self.offset_of(c.selectionStart()):
                                      self.offset_of(c.selectionEnd())])
        return data

    def set_active(self, spans: Sequence[tuple[int, int, str]], scroll: bool = True) -> None:
        """Highlight ``(start, end, role)`` spans of the answer (role "claim" or "marker")."""
        self._active = list(spans)
        if scroll and spans and self._doc is not None:
            c = QTextCursor(self.document())
            c.setPosition(self.position_of(spans[-1][0]))
            self.setTextCursor(c)
            self.centerCursor()
        self._recolour()

    def active_spans(self) -> list[tuple[int, int, str]]:
        """The highlighted spans, read back from the selections drawn (code points)."""
        out = []
        for sel in self.extraSelections():
            role = sel.format.property(QTextCharFormat.Property.UserProperty)
            if role in ("claim", "marker"):
                out.append((self.offset_of(sel.cursor.selectionStart()),
                            self.offset_of(sel.cursor.selectionEnd()), str(role)))
        return out

    def resizeEvent(self, ev: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(ev)
        self._recolour_timer.start()

    def _coloured_range(self) -> tuple[int, int]:
        """Qt positions of the lines shown, and a screenful above and below them: a small
        scroll shows coloured lines before the next colouring."""
        block = self.firstVisibleBlock()
        height = self.viewport().height()
        offset = self.contentOffset()
        first = block
        while first.previous().isValid():
            prev = first.previous()
            if self.blockBoundingGeometry(prev).translated(offset).bottom() < -height:
                break
            first = prev
        end = block.position()
        while block.isValid():
            geo = self.blockBoundingGeometry(block).translated(offset)
            if geo.top() > 2 * height:
                break
            end = block.position() + block.length()
            block = block.next()
        return first.position(), end

    def _recolour(self) -> None:
        self._recolour_timer.stop()
        if self._doc is None:
            self.setExtraSelections([])
            return
        from pygments.token import Token

        roles = color_roles(self.palette())
        start, end = self._coloured_range()
        selections: list[QTextEdit.ExtraSelection] = []
        cp_start, cp_end = self.offset_of(start), self.offset_of(end)
        for s, e, role in self._active:
            if e > cp_start and s < cp_end:
                if role == "claim":
                    mark = _bg(roles.highlight)
                else:  # the marker: blue, as its chip is in the rendered answer
                    mark = _bg(mix(self.palette().base().color(), roles.link,
                                      0.35 if roles.dark else 0.22))
                    mark.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
                    mark.setUnderlineColor(roles.link)
                mark.setProperty(QTextCharFormat.Property.UserProperty, role)
                selections.append(self._sel(s, e, mark))
        chunk = self._shown[cp_start:cp_end]
        styles = _token_formats(roles)
        late: list[QTextEdit.ExtraSelection] = []
        for off, ttype, value in self._lexer.get_tokens_unprocessed(chunk):
            fmt = None
            while ttype is not Token and fmt is None:
                fmt = styles.get(ttype)
                ttype = ttype.parent
            if fmt is not None and value.strip():
                sel = self._sel(cp_start + off, cp_start + off + len(value), fmt)
                # Qt draws no colour after a selection over a fallback-font glyph (the
                # brackets) in the same line, so those go last.
                (late if not value.isascii() else selections).append(sel)
        for s, e, severity in self._diagnostics:
            if e > cp_start and s < cp_end:
                fmt = QTextCharFormat()
                if severity == "info":
                    fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
                    fmt.setUnderlineColor(roles.muted)
                else:
                    fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
                    fmt.setUnderlineColor(roles.problem if severity == "error" else roles.warning)
                selections.append(self._sel(s, e, fmt))
        self.setExtraSelections(selections + late)

    def _sel(self, s: int, e: int, fmt: QTextCharFormat) -> QTextEdit.ExtraSelection:
        sel = QTextEdit.ExtraSelection()
        c = QTextCursor(self.document())
        c.setPosition(self.position_of(s))
        c.setPosition(self.position_of(e, end=True), QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = c
        sel.format = fmt
        return sel

    def find_text(self, text: str, backward: bool = False) -> bool:
        """Find in the text as shown (a marker's joiners never stop a match), ignoring case,
        wrapping around; the match is selected."""
        if not text or self._doc is None:
            return False
        pattern = re.compile(re.escape(text), re.IGNORECASE)
        c = self.textCursor()
        here = self.offset_of(c.selectionStart() if backward else c.selectionEnd())
        if backward:
            found = [m for m in pattern.finditer(self._shown) if m.end() <= here] or \
                list(pattern.finditer(self._shown))
            match = found[-1] if found else None
        else:
            match = pattern.search(self._shown, here) or pattern.search(self._shown)
        if match is None:
            return False
        c.setPosition(self.position_of(match.start()))
        c.setPosition(self.position_of(match.end(), end=True), QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(c)
        return True


WORD_JOINER = "\u2060"  # no line break on either side
ZERO_WIDTH_SPACE = "\u200b"  # a line may break here
# A marker as the line breaker sees it: START to STOP on one line (a longer one is no marker).
_MARKER_RE = re.compile(f"{START}[^{START}{STOP}\n]{{0,400}}{STOP}")
_NO_BREAK_SPACES = str.maketrans({" ": "\u00a0", "\t": "\u00a0"})


class JoinedText:
    """Offsets of a text <-> offsets of the text with zero-width characters inserted, one
    before each offset of ``at`` (sorted)."""

    __slots__ = ("_shifted", "at")

    def __init__(self, at: list[int]) -> None:
        self.at = at
        self._shifted = [j + k for k, j in enumerate(at)]  # where each inserted one stands

    def to_display(self, offset: int, end: bool = False) -> int:
        """The joined offset of ``offset``: after what was inserted there (a span's start),
        or before it (``end``)."""
        return offset + (bisect_left(self.at, offset) if end else bisect_right(self.at, offset))

    def from_display(self, offset: int) -> int:
        """The text offset of a joined offset (an inserted character belongs to the one after
        it)."""
        return offset - bisect_left(self._shifted, offset)


def keep_markers_whole(shown: str, answer: str) -> tuple[str, JoinedText]:
    """``shown`` (the answer with visible markers, one for one) as the raw view's document
    holds it, so that no START..STOP marker of ``answer`` is wrapped in the middle: a WORD
    JOINER at each line-break opportunity Qt's line breaker finds inside a marker (after ``|``
    and ``-``), its spaces as no-break spaces (Qt breaks after any space, whatever follows),
    and a ZERO WIDTH SPACE before a marker that follows a word (a word and a marker filling
    more than a line would be broken anywhere, the marker too)."""
    at: list[int] = []
    out: list[str] = []
    last = 0
    known: dict[str, tuple[list[int], str]] = {}  # markers repeat: each text is done once
    for m in _MARKER_RE.finditer(answer):
        s, e = m.span()
        piece = shown[s:e]
        done = known.get(piece)
        if done is None:
            spaced = piece.translate(_NO_BREAK_SPACES) if " " in piece or "\t" in piece \
                else piece
            inside = _line_breaks_inside(spaced)
            bounds = [0, *inside, len(spaced)]
            done = known[piece] = (inside, WORD_JOINER.join(
                spaced[i:j] for i, j in zip(bounds, bounds[1:], strict=False)))
        inside, joined = done
        out.append(shown[last:s])
        if s > 0 and not shown[s - 1].isspace():
            at.append(s)
            out.append(ZERO_WIDTH_SPACE)
        at.extend([s + k for k in inside])
        out.append(joined)
        last = e
    if not out:
        return shown, JoinedText([])
    out.append(shown[last:])
    return "".join(out), JoinedText(at)


def _line_breaks_inside(text: str) -> list[int]:
    """Code-point offsets strictly inside ``text`` where a line may break."""
    finder = QTextBoundaryFinder(QTextBoundaryFinder.BoundaryType.Line, text)
    u16 = Utf16Map(text)
    units = len(text.encode("utf-16-le")) // 2
    out: list[int] = []
    p = finder.toNextBoundary()
    while 0 < p < units:
        out.append(u16.from_utf16(p))
        p = finder.toNextBoundary()
    return out


def _bg(colour: QColor) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setBackground(QBrush(colour))
    return fmt


def _token_formats(roles: ColorRoles) -> dict[Any, QTextCharFormat]:
    from pygments.token import Comment, Error, Keyword, Name, Number, Punctuation, String

    def fg(colour: QColor, bold: bool = False) -> QTextCharFormat:
        fmt = QTextCharFormat()
        fmt.setForeground(QBrush(colour))
        if bold:
            fmt.setFontWeight(QFont.Weight.Bold)
        return fmt

    err = fg(roles.problem, True)
    err.setBackground(QBrush(roles.problem_bg))
    return {
        Punctuation.Marker: fg(roles.muted, True),
        Keyword: fg(roles.annotated),
        Name: fg(roles.link, True),
        Number: fg(roles.ok, True),
        Error: err,
        String.Escape: fg(roles.warning, True),
        Comment.Special: fg(roles.warning),
    }


__all__ = ["WORD_JOINER", "ZERO_WIDTH_SPACE", "JoinedText", "RawAnswerView",
           "keep_markers_whole"]
