"""One-line labels that give way instead of widening their pane: the text is elided when painted
(``text()`` keeps it whole), the whole text is on hover.

Used by the source pane's header (title, URL, metadata: untrusted text, kept to one line with no
bidi controls) and by the status bar, whose permanent labels share what the message leaves
bar's width: ``QStatusBar`` paints its message in whatever they leave (a long count once pushed
the message out, "unknown-s").
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from citeview.gui.answer_view import plain_tooltip

# Bidi controls could make an untrusted title or URL read as something else.
BIDI_CONTROLS = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)], "\ufffd")


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 citation``, ``2 citations`` (``many`` for irregular plurals)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


# A status-bar label's width moves in steps of this many pixels: a new text of the same step
# asks for no new layout (each new count laid out the status bar, and the window, again).
WIDTH_STEP = 48


class QtElidedLabel(QLabel):
    """``share``: None for a pane's label (as wide as its pane gives); set for a status-bar
    label, its size fixed to its text's width rounded up to :data:`WIDTH_STEP`
    (``QWidget::updateGeometry`` lays out nothing for a fixed-size widget), within the room the
    message leaves (:meth:`_cap`)."""

    def __init__(self, parent: QWidget | None = None, *, share: float | None = None) -> None:
        super().__init__(parent)
        self.share = share
        self.detail = ""  # said on hover below the whole text
        self.forms: tuple[str, ...] = ()  # shorter texts, painted when the whole one is cut
        self._tip = ""  # the tooltip set (setting an equal one again costs an event)
        self._tip_later = False  # set_full_text sets the tooltip itself, once
        self._text = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        policy = QSizePolicy.Policy.Ignored if share is None else QSizePolicy.Policy.Maximum
        self.setSizePolicy(policy, QSizePolicy.Policy.Preferred)

    # -- text --------------------------------------------------------------------------------

    def setText(self, text: str) -> None:  # noqa: N802
        if text == self.text():
            return  # (a new size asked for lays out the status bar, and the window, again)
        self.forms = ()
        if self.share is None:
            # A pane's label is as wide as its pane gives and one line high whatever its
            # text: the new text is elided in place and repainted, and QLabel's own text (its
            # size hint: one line, or none) changes only when it empties or fills (setting it
            # each time laid out the pane's header again before every new source's paint).
            was, self._text = self._text, text
            if bool(was) != bool(text) or not super().text():
                super().setText(text)
            self.setAccessibleName(text)  # (a screen reader reads the text shown)
            self.update()
        else:
            self._text = text
            super().setText(text)
        if not self._tip_later:
            self.set_detail(self.detail)  # the whole text on hover
        if self.share is not None:
            self._fit()

    def text(self) -> str:
        """The whole text (what is painted, elided, and said on hover)."""
        return self._text

    def _fit(self, siblings: bool = True) -> None:
        """A status-bar label's fixed size: its text's width, stepped, within its cap."""
        full = super().sizeHint()
        width = min(math.ceil(full.width() / WIDTH_STEP) * WIDTH_STEP, self._cap())
        size = QSize(width, full.height())
        if self.minimumSize() != size or self.maximumSize() != size:
            self.setFixedSize(size)
            if siblings:  # the room left for the others changed
                for other in self._siblings():
                    if other is not self:
                        other._fit(siblings=False)

    def _siblings(self) -> list[QtElidedLabel]:
        bar = self.parentWidget()
        if bar is None:
            return [self]
        return [w for w in bar.findChildren(QtElidedLabel)
                if w.share is not None and w.parentWidget() is bar and w.text()]

    def _cap(self) -> int:
        """Every status-bar label whole while they fit beside the message's room (40% of a
        narrow bar, 420 px or 30% of a wide one); else each its part of the rest, in
        proportion to its whole text (a fixed share of the bar cut a short label the longer
        ones did not need: the annotator "q...")."""
        bar = self.parentWidget()
        width = bar.width() if bar is not None else 800
        room = width - max(0.4 * min(width, 1050), 0.3 * width)
        wants = {id(w): w._natural() for w in self._siblings()}
        mine = self._natural()
        total = sum(wants.values()) + (0 if id(self) in wants else mine)
        if total <= room:
            stepped = math.ceil(mine / WIDTH_STEP) * WIDTH_STEP
            # Stepped widths while all of them still fit (fewer layouts); else exact.
            steps = sum(math.ceil(v / WIDTH_STEP) * WIDTH_STEP for v in wants.values())
            return max(60, stepped if steps <= room else mine)
        return max(60, int(mine * room / total) if total else 0)

    def _natural(self) -> int:
        """The width that shows the whole text."""
        return int(super().sizeHint().width()) + 2

    def set_detail(self, detail: str) -> None:
        """The hover text: the whole label (it may be elided), then ``detail``."""
        self.detail = detail
        self.setToolTip("\n".join(t for t in (self.text(), detail) if t))

    def set_full_text(self, text: str, tooltip: str | None = None) -> None:
        """Untrusted text: one line (model text may hold breaks and tabs), no bidi controls;
        ``tooltip`` (default: the text) is shown as plain text."""
        self._tip_later = True
        try:
            self.setText(" ".join(text.translate(BIDI_CONTROLS).split()))
        finally:
            self._tip_later = False
        tip = text if tooltip is None else tooltip
        self.setToolTip(plain_tooltip(tip.splitlines()) if tip else "")

    def setToolTip(self, tip: str) -> None:  # noqa: N802
        # Each source and case shown sets every header label's tooltip, mostly to the same.
        if tip != self._tip or tip != self.toolTip():
            self._tip = tip
            super().setToolTip(tip)

    def full_text(self) -> str:
        return self.text()

    def set_forms(self, text: str, *shorter: str) -> None:
        """``text``, painted whole where it fits, else the first of ``shorter`` that fits (a
        pane's narrow header says less rather than cutting a count in half), else the shortest
        elided; ``text()`` and the hover keep the whole text."""
        self.setText(text)
        if self.forms != shorter:
            self.forms = shorter
            self.update()

    def shown_text(self) -> str:
        """What is painted: the whole text, a shorter form that fits, or the shortest elided."""
        width = self.contentsRect().width()
        metrics = self.fontMetrics()
        for form in (self.text(), *self.forms):
            if metrics.horizontalAdvance(form) <= width:
                return form
        last = self.forms[-1] if self.forms else self.text()
        return metrics.elidedText(last, Qt.TextElideMode.ElideRight, width)

    # -- size and paint ----------------------------------------------------------------------

    def event(self, ev: QEvent) -> bool:
        parent = self.parentWidget()
        kind = ev.type()
        if self.share is not None and kind == QEvent.Type.ParentChange and parent:
            parent.installEventFilter(self)  # its width sets our share
            self._fit()
        elif self.share is not None and kind in (QEvent.Type.FontChange,
                                                 QEvent.Type.StyleChange):
            handled = super().event(ev)
            self._fit()
            return handled
        return super().event(ev)

    def eventFilter(self, watched: QObject, ev: QEvent) -> bool:  # noqa: N802
        if ev.type() == QEvent.Type.Resize and watched is self.parentWidget():
            self._fit()
        return False

    def sizeHint(self) -> QSize:  # noqa: N802
        if self.share is None:
            return super().sizeHint()
        return QSize(self.minimumWidth(), self.minimumHeight())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), 20 if self.share is None else 40), hint.height())

    def paintEvent(self, ev: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        rect = self.contentsRect()
        text = self.shown_text()
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                         text)


__all__ = ["BIDI_CONTROLS", "WIDTH_STEP", "QtElidedLabel", "plural"]
