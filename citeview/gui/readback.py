"""Reading the window back: what the widgets show and what the user was told.

Snapshots (``citeview screenshot --json``) and tests check the window through this module, never
through attributes kept for them: :func:`view_state` reads the widgets (not the core), and
:class:`MessageLog` records what went through the message bridge.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtWidgets import QMenu, QWidget

from citeview.core.numbering import number_at
from citeview.gui import ops
from citeview.gui.case_loader import CASE_WORK
from citeview.gui.message import Level, Message, bridge
from citeview.gui.navigation import CHIP_MENU

if TYPE_CHECKING:
    from citeview.gui.main_window import MainWindow

W = TypeVar("W", bound=QWidget)


def view_state(win: MainWindow) -> dict[str, Any]:
    """What the widgets show, read back from them (not recomputed from the core)."""
    labels = win.source.highlighted_labels()
    index = win.answer.active()
    review = win.review
    return {
        "case": win.view.case.id if win.view else None,
        "case_position": win.case_index + 1,
        "cases": len(win.dataset) if win.dataset is not None else 0,
        "citations": win.answer.chip_count() if win.view else 0,
        "active_citation": number_at(index) if index is not None else None,
        "chip": win.answer.chip_text(index) if index is not None else None,
        "claim": win.answer.highlighted_claim(),
        "source_id": win.source.shown_source_id(),
        "source_missing": bool(win.source.is_missing_state()),
        "source_of_citation": win.active_source + 1 if index is not None else None,
        "first_line": labels[0] if labels else None,
        "last_line": labels[1] if labels else None,
        "highlighted_text": win.source.highlighted_text(),
        # On screen, not only highlighted: from the source viewport's geometry.
        **win.source.span_on_screen(),
        "raw": win.raw_mode,
        "side_by_side": win.side_by_side.on,
        # The review bar: the pressed verdict button of the shown source, and progress.
        "verdict": next((str(a.data()) for a in review.verdict_actions if a.isChecked()),
                        None),
        "progress": win.progress_label.text(),
    }


def is_ready(win: MainWindow) -> bool:
    """The shown case's view-model is in the panes (lint may still be on its way) and the
    review session of a newly opened input is made."""
    return win.view is not None and not win.review_session.making()


def is_settled(win: MainWindow) -> bool:
    """The shown case is in the panes and its lint diagnostics too (or lint failed), and the
    source shown holds all its text."""
    return (is_ready(win) and not ops.pending(win.loader, CASE_WORK)
            and not win.source.is_loading())


def chip_menu(win: MainWindow) -> QMenu | None:
    """The chip context menu last opened (None when none is open)."""
    menus = [m for m in win.findChildren(QMenu, CHIP_MENU) if m.isVisible()]
    return menus[-1] if menus else None


def shown_dialog(win: MainWindow, kind: type[W]) -> W | None:
    """The dialog of type ``kind`` the window shows (the last opened), if any."""
    shown = [d for d in win.findChildren(kind) if d.isVisible()]
    return shown[-1] if shown else None


class MessageLog:
    """Every message told through :mod:`citeview.gui.message` while it is open, in order."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        bridge().shown.connect(self._record)

    def _record(self, message: Message) -> None:
        self.messages.append(message)

    @property
    def errors(self) -> list[str]:
        return [m.text for m in self.messages if m.level is Level.ERROR]

    @property
    def texts(self) -> list[str]:
        """Every message told, any level."""
        return [m.text for m in self.messages]

    def last_error(self) -> str | None:
        errors = self.errors
        return errors[-1] if errors else None

    def close(self) -> None:
        """Stop recording."""
        bridge().shown.disconnect(self._record)

    def __enter__(self) -> MessageLog:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


__all__ = ["MessageLog", "chip_menu", "is_ready", "is_settled", "shown_dialog", "view_state"]
