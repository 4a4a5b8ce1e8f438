"""The source's text pane: a read-only plain-text view with the line-label gutter, the cited
span's highlight, painted tints and lazy Pygments colouring, scrolled by the layout's real rows
(part of :class:`~citeview.gui.source_view.QtSourceView`)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from typing import TYPE_CHECKING  # Any: a Pygments lexer (untyped)

from PySide6.QtCore import QEvent, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextBlock,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QFrame,
    QPlainTextEdit,
    QWidget,
)

from citeview.gui.palette import ColorRoles, color_roles

if TYPE_CHECKING:
    pass
from citeview.gui.prepared_source import PreparedSource

# --------------------------------------------------------------------------- text view


class _Gutter(QWidget):
    def __init__(self, view: QtSourceText) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(self) -> QSize:
        return QSize(self._view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self._view.paint_gutter(event)


TAB_WIDTH = 4  # spaces a tab stands for in the source pane
# A gutter label's alignment, as the int drawText takes (combined once: flags are Python enums).
_LABEL_ALIGN = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class QtSourceText(QPlainTextEdit):
    """Read-only text with a gutter of the material's own line labels, a faint tint painted
    under tinted lines and one strong highlight (an ``ExtraSelection``)."""

    #: Its rows were laid out anew (a resize or a font change: lines wrap elsewhere).
    relaid = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setUndoRedoEnabled(False)
        # Selected with the mouse or the keyboard (Shift+arrows: evidence and corrected lines
        # are chosen without a mouse); the caret is not drawn (width 0).
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setCenterOnScroll(False)
        self.setCursorWidth(0)  # read-only: the highlight, not a caret, marks the place
        self._set_tab_stops()
        self.roles: ColorRoles = color_roles()
        self.loaded: PreparedSource | None = None
        # Tinted block ranges, merged and sorted: starts and ends (inclusive) in block numbers.
        self._tint_first: list[int] = []
        self._tint_last: list[int] = []
        self.strong_blocks: tuple[int, int] | None = None
        self.strong_exact = False  # the highlight is exact characters, not whole lines
        self.evidence_blocks: list[tuple[int, int]] = []  # block ranges of evidence spans
        self._caret_block: int | None = None  # where the caret goes (see caret_later)
        self._caret_timer = QTimer(self)  # (a child: stopped with the view)
        self._caret_timer.setSingleShot(True)
        self._caret_timer.setInterval(0)
        self._caret_timer.timeout.connect(self._place_caret)
        self.gutter = _Gutter(self)
        self._gutter_w = 0
        self.blockCountChanged.connect(self.update_gutter_width)
        self.updateRequest.connect(self._update_gutter)
        self.update_gutter_width()

    def _set_tab_stops(self) -> None:
        # Qt's default tab stop is 80 px: code lines wrapped that fit in an editor.
        self.setTabStopDistance(QFontMetrics(self.font()).horizontalAdvance(" ") * TAB_WIDTH)

    # -- gutter ---------------------------------------------------------------------------------

    def gutter_width(self) -> int:
        return self._gutter_w

    def update_gutter_width(self, *_: object) -> None:
        sample = self.loaded.gutter_sample if self.loaded else ""
        fm = QFontMetrics(self.font())
        width = max(fm.horizontalAdvance(sample or "L00"), fm.horizontalAdvance("L00")) + 18
        if width != self._gutter_w:  # (the margins set again lay the scroll area out again)
            self._gutter_w = width
            self.setViewportMargins(width, 0, 0, 0)

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        cr = self.contentsRect()
        self.gutter.setGeometry(QRect(cr.left(), cr.top(), self._gutter_w, cr.height()))
        self.relaid.emit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (event.Type.FontChange, event.Type.PaletteChange):
            self.roles = color_roles(self.palette())
            self._set_tab_stops()  # zoom: a tab keeps its width in spaces
            self.update_gutter_width()
            self.viewport().update()
            if event.type() == event.Type.FontChange:
                self.relaid.emit()

    def _visible_blocks(self) -> Iterator[tuple[QTextBlock, float, float]]:
        """Yield ``(block, top, bottom)`` for each block on screen, in viewport coordinates."""
        block = self.firstVisibleBlock()
        if not block.isValid():
            return
        height = self.viewport().height()
        layout = self.document().documentLayout()
        # (Blocks are stacked: each one's top is the bottom of the one before, as Qt's own
        # paint walks them; one geometry looked up per block, not moved per block.)
        top = self.blockBoundingGeometry(block).translated(self.contentOffset()).top()
        while block.isValid() and top <= height:
            bottom = top + layout.blockBoundingRect(block).height()
            if block.isVisible():
                yield block, top, bottom
            top = bottom
            block = block.next()

    def caret_later(self, block: int) -> None:
        """Put the caret (where find and a keyboard selection start) at block ``block`` from
        the event loop, after the paint that shows it: setting it costs half a millisecond of
        the time from a click to the span on screen. Read through :meth:`textCursor` (or
        found from, :meth:`QtSourceView.find_text`) before then, it is placed at once."""
        self._caret_block = block
        self._caret_timer.start()

    def _place_caret(self) -> None:
        block, self._caret_block = self._caret_block, None
        if block is not None:
            found = self.document().findBlockByNumber(block)
            if found.isValid():
                self.setTextCursor(QTextCursor(found))

    def textCursor(self) -> QTextCursor:  # noqa: N802
        self._place_caret()
        return super().textCursor()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        # A keyboard selection starts at the cited span: the caret on its way goes there first.
        self._place_caret()
        super().keyPressEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self._caret_block = None  # the reviewer puts the caret: the one on its way is dropped
        super().mousePressEvent(event)

    def rows_extent(self, first: int, last: int) -> tuple[float, float] | None:
        """Top of the first laid-out row of block ``first`` and bottom of the last row of block
        ``last``, in viewport coordinates (what is painted, the document margin left out).
        Exact once ``first`` is within two viewports of the top block (the view measures
        farther blocks by guess); None when a block does not exist."""
        doc = self.document()
        fb, lb = doc.findBlockByNumber(first), doc.findBlockByNumber(last)
        if not fb.isValid() or not lb.isValid():
            return None
        offset = self.contentOffset()
        top = self.blockBoundingGeometry(fb).translated(offset).top()
        geo = self.blockBoundingGeometry(lb).translated(offset)
        layout = lb.layout()
        n = layout.lineCount() if layout is not None else 0
        if n:
            line = layout.lineAt(n - 1)
            bottom = geo.top() + line.y() + line.height()
        else:
            bottom = geo.bottom()
        return top, bottom

    def visible_rows(self) -> tuple[int, int] | None:
        """First and last block with a row wholly inside the viewport (None: nothing shown)."""
        height = self.viewport().height()
        numbers: list[int] = []
        for block, top, _bottom in self._visible_blocks():
            layout = block.layout()
            for i in range(layout.lineCount()):
                line = layout.lineAt(i)
                if top + line.y() >= -0.5 and top + line.y() + line.height() <= height + 0.5:
                    numbers.append(block.blockNumber())
                    break
        return (numbers[0], numbers[-1]) if numbers else None

    def span_in_view(self, first: int, last: int) -> bool:
        """Whether blocks ``first..last`` show whole in the viewport, or, taller than it, from
        their first row at its top."""
        extent = self.rows_extent(first, last)
        if extent is None:
            return False
        top, bottom = extent
        height = self.viewport().height()
        # Within a pixel: rows of a fractional height (zoomed fonts) sit between pixels.
        if bottom - top <= height:
            return top > -1 and bottom < height + 1
        return abs(top) < 1

    def show_rows(self, first: int, last: int) -> None:
        """Scroll so that blocks ``first..last`` show whole, centred, with context above; a
        span taller than the viewport shows from its first row at the top.

        Measured on the document layout's real rows (wrapped lines are several rows), laying
        out only the span's blocks and the screenful above it, never the whole document: the
        scroll bar counts rows, one per block not laid out yet, so the top is set as a row
        number once the blocks that decide it are laid out."""
        doc = self.document()
        layout = doc.documentLayout()
        view_h = self.viewport().height()
        fb = doc.findBlockByNumber(first)
        if not fb.isValid():
            return
        span_h = 0.0
        block = fb
        while block.isValid() and block.blockNumber() <= last and span_h <= view_h:
            span_h += layout.blockBoundingRect(block).height()
            block = block.next()
        top_block, top_row = fb, 0
        if span_h <= view_h:
            room = (view_h - span_h) / 2  # context above the span
            block = fb.previous()
            while block.isValid() and room > 0:
                layout.blockBoundingRect(block)  # lays it out
                rows = block.layout()
                for i in range(rows.lineCount() - 1, -1, -1):
                    h = rows.lineAt(i).height()
                    if h > room:
                        room = 0
                        break
                    room -= h
                    top_block, top_row = block, i
                block = block.previous()
        # The row counts changed with the layouts: the scroll range follows them first.
        layout.documentSizeChanged.emit(layout.documentSize())
        bar = self.verticalScrollBar()
        bar.setValue(top_block.firstLineNumber() + top_row)
        # Check on the laid-out rows now near the top: a span that fits must end inside the
        # viewport (the range's end, or rows laid out only now, can leave it short).
        for _ in range(64):
            extent = self.rows_extent(first, last)
            if extent is None:
                return
            top, bottom = extent
            if bottom - top <= view_h:
                if bottom >= view_h + 1 and top >= 1 and bar.value() < bar.maximum():
                    bar.setValue(bar.value() + 1)
                    continue
                if top <= -1 and bar.value() > bar.minimum():
                    bar.setValue(bar.value() - 1)
                    continue
            elif abs(top) >= 1:
                bar.setValue(fb.firstLineNumber())
            return

    def is_tinted(self, number: int) -> bool:
        i = bisect_right(self._tint_first, number) - 1
        return i >= 0 and self._tint_last[i] >= number

    def paint_gutter(self, event: QPaintEvent) -> None:
        roles = self.roles
        painter = QPainter(self.gutter)
        try:
            rect = event.rect()
            painter.fillRect(rect, roles.panel)
            w = self._gutter_w
            painter.setPen(roles.border)
            painter.drawLine(w - 1, rect.top(), w - 1, rect.bottom())
            loaded = self.loaded
            if loaded is None:
                return
            font = self.font()
            line_h = QFontMetrics(font).height()
            bold = QFont(font)
            bold.setBold(True)
            strong = self.strong_blocks
            evidence = self.evidence_blocks
            first_tint, last_tint = self._tint_first, self._tint_last
            shown_strong: bool | None = None  # the painter's font and pen: set on a change
            label_width = w - 10
            rect_top = rect.top()
            for block, top, bottom in self._visible_blocks():
                if bottom < rect_top:
                    continue
                number = block.blockNumber()
                is_strong = strong is not None and strong[0] <= number <= strong[1]
                if is_strong:
                    painter.fillRect(QRectF(w - 5, top, 3, bottom - top), roles.highlight_edge)
                elif first_tint:
                    i = bisect_right(first_tint, number) - 1
                    if i >= 0 and last_tint[i] >= number:
                        painter.fillRect(QRectF(w - 4, top, 2, bottom - top), roles.tint_edge)
                if evidence and any(a <= number <= b for a, b in evidence):
                    painter.fillRect(QRectF(w - 9, top, 3, bottom - top), roles.evidence_edge)
                pos = block.position()
                label = loaded.block_label(pos, pos + block.length() - 1)
                if label:
                    if shown_strong is not is_strong:
                        shown_strong = is_strong
                        painter.setFont(bold if is_strong else font)
                        painter.setPen(roles.text if is_strong else roles.muted)
                    painter.drawText(QRectF(2, top, label_width, line_h), _LABEL_ALIGN, label)
        finally:
            painter.end()

    # -- tints -----------------------------------------------------------------------------------

    def set_tint_blocks(self, ranges: list[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for a, b in sorted(ranges):
            if merged and a <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        self._tint_first = [a for a, _ in merged]
        self._tint_last = [b for _, b in merged]
        self.viewport().update()
        self.gutter.update()

    def tinted_ranges(self) -> list[tuple[int, int]]:
        return list(zip(self._tint_first, self._tint_last, strict=True))

    def paintEvent(self, event: QPaintEvent) -> None:
        # Line backgrounds under the text: the tint of other cited lines, and the strong
        # highlight's lines at full width (the ExtraSelection itself colours only characters).
        strong = self.strong_blocks
        if self._tint_first or strong is not None:
            painter = QPainter(self.viewport())
            try:
                width = self.viewport().width()
                for block, top, bottom in self._visible_blocks():
                    number = block.blockNumber()
                    if strong is not None and strong[0] <= number <= strong[1]:
                        # Exact characters (a provider's character span): the lines only
                        # tinted, the ExtraSelection marks the characters.
                        painter.fillRect(QRectF(0, top, width, bottom - top),
                                         self.roles.tint if self.strong_exact
                                         else self.roles.highlight)
                    elif self.is_tinted(number):
                        painter.fillRect(QRectF(0, top, width, bottom - top), self.roles.tint)
            finally:
                painter.end()
        super().paintEvent(event)


__all__ = ["TAB_WIDTH", "QtSourceText"]
