"""A status-bar label that gives way: elided text, a capped share of the bar, full text on hover.

``QStatusBar`` paints its temporary message in whatever its permanent widgets leave; plain
labels take their whole text's width, so a long count pushed the message out ("unknown-s").
:class:`QtElidedLabel` asks for at most ``share`` of the bar's width and elides the rest.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 citation``, ``2 citations`` (``many`` for irregular plurals)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


class QtElidedLabel(QLabel):
    def __init__(self, share: float = 0.3, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.share = share
        self.detail = ""  # said on hover below the full text
        self.setTextFormat(Qt.TextFormat.PlainText)
        # Never wider than asked: what is left is the message's.
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)

    def event(self, ev: QEvent) -> bool:
        parent = self.parentWidget()
        if ev.type() == QEvent.Type.ParentChange and parent is not None:
            parent.installEventFilter(self)  # its width sets our share
        return super().event(ev)

    def eventFilter(self, watched: QObject, ev: QEvent) -> bool:  # noqa: N802
        if ev.type() == QEvent.Type.Resize and watched is self.parentWidget():
            self.updateGeometry()
        return False

    def _cap(self) -> int:
        bar = self.parentWidget()
        width = bar.width() if bar is not None else 800
        return max(60, int(width * self.share))

    def sizeHint(self) -> QSize:  # noqa: N802
        full = super().sizeHint()
        return QSize(min(full.width(), self._cap()), full.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), 40), hint.height())

    def setText(self, text: str) -> None:  # noqa: N802
        super().setText(text)
        self.set_detail(self.detail)
        self.updateGeometry()

    def set_detail(self, detail: str) -> None:
        """The hover text: the whole label (it may be elided), then ``detail``."""
        self.detail = detail
        self.setToolTip("\n".join(t for t in (self.text(), detail) if t))

    def paintEvent(self, ev: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                             rect.width())
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                         text)


__all__ = ["QtElidedLabel", "plural"]
