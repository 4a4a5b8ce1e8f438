"""A thin Qt adapter: the session's plain callbacks (:meth:`Session.subscribe`) as a signal.

The session model imports no Qt; views connect to :attr:`SessionAdapter.changed` instead, so a
change made anywhere (an edit, its undo, an adjudication) reaches every view the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from citeview.session.events import Change
from citeview.session.protocol import ReviewStore


class SessionAdapter(QObject):
    changed = Signal(object)  # a citeview.session.events.Change, after it was committed

    def __init__(self, session: ReviewStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._unsubscribe: Callable[[], None] | None = session.subscribe(self._on_change)

    def _on_change(self, change: Change) -> None:
        self.changed.emit(change)

    def detach(self) -> None:
        """Stop listening (before the session is closed or replaced)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"SessionAdapter({self.session.path!r})"
