"""The answer pane: rendered Markdown with clickable citation chips and the active claim.

The HTML comes from :mod:`citeview.gui.answer_render` (escaped, chips are the only anchors).
The claim of the active citation is found in the rendered document itself: from the chip
backwards, matching the claim's visible characters (Markdown syntax, link targets and entity
spellings that rendering removed are skipped), never past the previous claim's chip.
Positions in the document are UTF-16 units; the one conversion is
:class:`citeview.core.text.Utf16Map`.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any  # Pygments (untyped): its lexer and token types

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QMimeData,
    QPoint,
    QPointF,
    Qt,
    QTextBoundaryFinder,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QKeyEvent,
    QMouseEvent,
    QResizeEvent,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import (
    QApplication,
    QPlainTextEdit,
    QTextBrowser,
    QTextEdit,
    QToolTip,
    QWidget,
)

from citeview.core.diagnostics import Diagnostic
from citeview.core.markers import START, STOP
from citeview.core.text import Utf16Map
from citeview.gui.answer_render import (
    CHIP_KEY,
    CHIP_SCHEME,
    FLAG_CLASS,
    TAG_RE,
    Chip,
    chip_class,
    chip_colours,
    problem_colour,
    stylesheet,
)
from citeview.gui.offsets import DocumentText
from citeview.gui.palette import ColorRoles, color_roles, mix


class AnswerView(QTextBrowser):
    """Read-only answer pane. Emits :attr:`citationActivated` (0-based index) when a chip is
    clicked or activated with the keyboard (Tab to it, Enter), and :attr:`chipMenuRequested`
    on a right click on a chip."""

    citationActivated = Signal(int)
    chipMenuRequested = Signal(int, QPoint)
    chipStep = Signal(int)  # Left/Right: the previous (-1) or next (+1) chip

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setSearchPaths([])
        self.setUndoRedoEnabled(False)
        self.document().setDocumentMargin(12)
        self._dark = False
        self._claims: list[tuple[str, object]] = []
        self._chips: list[tuple[int, int]] | None = None  # Qt positions of each chip
        self._painter: ChipPainter | None = None  # the chips' look (see ChipPainter)
        self._pressed: QPoint | None = None  # where a left button went down
        self._active: int | None = None
        self._claim_range: tuple[int, int] | None = None
        self.tooltip_for: Callable[[int], Sequence[str]] | None = None

    # -- content ---------------------------------------------------------------------------------

    @property
    def dark(self) -> bool:
        return self._dark

    def set_dark(self, dark: bool) -> None:
        self._dark = dark
        self.document().setDefaultStyleSheet(stylesheet(dark))
        if self._painter is not None and self._painter.dark != dark:
            self._repaint_chips()

    def _repaint_chips(self) -> None:
        """Every chip's look again (another palette), laid out again."""
        assert self._painter is not None
        doc = self.document()
        self._painter.dark = self._dark
        self._painter.paint_all(doc)
        doc.markContentsDirty(0, doc.characterCount())

    def set_content(self, body_html: str, claims: Sequence[tuple[str, object]]) -> None:
        """Show ``body_html``; ``claims[i]`` is citation i's claim text and a key shared by
        citations that share one claim (adjacent markers)."""
        self.set_prepared(prepare_document(body_html, self._dark, self.font()), claims)

    def set_prepared(self, prepared: PreparedDocument,
                     claims: Sequence[tuple[str, object]]) -> None:
        """Show a document built by :func:`prepare_document` (possibly in another thread)."""
        doc = prepared.document
        doc.setParent(self)  # owned by the view: replacing it deletes the previous one
        if doc.defaultFont() != self.font():  # (setting it lays out every block again)
            doc.setDefaultFont(self.font())
        self.setDocument(doc)
        self._claims = list(claims)
        self._chips = prepared.chips  # shared with the painter: kept up to date in place
        self._chips += [(-1, -1)] * (len(self._claims) - len(self._chips))
        self._painter = prepared.painter
        if self._painter.dark != self._dark:
            self._repaint_chips()
        self._active = None
        self._claim_range = None
        self.setExtraSelections([])

    def clear_content(self, message: str = "") -> None:
        self.set_content(f"<p><i>{html.escape(message)}</i></p>" if message else "", [])

    def loadResource(self, type: int, name: QUrl | str) -> object:  # noqa: A002, N802
        """Nothing is ever loaded: model text must not make the viewer fetch anything."""
        return None

    # -- chips -----------------------------------------------------------------------------------

    def _chip_index(self) -> list[tuple[int, int]]:
        """Qt (start, end) of every chip, built once per content in one pass over the document."""
        if self._chips is None:
            self._chips = [(-1, -1)] * len(self._claims)
        return self._chips

    def chip_count(self) -> int:
        return len(self._chip_index())

    def chip_range(self, index: int) -> tuple[int, int] | None:
        """Qt positions of chip ``index``; None when it is not in the rendered answer."""
        chips = self._chip_index()
        if not 0 <= index < len(chips) or chips[index][0] < 0:
            return None
        return chips[index]

    def chip_text(self, index: int) -> str:
        """The chip's label as the document shows it (read back, for snapshots)."""
        r = self.chip_range(index)
        return "" if r is None else self._chip_label(r).replace("\u00a0", " ").strip()

    def chip_format(self, index: int, offset: int = 0) -> QTextCharFormat | None:
        """The look chip ``index`` is painted with at its ``offset``-th unit (read back from
        the layout, as it is drawn)."""
        r = self.chip_range(index)
        if r is None:
            return None
        pos = r[0] + offset
        block = self.document().findBlock(pos)
        at = pos - block.position()
        for fr in block.layout().formats():
            if fr.start <= at < fr.start + fr.length:
                return QTextCharFormat(fr.format)  # a copy: the range is temporary
        return None

    def chip_center(self, index: int) -> QPoint | None:
        """Viewport position of the middle of chip ``index`` (where a user would click)."""
        r = self.chip_range(index)
        if r is None:
            return None
        c = QTextCursor(self.document())
        c.setPosition(r[0])
        left = self.cursorRect(c)
        c.setPosition(r[1])
        right = self.cursorRect(c)
        if right.top() != left.top():  # wrapped: click the first half
            c.setPosition(r[0] + 1)
            right = self.cursorRect(c)
        return QPoint((left.left() + right.left()) // 2, left.center().y())

    def update_chips(self, chips: Sequence[Chip]) -> None:
        """Relabel and restyle chips in place (lint or a verdict changed their state) without
        re-rendering. Edited from the last to the first, so earlier chip positions stay valid;
        the positions of the chips after an edited one move by the change in its length (no
        new scan). The painter sets the looks of the blocks holding them before the edit ends,
        so each is laid out once."""
        known = self._chip_index()
        painter = self._painter
        c = QTextCursor(self.document())
        c.beginEditBlock()
        edits: list[tuple[int, int]] = []  # (old end, change in length), last first
        same: list[int] = []  # chips relabelled with their own label: restyled only
        for chip in sorted(chips, key=lambda ch: ch.index, reverse=True):
            r = self.chip_range(chip.index)
            if r is None:
                continue
            if painter is not None:
                painter.styles[chip.index] = style_of(chip_class(chip), chip.text)
            text = f"\u00a0{chip.text}\u00a0"
            length = len(text.encode("utf-16-le")) // 2
            if r[1] - r[0] == length and self._chip_label(r) == text:
                same.append(r[0])  # the same label: only its look changes
                continue
            c.setPosition(r[0] + 1)
            base = QTextCharFormat(c.charFormat())
            c.setPosition(r[0])
            c.setPosition(r[1], QTextCursor.MoveMode.KeepAnchor)
            c.insertText(text, base)
            known[chip.index] = (r[0], r[0] + length)
            edits.append((r[1], length - (r[1] - r[0])))
        if len(edits) == 1 and edits[0][1]:  # one verdict: every chip after it moves
            end, d = edits[0]
            known[:] = [(s + d, e + d) if s >= end else (s, e) for s, e in known]
        elif any(d for _, d in edits):
            ends = [e for e, _ in reversed(edits)]
            shifts = list(accumulate(d for _, d in reversed(edits)))
            for i, (s, e) in enumerate(known):
                k = bisect_right(ends, s) - 1  # edits wholly before this chip
                if s >= 0 and k >= 0 and shifts[k]:
                    known[i] = (s + shifts[k], e + shifts[k])
        doc = self.document()
        if painter is not None:  # the blocks of the chips, at their new positions, once each
            starts = {doc.findBlock(r[0]).position()
                      for r in map(self.chip_range, (ch.index for ch in chips)) if r is not None}
            for start in starts:
                painter.paint_block(doc.findBlock(start))
        c.endEditBlock()  # the edited blocks are laid out again, with their chips' looks
        for start in same:  # no text changed there: laid out again for their look only
            block = doc.findBlock(start)
            doc.markContentsDirty(block.position(), block.length())
        if self._active is not None:
            self.set_active(self._active, scroll=False)

    def _chip_label(self, r: tuple[int, int]) -> str:
        c = QTextCursor(self.document())
        c.setPosition(r[0])
        c.setPosition(r[1], QTextCursor.MoveMode.KeepAnchor)
        return c.selectedText()

    # -- active citation -------------------------------------------------------------------------

    def _text_before(self, end: int, limit: int, need: int) -> tuple[str, int]:
        """The document's text from Qt position ``limit`` (or later) to ``end``, with a
        separator between blocks, as ``(text, Qt position of its start)``: blocks are read
        backwards from ``end`` until the text holds ``need`` non-blank characters, so a claim
        is found without copying the whole document after each verdict."""
        doc = self.document()
        block = doc.findBlock(max(end - 1, 0))
        pieces: list[str] = []
        got = 0
        start = end
        while block.isValid():
            pos = block.position()
            text = block.text()
            text = text[: _units_prefix(text, end - pos)] if end < pos + block.length() else text
            if pos < limit:
                text = text[_units_prefix(text, limit - pos):]
                pos = limit
            pieces.append(text)
            start = pos
            got += sum(1 for ch in text if not ch.isspace())
            if pos <= limit or got >= need:
                break
            pieces.append("\u2029")  # the block separator before this block
            start -= 1
            block = block.previous()
        return "".join(reversed(pieces)), start

    def claim_range(self, index: int) -> tuple[int, int] | None:
        """Qt positions of citation ``index``'s claim in the rendered answer."""
        if not 0 <= index < len(self._claims):
            return None
        key = self._claims[index][1]
        first = index
        while first > 0 and self._claims[first - 1][1] == key:
            first -= 1
        chip = self.chip_range(first)
        if chip is None:
            return None
        prev = self.chip_range(first - 1) if first > 0 else None
        claim = self._claims[first][0]
        raw, base = self._text_before(chip[0], prev[1] if prev else 0, len(claim))
        u16 = Utf16Map(raw)
        end = len(raw)
        start = _match_backwards(raw, end, 0, claim)
        if start is None:
            return None
        while end > start and (raw[end - 1].isspace() or raw[end - 1] in "\u2029\ufdd0\ufdd1"):
            end -= 1
        return base + u16.to_utf16(start), base + u16.to_utf16(end)

    def set_active(self, index: int | None, scroll: bool = True) -> None:
        """Highlight citation ``index``'s claim and chip; scroll the chip to the middle."""
        self._active = index
        selections: list[QTextEdit.ExtraSelection] = []
        self._claim_range = None
        if index is not None:
            claim = self.claim_range(index)
            if claim is not None and claim[1] > claim[0]:
                self._claim_range = claim
                selections.append(self._selection(
                    claim, color_roles(self.palette()).highlight.name(), claim_role=True))
            chip = self.chip_range(index)
            if chip is not None:
                sel = self._selection(chip, "#1a4a9c" if not self._dark else "#b9d1ff")
                sel.format.setForeground(QBrush(QColor("#ffffff" if not self._dark else
                                                       "#10213f")))
                selections.append(sel)
                if scroll:
                    self._centre(chip[0])
        self.setExtraSelections(selections)

    def active(self) -> int | None:
        return self._active

    def highlighted_claim(self) -> str:
        """The claim text highlighted in the document (read back from the widget)."""
        for sel in self.extraSelections():
            if sel.format.property(QTextCharFormat.Property.UserProperty) == "claim":
                return sel.cursor.selectedText().replace("\u2029", "\n").replace(
                    "\ufdd0", "").replace("\ufdd1", "")
        return ""

    def _selection(self, r: tuple[int, int], colour: str,
                   claim_role: bool = False) -> QTextEdit.ExtraSelection:
        sel = QTextEdit.ExtraSelection()
        c = QTextCursor(self.document())
        c.setPosition(r[0])
        c.setPosition(r[1], QTextCursor.MoveMode.KeepAnchor)
        sel.cursor = c
        fmt = QTextCharFormat()
        fmt.setBackground(QBrush(QColor(colour)))
        if claim_role:
            fmt.setProperty(QTextCharFormat.Property.UserProperty, "claim")
        sel.format = fmt
        return sel

    def _centre(self, position: int) -> None:
        c = QTextCursor(self.document())
        c.setPosition(position)
        rect = self.cursorRect(c)
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + rect.center().y() - self.viewport().height() // 2)

    # -- events ----------------------------------------------------------------------------------

    def _chip_at(self, pos: QPoint) -> int | None:
        """The chip under viewport point ``pos``, or None."""
        if self._painter is None or not self._chips:
            return None
        offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        hit = self.document().documentLayout().hitTest(QPointF(pos) + offset,
                                                       Qt.HitTestAccuracy.ExactHit)
        if hit < 0:
            return None
        index = self._painter.chip_at(hit)
        if index is None:
            index = self._painter.chip_at(hit - 1)  # the boundary hit is the chip's end
        if index is None:
            return None
        s, e = self._chips[index]
        c = QTextCursor(self.document())
        c.setPosition(s)
        left = self.cursorRect(c)
        c.setPosition(e)
        right = self.cursorRect(c)
        if right.top() != left.top():  # wrapped over two lines: the hit decides
            return index
        inside = left.left() <= pos.x() <= right.left() and left.top() <= pos.y() <= left.bottom()
        return index if inside else None

    def viewportEvent(self, ev: QEvent) -> bool:  # noqa: N802
        # Tooltips arrive at the viewport, in viewport coordinates (what anchorAt expects).
        if ev.type() == QEvent.Type.ToolTip:
            pos = ev.pos()  # type: ignore[attr-defined]
            index = self._chip_at(pos)
            if index is not None and self.tooltip_for is not None:
                QToolTip.showText(ev.globalPos(), plain_tooltip(self.tooltip_for(index)),  # type: ignore[attr-defined]
                                  self)
            else:
                QToolTip.hideText()
            return True
        if ev.type() == QEvent.Type.ContextMenu:
            index = self._chip_at(ev.pos())  # type: ignore[attr-defined]
            if index is not None:
                self.chipMenuRequested.emit(index, ev.globalPos())  # type: ignore[attr-defined]
                return True
        return super().viewportEvent(ev)

    def keyPressEvent(self, ev: QKeyEvent) -> None:  # noqa: N802
        # Left/Right move between chips (a read-only pane has no caret to move); Up/Down and
        # the page keys still scroll.
        key = ev.key()
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right) and not ev.modifiers():
            self.chipStep.emit(-1 if key == Qt.Key.Key_Left else 1)
            return
        # Where Tab stays in the pane (a pane of its own, not the window's), it walks the chips
        # as it walks links, and Enter activates the chip it is on.
        if key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab) and not self.tabChangesFocus():
            self._tab_chip(-1 if key == Qt.Key.Key_Backtab
                           or ev.modifiers() & Qt.KeyboardModifier.ShiftModifier else 1)
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            index = self._selected_chip()
            if index is not None:
                self.citationActivated.emit(index)
                return
        super().keyPressEvent(ev)

    def _selected_chip(self) -> int | None:
        cursor = self.textCursor()
        if not cursor.hasSelection() or self._painter is None:
            return None
        index = self._painter.chip_at(cursor.selectionStart())
        if index is not None and self._chips is not None \
                and self._chips[index] == (cursor.selectionStart(), cursor.selectionEnd()):
            return index
        return None

    def _tab_chip(self, step: int) -> None:
        """Select the next (previous) chip after (before) the one selected or the caret."""
        if self._painter is None or self._chips is None:
            return
        order = self._painter.order
        if not order:
            return
        cursor = self.textCursor()
        here = cursor.selectionStart() if step > 0 else cursor.selectionEnd()
        starts = [self._chips[i][0] for i in order]
        k = bisect_right(starts, here) if step > 0 else bisect_left(starts, here) - 1
        if cursor.hasSelection() and step > 0 and self._selected_chip() is None:
            k = bisect_left(starts, here)
        index = order[k % len(order)]
        s, e = self._chips[index]
        cursor.setPosition(s)
        cursor.setPosition(e, QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        self.ensureCursorVisible()

    def mousePressEvent(self, ev: QMouseEvent) -> None:  # noqa: N802
        self._pressed = ev.position().toPoint() \
            if ev.button() == Qt.MouseButton.LeftButton else None
        super().mousePressEvent(ev)

    def mouseMoveEvent(self, ev: QMouseEvent) -> None:  # noqa: N802
        super().mouseMoveEvent(ev)
        over = ev.buttons() == Qt.MouseButton.NoButton \
            and self._chip_at(ev.position().toPoint()) is not None
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if over
                                  else Qt.CursorShape.IBeamCursor)

    def mouseReleaseEvent(self, ev: QMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(ev)
        ev.accept()  # the pane is the last receiver; nothing above wants a stray release
        pressed, self._pressed = self._pressed, None
        pos = ev.position().toPoint()
        cursor = self.textCursor()
        if cursor.hasSelection() and self._selected_chip() is not None:
            # Qt's link focus on a chip's anchor (where chips keep them) selects the chip, drawn
            # in the highlight colour over the chip's own: drop it, keep the place.
            cursor.setPosition(cursor.selectionEnd())
            self.setTextCursor(cursor)
        if ev.button() != Qt.MouseButton.LeftButton or pressed is None \
                or (pos - pressed).manhattanLength() > QApplication.startDragDistance() \
                or cursor.hasSelection():
            return  # a drag selects text; only a click activates
        index = self._chip_at(pos)
        if index is not None:
            self.citationActivated.emit(index)

    def find_in_range(self, needle: str, start: int) -> tuple[int, int] | None:
        """Qt range of the first ``needle`` at or after Qt position ``start``."""
        c = self.document().find(needle, start)
        if c.isNull():
            return None
        return c.selectionStart(), c.selectionEnd()

    def show_range(self, r: tuple[int, int]) -> None:
        """Mark a spot of the answer (a diagnostic's text) and scroll to it."""
        roles = color_roles(self.palette())
        sel = self._selection(r, roles.warning_bg.name())
        sel.format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        sel.format.setUnderlineColor(roles.warning)
        self.setExtraSelections([sel])
        self._centre(r[0])

    # -- find --------------------------------------------------------------------------------------

    def find_text(self, text: str, backward: bool = False) -> bool:
        return find_wrapping(self, text, backward)


def find_wrapping(edit: QTextEdit | QPlainTextEdit, text: str, backward: bool = False) -> bool:
    """Select the next (or previous) occurrence of ``text`` in ``edit``, wrapping around."""
    flags = QTextDocument.FindFlag.FindBackward if backward else QTextDocument.FindFlag(0)
    if edit.find(text, flags):
        return True
    c = edit.textCursor()
    c.movePosition(QTextCursor.MoveOperation.End if backward else
                   QTextCursor.MoveOperation.Start)
    edit.setTextCursor(c)
    return edit.find(text, flags)


class _SafeDocument(QTextDocument):
    """A document that never loads a resource (no image, no stylesheet, nothing remote)."""

    def loadResource(self, type: int, name: QUrl | str) -> object:  # noqa: A002, N802
        return None


class ChipPainter:
    """Paints each chip's look (its state's or verdict's colours, bold; the red problem mark)
    as its block's additional formats (what a QSyntaxHighlighter sets, without one's whole-
    document passes at every layout change): over the document's plain text, so Qt's HTML
    import styles no tag per chip (that took longer than all the rest of a 10,000-chip answer).

    ``chips`` are the chips' Qt ranges (shared with the view, kept up to date by it) and
    ``styles`` their looks (:func:`style_of`)."""

    def __init__(self, chips: list[tuple[int, int]], styles: list[tuple[str, int]],
                 dark: bool) -> None:
        self.chips = chips
        self.styles = styles
        self.dark = dark
        # Chip indices by position: reading order, unless a provider's claims are not.
        valid = [i for i, (s, _) in enumerate(chips) if s >= 0]
        if any(chips[a][0] >= chips[b][0] for a, b in zip(valid, valid[1:], strict=False)):
            valid.sort(key=lambda i: chips[i][0])
        self.order = valid
        self._formats: dict[tuple[str, bool, bool], QTextCharFormat] = {}

    def _format(self, key: str, mark: bool) -> QTextCharFormat:
        cached = self._formats.get((key, mark, self.dark))
        if cached is None:
            bg, fg = chip_colours(key, self.dark)
            cached = QTextCharFormat()
            cached.setBackground(QBrush(QColor(bg)))
            cached.setForeground(QBrush(QColor(problem_colour(self.dark) if mark else fg)))
            cached.setFontWeight(600)
            cached.setFontUnderline(False)
            self._formats[(key, mark, self.dark)] = cached
        return cached

    def chip_at(self, position: int) -> int | None:
        """The chip whose range holds Qt ``position``, or None."""
        chips, order = self.chips, self.order
        k = bisect_right(order, position, key=lambda i: chips[i][0]) - 1
        if k >= 0 and chips[order[k]][0] <= position < chips[order[k]][1]:
            return order[k]
        return None

    def paint_block(self, block: QTextBlock) -> None:
        """Set the looks of the chips in ``block`` (the caller has Qt lay it out again)."""
        start = block.position()
        end = start + block.length()
        chips, order, styles = self.chips, self.order, self.styles
        k = bisect_left(order, start, key=lambda i: chips[i][0])
        ranges = []
        while k < len(order):
            index = order[k]
            s, e = chips[index]
            if s >= end:
                break
            key, mark = styles[index]
            base = self._format(key, False)
            if mark < 0:
                ranges.append(_range(s - start, e - s, base))
            else:  # the red mark between two runs of the chip's own colours
                ranges.append(_range(s - start, mark, base))
                ranges.append(_range(s - start + mark, 1, self._format(key, True)))
                ranges.append(_range(s - start + mark + 1, e - s - mark - 1, base))
            k += 1
        block.layout().setFormats(ranges)

    def paint_all(self, document: QTextDocument) -> None:
        """Every chip's look, block by block (a new document, or another palette)."""
        chips, order = self.chips, self.order
        k = 0
        while k < len(order):
            block = document.findBlock(chips[order[k]][0])
            self.paint_block(block)
            end = block.position() + block.length()
            k = bisect_left(order, end, key=lambda i: chips[i][0])


def _range(start: int, length: int, fmt: QTextCharFormat) -> QTextLayout.FormatRange:
    r = QTextLayout.FormatRange()
    r.start = start
    r.length = length
    r.format = fmt
    return r


def style_of(cls: str, text: str) -> tuple[str, int]:
    """A chip's look from its class (:func:`citeview.gui.answer_render.chip_class`) and label:
    (state or verdict tone, offset of the red problem mark in the chip or -1)."""
    flagged = cls.endswith(FLAG_CLASS)
    key = CHIP_KEY.get(cls[:-1] if flagged else cls, CHIP_KEY[""])
    mark = text.find("!") if flagged else -1
    return key, (1 + len(text[:mark].encode("utf-16-le")) // 2) if mark >= 0 else -1


class PreparedDocument:
    """A rendered answer document, its chips' positions and their painter, ready for
    :class:`AnswerView`."""

    __slots__ = ("chips", "document", "painter")

    def __init__(self, document: QTextDocument, chips: list[tuple[int, int]],
                 painter: ChipPainter) -> None:
        self.document = document
        self.chips = chips
        self.painter = painter


def prepare_document(body_html: str, dark: bool, font: QFont | str) -> PreparedDocument:
    """Parse the answer HTML into a document, find its chips and paint them. Safe in a worker
    thread (QTextDocument is reentrant): the costly parse of a huge answer stays off the GUI
    thread. The document is handed over to the GUI thread's ownership.

    Chips are found without anchors in the document: each chip's label stands between two
    no-break spaces, so once the chips' anchors are taken out of the HTML, the n-th no-break
    space of the HTML's text is the n-th of the document's. Where the document does not bear
    that out (a model's own no-break spaces where Qt reads them otherwise), the anchors stay
    in and the chips are found by them."""
    doc = _SafeDocument()
    if isinstance(font, str):
        f = QFont()
        f.fromString(font)
        font = f
    doc.setDefaultFont(font)
    doc.setDocumentMargin(12)
    doc.setUndoRedoEnabled(False)
    doc.setDefaultStyleSheet(stylesheet(dark))
    stripped, found = _strip_chips(body_html)
    doc.setHtml(stripped)
    chips = _chips_by_spaces(doc, found)
    if chips is None:
        doc.setHtml(body_html)
        chips = _find_chips(doc)
    styles = [(CHIP_KEY[""], -1)] * len(chips)
    for index, _, cls, text in found:
        if index < len(styles):
            styles[index] = style_of(cls, text)
    painter = ChipPainter(chips, styles, dark)
    painter.paint_all(doc)  # no layout yet: the view's first layout takes them in
    # Setting a block's formats marks it changed; with no layout to tell, the change stays
    # pending and came out whole at the first edit (a verdict laid out the whole document
    # again: 70 ms for 10,000 chips). An empty edit lets it go now, unseen.
    flush = QTextCursor(doc)
    flush.beginEditBlock()
    flush.endEditBlock()
    app = QCoreApplication.instance()
    if app is not None and doc.thread() is not app.thread():
        doc.moveToThread(app.thread())
    return PreparedDocument(doc, chips, painter)


_CHIP_TAG_RE = re.compile(f'<a href="{CHIP_SCHEME}:(\\d+)"(?: class="([a-z]*)")?>([^<]*)</a>')

# A chip found in the HTML: (index, ordinal of its first no-break space among the HTML text's,
# class, label without its no-break spaces)
_Found = tuple[int, int, str, str]


def _strip_chips(body_html: str) -> tuple[str, list[_Found]]:
    """The HTML without the chips' anchors (their text kept), and the chips it held."""
    found: list[_Found] = []
    pieces: list[str] = []
    pos = 0
    spaces = 0  # no-break spaces in the HTML's text so far
    for m in _CHIP_TAG_RE.finditer(body_html):
        between = body_html[pos:m.start()]
        spaces += _text_spaces(between)
        inner = m.group(3)
        label = html.unescape(inner).strip("\u00a0")
        found.append((int(m.group(1)), spaces, m.group(2) or "", label))
        spaces += inner.count("\u00a0")
        pieces.append(between)
        pieces.append(inner)
        pos = m.end()
    pieces.append(body_html[pos:])
    return "".join(pieces), found


def _text_spaces(fragment: str) -> int:
    """No-break spaces in the text of an HTML fragment (not in its tags' attributes)."""
    n = fragment.count("\u00a0")
    if n and "<" in fragment:
        n -= sum(tag.count("\u00a0") for tag in TAG_RE.findall(fragment))
    return n


def _chips_by_spaces(doc: QTextDocument, found: list[_Found]) -> list[tuple[int, int]] | None:
    """Chip positions from the document's no-break spaces (see :func:`prepare_document`), or
    None when the document's do not match the HTML's."""
    raw = doc.toRawText()
    spaces = [m.start() for m in _NBSP_RE.finditer(raw)]
    chips = [(-1, -1)] * (max((f[0] for f in found), default=-1) + 1)
    last = -1
    for index, ordinal, _, text in found:
        if ordinal + 1 >= len(spaces) or ordinal <= last:
            return None
        s, e = spaces[ordinal], spaces[ordinal + 1]
        if raw[s + 1:e] != text or chips[index][0] >= 0:
            return None
        last = ordinal + 1
        chips[index] = (s, e + 1)
    if not raw.isascii() and len(raw.encode("utf-16-le")) != 2 * len(raw):
        u16 = Utf16Map(raw)
        chips = [(u16.to_utf16(s), u16.to_utf16(e)) if s >= 0 else (s, e) for s, e in chips]
    return chips


_NBSP_RE = re.compile("\u00a0")


def _find_chips(doc: QTextDocument) -> list[tuple[int, int]]:
    """Qt (start, end) of chip i at index i ((-1, -1) if absent), by their anchors."""
    found: dict[int, tuple[int, int]] = {}
    prefix = CHIP_SCHEME + ":"
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            href = frag.charFormat().anchorHref()
            if href.startswith(prefix):
                i = int(href[len(prefix):])
                s, e = frag.position(), frag.position() + frag.length()
                prev = found.get(i)
                found[i] = (prev[0], e) if prev else (s, e)
            it += 1
        block = block.next()
    return [found.get(i, (-1, -1)) for i in range(max(found, default=-1) + 1)]


_DOC_SEPARATORS = "\u2029\ufdd0\ufdd1\ufffc"


def _units_prefix(text: str, units: int) -> int:
    """How many code points of ``text`` fill its first ``units`` UTF-16 units."""
    if units <= 0:
        return 0
    if text.isascii() or len(text.encode("utf-16-le")) == 2 * len(text):
        return min(units, len(text))
    return Utf16Map(text).from_utf16(units)


def plain_tooltip(lines: Sequence[str]) -> str:
    """Rich text that shows ``lines`` exactly as text (Qt guesses rich text in tooltips)."""
    body = "<br>".join(html.escape(line).replace("  ", "&nbsp;&nbsp;") for line in lines)
    return f"<qt><div style='white-space:pre-wrap'>{body}</div></qt>"


def _match_backwards(raw: str, end: int, limit: int, claim: str) -> int | None:
    """Start (index in ``raw``) of ``claim``'s rendering ending at ``end``.

    Rendering only drops characters (Markdown syntax, link targets, entity spellings), so the
    rendered claim is a subsequence of the raw one: matching from the end and skipping claim
    characters that do not match finds it (greedy is exact for subsequences). Blanks and
    document separators are ignored on both sides."""
    j = len(claim) - 1
    k = end - 1
    first: int | None = None
    while j >= 0 and k >= limit:
        d = raw[k]
        if d.isspace() or d in _DOC_SEPARATORS:
            k -= 1
            continue
        c = claim[j]
        if c.isspace():
            j -= 1
            continue
        if d == c or d.casefold() == c.casefold():
            first = k
            k -= 1
        j -= 1
    return first


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
