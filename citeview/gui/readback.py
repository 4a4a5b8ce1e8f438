"""Reading the window back: what the widgets show and what the user was told.

Snapshots (``citeview screenshot --json``) and tests check the window through this module, never
through attributes kept for them: :func:`view_state` reads the widgets (not the core), and
:class:`MessageLog` records what went through the message bridge.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from PySide6.QtWidgets import QMenu, QWidget

from citeview.core.numbering import number_at
from citeview.gui import ops
from citeview.gui.case_loader import CASE_WORK
from citeview.gui.message import Level, Message, bridge
from citeview.gui.navigation import CHIP_MENU

if TYPE_CHECKING:
    from citeview.gui.case_loader import CaseLoader
    from citeview.gui.elided import QtElidedLabel
    from citeview.gui.panes import Panes
    from citeview.gui.review import ReviewController
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.view_modes import ViewModes
    from citeview.gui.window_state import WindowState

W = TypeVar("W", bound=QWidget)


class ShownWindow(Protocol):
    """What readback reads of a window (the composed window is one; so is any other
    composition of the same parts)."""

    @property
    def state(self) -> WindowState: ...
    @property
    def panes(self) -> Panes: ...
    @property
    def modes(self) -> ViewModes: ...
    @property
    def review(self) -> ReviewController: ...
    @property
    def review_session(self) -> ReviewSession: ...
    @property
    def loader(self) -> CaseLoader: ...
    @property
    def progress_label(self) -> QtElidedLabel: ...


def view_state(shown: ShownWindow) -> dict[str, Any]:
    """What the widgets show, read back from them (not recomputed from the core)."""
    state, panes = shown.state, shown.panes
    source, answer = panes.source, panes.answer
    labels = source.highlighted_labels()
    index = answer.active()
    review = shown.review
    return {
        "case": state.view.case.id if state.view else None,
        "case_position": number_at(state.case_index),
        "cases": len(state.dataset) if state.dataset is not None else 0,
        "citations": answer.chip_count() if state.view else 0,
        "active_citation": number_at(index) if index is not None else None,
        "chip": answer.chip_text(index) if index is not None else None,
        "claim": answer.highlighted_claim(),
        "source_id": source.shown_source_id(),
        "source_missing": bool(source.is_missing_state()),
        "source_of_citation": number_at(state.active_source) if index is not None else None,
        "first_line": labels[0] if labels else None,
        "last_line": labels[1] if labels else None,
        "highlighted_text": source.highlighted_text(),
        # A reviewer's evidence spans in the source shown (code points), as painted.
        "evidence": [list(span) for span in source.evidence_spans()],
        # On screen, not only highlighted: from the source viewport's geometry.
        **source.span_on_screen(),
        "raw": shown.modes.raw_mode,
        "side_by_side": shown.modes.side_by_side.on,
        # The review bar: the pressed verdict button of the shown source, and progress.
        "verdict": next((str(a.data()) for a in review.verdict_actions if a.isChecked()),
                        None),
        "progress": shown.progress_label.text(),
    }


def is_ready(shown: ShownWindow) -> bool:
    """The shown case's view-model is in the panes (lint may still be on its way) and the
    review session of a newly opened input is made."""
    return shown.state.view is not None and not shown.review_session.making()


def is_settled(shown: ShownWindow) -> bool:
    """The shown case is in the panes and its lint diagnostics too (or lint failed), the
    source shown holds all its text, its item counts joined the progress, and the review's
    last change is shown (a case switch shows it after its first paint)."""
    return (is_ready(shown) and not shown.review.repaint_held
            and not shown.review.write_pending()
            and not ops.pending(shown.loader, CASE_WORK)
            and not shown.panes.source.is_loading() and not shown.loader.sizes_pending())


def chip_menu(window: QWidget) -> QMenu | None:
    """The chip context menu last opened (None when none is open)."""
    menus = [m for m in window.findChildren(QMenu, CHIP_MENU) if m.isVisible()]
    return menus[-1] if menus else None


def shown_dialog(window: QWidget, kind: type[W]) -> W | None:
    """The dialog of type ``kind`` the window shows (the last opened), if any."""
    shown = [d for d in window.findChildren(kind) if d.isVisible()]
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


__all__ = ["MessageLog", "ShownWindow", "chip_menu", "is_ready", "is_settled", "shown_dialog",
           "view_state"]
