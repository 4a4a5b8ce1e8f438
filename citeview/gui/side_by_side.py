"""Side by side: the raw answer and the rendered one together, scrolled together.

Scrolling follows text, not scroll fractions: the first code point the leading pane shows (the
one the user scrolled) is mapped to the other pane's text and put at its top. The map
(:class:`PositionMap`) pairs known places of both texts, each citation's marker with its chip
and its claim's start in both, and interpolates between them.

The other pane follows from the event loop (a coalesced zero timer), never from inside the
leading pane's scroll signal, and its own scroll signal is ignored while it follows: no pane
scrolls inside another's scroll cascade, so nothing feeds back.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QSplitter, QStackedWidget

from citeview.core.text import Utf16Map

if TYPE_CHECKING:
    from citeview.gui.answer_view import AnswerView
    from citeview.gui.raw_answer_view import RawAnswerView
    from citeview.gui.state import CaseView
    from citeview.gui.window_state import WindowState

SIDE_BY_SIDE_KEY = "view/side_by_side"
RAW, RENDERED = "raw", "rendered"


class PositionMap:
    """Code points of the raw answer <-> code points of the rendered document's text.

    ``anchors`` are pairs (raw, rendered) known to show the same place; between two of them a
    position is interpolated linearly. Pairs that would make the map go backwards are dropped
    (a claim found out of order), so both directions are monotonic."""

    __slots__ = ("_raw", "_rendered")

    def __init__(self, anchors: list[tuple[int, int]]) -> None:
        raw: list[int] = []
        rendered: list[int] = []
        for a, r in sorted(set(anchors)):
            if raw and r < rendered[-1]:
                continue
            raw.append(a)
            rendered.append(r)
        self._raw = raw or [0]
        self._rendered = rendered or [0]

    @staticmethod
    def _map(x: int, src: list[int], dst: list[int]) -> int:
        k = bisect_right(src, x) - 1
        if k < 0:
            return dst[0]
        if k >= len(src) - 1:
            return dst[-1]
        span = src[k + 1] - src[k]
        if span <= 0:
            return dst[k]
        return dst[k] + round((x - src[k]) * (dst[k + 1] - dst[k]) / span)

    def to_rendered(self, raw: int) -> int:
        return self._map(raw, self._raw, self._rendered)

    def to_raw(self, rendered: int) -> int:
        return self._map(rendered, self._rendered, self._raw)


def build_map(view: CaseView, answer: AnswerView) -> tuple[PositionMap, Utf16Map]:
    """The map of ``view``'s answer and its rendering in ``answer``, and the rendered text's
    UTF-16 map (Qt positions <-> its code points)."""
    text = answer.document().toRawText()
    u16 = Utf16Map(text)
    anchors = [(0, 0), (len(view.case.answer), len(text))]
    for i, cv in enumerate(view.citations):
        chip = answer.chip_range(i)
        if chip is None:
            continue
        c = cv.citation
        anchors.append((c.start, u16.from_utf16(chip[0])))
        anchors.append((c.end, u16.from_utf16(chip[1])))
        claim = answer.claim_range(i)
        if claim is not None and cv.claim[1] > cv.claim[0]:
            anchors.append((cv.claim[0], u16.from_utf16(claim[0])))
    return PositionMap(anchors), u16


class SideBySide(QObject):
    """The window's side-by-side mode: its splitter (a page of ``answer_stack``), the panes
    moved into it and back, and scrolling them together."""

    def __init__(self, state: WindowState, answer: AnswerView, raw: RawAnswerView,
                 answer_stack: QStackedWidget, split_panes: QSplitter,
                 show_raw_active: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.answer, self.raw = answer, raw
        self.answer_stack, self.split_panes = answer_stack, split_panes
        self.show_raw_active = show_raw_active  # the raw pane marks the active citation
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("answers")
        self.splitter.setChildrenCollapsible(False)
        answer_stack.addWidget(self.splitter)
        self.on = False
        self._panes_before: list[int] = []  # the panes' widths before side by side
        self._leader = RENDERED
        self._following = False  # the other pane is being scrolled to follow
        self._expected: dict[str, int] = {}  # scroll values set by following
        self._map: tuple[object, object, int, PositionMap, Utf16Map] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.follow)
        answer.verticalScrollBar().valueChanged.connect(lambda _v: self._scrolled(RENDERED))
        raw.verticalScrollBar().valueChanged.connect(lambda _v: self._scrolled(RAW))

    def set_on(self, on: bool) -> None:
        """Put both panes in the splitter (rendered left, raw right), or back in the stack."""
        if on == self.on:
            return
        self.on = on
        self._timer.stop()
        # Moving a pane to another parent takes the keyboard from it: it is given back.
        focus = QApplication.focusWidget()
        stack = self.answer_stack
        panes = self.split_panes.sizes()  # [the answer's box, the source]
        if on:
            # Two answers share the answer's room: it takes two thirds of the panes' width
            # (at 1024 pixels, a marker still fits on a line of the raw pane).
            self._panes_before = panes
            total = sum(panes)
            if total and panes[0] < 0.6 * total:
                self.split_panes.setSizes([total * 2 // 3, total - total * 2 // 3])
            self.splitter.insertWidget(0, self.answer)
            self.splitter.insertWidget(1, self.raw)
            self.answer.show()
            self.raw.show()
            if self.splitter.sizes()[0] == 0 or self.splitter.sizes()[1] == 0:
                half = max(self.splitter.width() // 2, 1)
                self.splitter.setSizes([half, half])
            stack.setCurrentWidget(self.splitter)
            # Centred once the splitter has laid the panes out at their new widths.
            QTimer.singleShot(0, self, self.align)
        else:
            stack.insertWidget(0, self.answer)
            stack.insertWidget(1, self.raw)
            before = self._panes_before
            if before and sum(before) == sum(panes) and min(before) > 0:
                self.split_panes.setSizes(before)
            elif sum(panes):  # widened before the window was laid out: share evenly
                self.split_panes.setSizes([sum(panes) // 2, sum(panes) - sum(panes) // 2])
            self._panes_before = []
        if on and (focus is self.answer or focus is self.raw):
            focus.setFocus()

    def align(self) -> None:
        """Both panes at the active citation (centred in each), or the raw pane following
        the rendered one."""
        state = self.state
        if not self.on:
            return
        if state.view is not None and state.active is not None:
            self.answer.set_active(state.active)
            self.show_raw_active()
        else:
            self._leader = RENDERED
            self.follow()

    def settle(self) -> None:
        """Both panes were just scrolled to the same place (the active citation): none follows
        the other."""
        self._timer.stop()

    def _scrolled(self, which: str) -> None:
        if not self.on or self._following:
            return
        bar = (self.raw if which == RAW else self.answer).verticalScrollBar()
        if self._expected.pop(which, None) == bar.value():
            return  # where following put it (a late signal of that scroll)
        self._leader = which
        self._timer.start()

    def _position_map(self) -> tuple[PositionMap, Utf16Map] | None:
        view = self.state.view
        if view is None:
            return None
        doc = self.answer.document()
        key = (view, doc, doc.revision())  # a restyled chip edits the document
        if (self._map is None or self._map[0] is not view or self._map[1] is not doc
                or self._map[2] != key[2]):
            self._map = (*key, *build_map(view, self.answer))
        return self._map[3], self._map[4]

    def follow(self) -> None:
        """Scroll the other pane to the text at the top of the leading one."""
        self._timer.stop()
        found = self._position_map() if self.on else None
        if found is None or self._following:
            return
        pmap, u16 = found
        answer, raw = self.answer, self.raw
        self._following = True
        try:
            if self._leader == RENDERED:
                top = answer.cursorForPosition(QPoint(0, 0)).position()
                raw.scroll_to_top(pmap.to_raw(u16.from_utf16(top)))
                self._expected[RAW] = raw.verticalScrollBar().value()
            else:
                target = u16.to_utf16(pmap.to_rendered(raw.top_offset()))
                c = QTextCursor(answer.document())
                c.setPosition(min(target, answer.document().characterCount() - 1))
                bar = answer.verticalScrollBar()
                bar.setValue(bar.value() + answer.cursorRect(c).top()
                             - int(answer.document().documentMargin()) // 2)
                self._expected[RENDERED] = bar.value()
        finally:
            self._following = False
