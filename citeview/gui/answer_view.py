"""The answer pane: rendered Markdown with clickable citation chips and the active claim.

The HTML comes from :mod:`citeview.gui.answer_render` (escaped, chips are the only anchors).
The claim of the active citation is found in the rendered document itself: from the chip
backwards, matching the claim's visible characters (Markdown syntax, link targets and entity
spellings that rendering removed are skipped), never past the previous claim's chip.
Positions in the document are UTF-16 units; the one conversion is
:class:`citeview.core.text.Utf16Map`.
"""

from __future__ import annotations

import contextlib
import html
import weakref
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from functools import partial
from itertools import accumulate

from PySide6.QtCore import (
    QEvent,
    QPoint,
    QPointF,
    QSizeF,
    Qt,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QKeyEvent,
    QMouseEvent,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QApplication,
    QPlainTextEdit,
    QTextBrowser,
    QTextEdit,
    QToolTip,
    QWidget,
)

from citeview.core.text import Utf16Map
from citeview.gui.answer_document import ChipPainter, PreparedDocument, prepare_document, style_of
from citeview.gui.answer_render import (
    Chip,
    chip_class,
    stylesheet,
)
from citeview.gui.palette import color_roles

#: The character property naming an added citation's chip (its correction's id): an added
#: chip is text of its own in the document (see :meth:`AnswerView.set_added`).
ADDED_PROPERTY = QTextFormat.Property.UserProperty + 2


def added_format(dark: bool) -> QTextCharFormat:
    """An added citation's chip: its own look beside the answer's chips (a pale green with a
    dashed underline and a "+" in its label), never taken for one the model wrote."""
    fmt = QTextCharFormat()
    fmt.setBackground(QBrush(QColor("#e3f4e1" if not dark else "#1f3a22")))
    fmt.setForeground(QBrush(QColor("#1d5e23" if not dark else "#b8e6bb")))
    fmt.setFontWeight(600)
    fmt.setFontUnderline(True)
    fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DashUnderline)
    fmt.setFontItalic(True)
    return fmt


def reword_format(dark: bool) -> QTextCharFormat:
    """A reword's mark (its new text beside the words it rewords): amber, dotted underline,
    never taken for a chip or for the model's own words."""
    fmt = QTextCharFormat()
    fmt.setBackground(QBrush(QColor("#fff1c9" if not dark else "#4a3b12")))
    fmt.setForeground(QBrush(QColor("#6b4a00" if not dark else "#f3dc9c")))
    fmt.setFontUnderline(True)
    fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
    fmt.setFontItalic(True)
    return fmt


#: What a reword's mark starts with (then its new text): the pencil says "reworded".
REWORD_MARK = "\u270e"


# Documents laid out ahead that a pane remembers (a case or two ahead are built at a time).
_LAID_OUT_KEPT = 4


def _forget_device(docs: list[weakref.ref[QTextDocument]], device: object = None) -> None:
    """Each of ``docs`` still alive stops using its paint device (``device`` given: only when
    it is that one); the list is emptied."""
    for ref in docs:
        doc = ref()
        if doc is None:
            continue
        with contextlib.suppress(RuntimeError):  # (a document deleted already)
            layout = doc.documentLayout()
            if device is None or layout.paintDevice() is device:
                layout.setPaintDevice(None)  # type: ignore[arg-type]  # (Qt takes nullptr)
    docs.clear()


class AnswerView(QTextBrowser):
    """Read-only answer pane. Emits :attr:`citationActivated` (0-based index) when a chip is
    clicked or activated with the keyboard (Tab to it, Enter), and :attr:`chipMenuRequested`
    on a right click on a chip."""

    citationActivated = Signal(int)
    addedActivated = Signal(str)  # an added citation's chip clicked: its correction's id
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
        # Documents laid out ahead against this pane's viewport (see lay_out_ahead): told to
        # forget it when it goes. (The list, not the pane, is what the signal holds.)
        self._laid_out: list[weakref.ref[QTextDocument]] = []  # (never keeps one alive)
        self.viewport().destroyed.connect(partial(_forget_device, self._laid_out))
        # The claim's highlight colour, by the palette it was worked out from (not every
        # colour role again at each activation).
        self._claim_colour: tuple[int, str] | None = None
        self.tooltip_for: Callable[[int], Sequence[str]] | None = None
        self._added_tips: dict[str, str] = {}  # the added chips shown: id -> tooltip
        self._reworded: set[str] = set()  # which of them are rewords' marks (their look)
        # The words each reword replaces, struck through (cursors follow the document's edits).
        self._struck: list[QTextEdit.ExtraSelection] = []

    # -- content ---------------------------------------------------------------------------------

    @property
    def dark(self) -> bool:
        return self._dark

    def set_dark(self, dark: bool) -> None:
        self._dark = dark
        self.document().setDefaultStyleSheet(stylesheet(dark))
        if self._painter is not None and self._painter.dark != dark:
            self._repaint_chips()
        ranges = self.added_ranges()
        if ranges:  # the added chips' look in the new palette (their text stays)
            c = QTextCursor(self.document())
            c.beginEditBlock()
            for start, end, cid in ranges:
                fmt = reword_format(dark) if cid in self._reworded else added_format(dark)
                fmt.setProperty(ADDED_PROPERTY, cid)
                c.setPosition(start)
                c.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                c.setCharFormat(fmt)
            c.endEditBlock()

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
        self._added_tips = {}
        self._reworded = set()
        self._struck = []
        self.setExtraSelections([])

    def lay_out_ahead(self, prepared: PreparedDocument) -> None:
        """Lay out the first screen of a document built ahead (a case the reviewer likely opens
        next) at this view's width, while the window idles: showing it then only swaps
        documents (its layout in :meth:`set_prepared` was half of that call's time).

        It is laid out against this viewport (its paint device: without it, showing the
        document laid it out again), and it may outlive this pane (the window closed before
        the case is opened) while Qt lays out the rest of it from the event loop, asking its
        paint device for metrics each block: a freed viewport there was "QPaintDevice::metrics:
        Device has no metric information" warnings, or a crash. So the documents laid out here
        (the last few) forget the viewport as it is destroyed (:func:`_forget_device`)."""
        doc = prepared.document
        if doc.defaultFont() != self.font():
            doc.setDefaultFont(self.font())
        viewport = self.viewport()
        layout = doc.documentLayout()
        layout.setPaintDevice(viewport)
        if all(ref() is not doc for ref in self._laid_out):
            self._laid_out.append(weakref.ref(doc))
            while len(self._laid_out) > _LAID_OUT_KEPT:  # (the oldest: shown or dropped)
                _forget_device([self._laid_out.pop(0)], viewport)
        doc.setPageSize(QSizeF(viewport.width(), -1))
        block, bottom = doc.begin(), viewport.height()
        while block.isValid():  # (blockBoundingRect lays out up to its block)
            if layout.blockBoundingRect(block).bottom() > bottom:
                break
            block = block.next()

    def set_claims(self, claims: Sequence[tuple[str, object]]) -> None:
        """The citations' claims (as :meth:`set_prepared` takes them) for the document shown:
        an answer drawn before its citations were resolved keeps its document."""
        self._claims = list(claims)
        chips = self._chip_index()
        chips += [(-1, -1)] * (len(self._claims) - len(chips))

    def placed_chips(self) -> int:
        """How many chips the document shows (read back: an answer painted with its chips)."""
        return sum(1 for s, _ in self._chip_index() if s >= 0)

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

    # -- added citations (a reviewer's corrections) -------------------------------------------

    def added_ranges(self) -> list[tuple[int, int, str]]:
        """Qt (start, end) and correction id of each added chip in the document, in order
        (found by their character property: edits of the chips before them move them)."""
        if not self._added_tips:
            return []
        out: list[tuple[int, int, str]] = []
        block = self.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                cid = frag.charFormat().property(ADDED_PROPERTY)
                if frag.isValid() and isinstance(cid, str) and cid:
                    start, end = frag.position(), frag.position() + frag.length()
                    if out and out[-1][2] == cid and out[-1][1] == start:
                        out[-1] = (out[-1][0], end, cid)  # one chip in several fragments
                    else:
                        out.append((start, end, cid))
                it += 1
            block = block.next()
        return out

    def added_chip_ranges(self) -> list[tuple[int, int, str]]:
        """:meth:`added_ranges` of the added citations' chips only (not rewords' marks)."""
        if self._added_tips.keys() <= self._reworded:
            return []  # (none shown: the document is not walked on each J/K)
        return [r for r in self.added_ranges() if r[2] not in self._reworded]

    def show_position(self, pos: int) -> None:
        """Scroll Qt position ``pos`` of the document into view (no selection made)."""
        c = QTextCursor(self.document())
        c.setPosition(max(0, min(pos, self.document().characterCount() - 1)))
        self.setTextCursor(c)
        self.ensureCursorVisible()

    def _shift_chips(self, at: int, by: int) -> None:
        """The model's chips at or after Qt position ``at`` moved by ``by`` units; the blocks
        holding chips painted again at their new places."""
        known = self._chip_index()
        known[:] = [(s + by, e + by) if s >= at else (s, e) for s, e in known]
        doc = self.document()
        block = doc.findBlock(max(0, min(at, doc.characterCount() - 1)))
        if self._painter is not None and block.isValid() and block.layout() is not None:
            self._painter.paint_block(block)

    def clear_added(self) -> None:
        """Take every added chip out of the document (the answer as rendered again)."""
        ranges = self.added_ranges()
        self._added_tips = {}
        self._reworded = set()
        if self._struck:
            self._struck = []
            self.setExtraSelections([s for s in self.extraSelections()
                                     if not s.format.fontStrikeOut()])
        if not ranges:
            return
        c = QTextCursor(self.document())
        c.beginEditBlock()
        for start, end, _cid in reversed(ranges):
            c.setPosition(start)
            c.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            c.removeSelectedText()
            self._shift_chips(end, start - end)
        c.endEditBlock()
        if self._active is not None:
            self.set_active(self._active, scroll=False)

    def set_added(self, added: Sequence[tuple[int, str, str, str]],
                  reworded: Sequence[tuple[int, str, str, str]] = (),
                  struck: Sequence[tuple[int, int]] = ()) -> None:
        """Show citations a reviewer added as chips of their own: (Qt position, label,
        correction id, tooltip) each, placed at that position as plain text (never markup),
        in :func:`added_format`'s look; and rewords (same fields, the label being the new
        text) as :data:`REWORD_MARK` and the new text, in :func:`reword_format`'s look, after
        the words they reword, which ``struck`` (Qt ranges) strikes through. Replaces the ones
        shown before; the model's chips after each move along (their positions kept up to
        date)."""
        self.clear_added()
        if not added and not reworded:
            return
        items = ([(pos, label, cid, tip, False) for pos, label, cid, tip in added]
                 + [(pos, label, cid, tip, True) for pos, label, cid, tip in reworded])
        c = QTextCursor(self.document())
        c.beginEditBlock()
        for pos, label, cid, tip, is_reword in sorted(items, key=lambda a: a[0],
                                                      reverse=True):
            fmt = reword_format(self._dark) if is_reword else added_format(self._dark)
            fmt.setProperty(ADDED_PROPERTY, cid)
            if is_reword:
                self._reworded.add(cid)
                # One line of plain text (a paragraph break would split the answer's block).
                shown = " ".join(label.split())
                text = f"\u00a0{REWORD_MARK}\u00a0{shown}\u00a0"
            else:
                text = f"\u00a0+\u00a0{label}\u00a0"
            c.setPosition(pos)
            c.insertText(text, fmt)
            self._shift_chips(pos, len(text.encode("utf-16-le")) // 2)
            self._added_tips[cid] = tip
        c.endEditBlock()
        # Struck once every mark is in (a cursor ending where a mark goes in would take it in):
        # the old words end where their mark starts.
        lengths = {r[2]: b - a for r, (a, b) in zip(reworded, struck, strict=False)}
        for start, _end, cid in self.added_ranges():
            if lengths.get(cid, 0) > 0:
                sel = QTextEdit.ExtraSelection()
                sel.cursor = QTextCursor(self.document())
                sel.cursor.setPosition(max(start - lengths[cid], 0))
                sel.cursor.setPosition(start, QTextCursor.MoveMode.KeepAnchor)
                sel.format.setFontStrikeOut(True)
                self._struck.append(sel)
        if self._active is not None:
            self.set_active(self._active, scroll=False)
        elif self._struck:
            self.setExtraSelections(self._struck)

    def added_center(self, cid: str) -> QPoint | None:
        """Viewport position of the middle of the added chip of correction ``cid``."""
        r = next(((s, e) for s, e, c in self.added_ranges() if c == cid), None)
        if r is None:
            return None
        c = QTextCursor(self.document())
        c.setPosition(r[0] + 1)
        left = self.cursorRect(c)
        c.setPosition(r[0] + 2)
        right = self.cursorRect(c)
        return QPoint((left.left() + right.left()) // 2, left.center().y())

    def _added_at(self, pos: QPoint) -> str | None:
        """The correction id of the added chip under viewport point ``pos``, or None."""
        if not self._added_tips:
            return None
        offset = QPointF(self.horizontalScrollBar().value(), self.verticalScrollBar().value())
        hit = self.document().documentLayout().hitTest(QPointF(pos) + offset,
                                                       Qt.HitTestAccuracy.ExactHit)
        if hit < 0:
            return None
        c = QTextCursor(self.document())
        c.setPosition(min(hit + 1, self.document().characterCount() - 1))
        cid = c.charFormat().property(ADDED_PROPERTY)
        return cid if isinstance(cid, str) and cid in self._added_tips else None

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
        """Highlight citation ``index``'s claim and chip; scroll the chip to the middle when it
        is not wholly in view (a chip clicked, or the next one on screen, stays where it is:
        the pane does not jump under the pointer, nor repaint whole)."""
        self._active = index
        selections: list[QTextEdit.ExtraSelection] = list(self._struck)
        self._claim_range = None
        if index is not None:
            claim = self.claim_range(index)
            if claim is not None and claim[1] > claim[0]:
                self._claim_range = claim
                selections.append(self._selection(claim, self._claim_highlight(),
                                                  claim_role=True))
            chip = self.chip_range(index)
            if chip is not None:
                sel = self._selection(chip, "#1a4a9c" if not self._dark else "#b9d1ff")
                sel.format.setForeground(QBrush(QColor("#ffffff" if not self._dark else
                                                       "#10213f")))
                selections.append(sel)
                if scroll and not self._in_view(chip):
                    self._centre(chip[0])
        self.setExtraSelections(selections)

    def _claim_highlight(self) -> str:
        palette = self.palette()
        key = palette.cacheKey()
        if self._claim_colour is None or self._claim_colour[0] != key:
            self._claim_colour = (key, color_roles(palette).highlight.name())
        return self._claim_colour[1]

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

    def _in_view(self, r: tuple[int, int]) -> bool:
        """Whether Qt range ``r`` (a chip) shows whole inside the viewport."""
        c = QTextCursor(self.document())
        c.setPosition(r[0])
        first = self.cursorRect(c)
        c.setPosition(r[1])
        last = self.cursorRect(c)
        return first.top() >= 0 and last.bottom() < self.viewport().height()

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
            added = self._added_at(pos)
            if added is not None:
                QToolTip.showText(ev.globalPos(), plain_tooltip([self._added_tips[added]]),  # type: ignore[attr-defined]
                                  self)
                return True
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
        added = self._added_at(pos)
        if added is not None:
            self.addedActivated.emit(added)
            return
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
