"""How the answer is shown: rendered or raw, side by side, zoomed, presenting (the View menu).

:class:`ViewModes` owns the modes and their actions; the window adds the actions to its View
menu. It reads what is shown from the :class:`~citeview.gui.window_state.WindowState` (the raw
view takes in the shown case, marks the active citation) and tells the review when presentation
starts or ends (``presentingChanged``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QSplitter, QStackedWidget, QWidget

from citeview.gui import message
from citeview.gui.side_by_side import SIDE_BY_SIDE_KEY, SideBySide
from citeview.gui.untrusted import safe_title

if TYPE_CHECKING:
    from citeview.core.diagnostics import Diagnostic
    from citeview.gui.answer_view import AnswerView
    from citeview.gui.raw_answer_view import RawAnswerView
    from citeview.gui.source_view import QtSourceView
    from citeview.gui.window_state import WindowState

PRESENT_ZOOM = 4  # zoom steps added in presentation mode
ZOOM_RANGE = (-6, 12)


class ViewModes(QObject):
    presentingChanged = Signal(bool)

    def __init__(self, state: WindowState, settings: QSettings, answer: AnswerView,
                 raw: RawAnswerView, source: QtSourceView, answer_stack: QStackedWidget,
                 split_panes: QSplitter, window: QMainWindow,
                 shown_diagnostics: Callable[[], list[Diagnostic]]) -> None:
        super().__init__(window)
        self.state = state
        self.settings = settings
        self.answer, self.raw, self.source = answer, raw, source
        self.answer_stack = answer_stack
        self.window = window  # its title and chrome (presentation mode)
        self.shown_diagnostics = shown_diagnostics
        self.chrome: list[QWidget | None] = []  # hidden while presenting (set by the window)
        self.raw_mode = False  # the raw answer is shown (alone, or side by side)
        self._alone_raw = False  # the raw answer was shown alone before side by side
        self._raw_stale = True  # the raw view shows an older answer than the case shown
        self.zoom = 0
        self._base_point_sizes: dict[str, float] = {}  # answer panes' font sizes at zoom 0
        self.presenting = False
        self._zoom_before = 0
        self._title_before = "citeview"
        self.side_by_side = SideBySide(state, answer, raw, answer_stack, split_panes,
                                       self.show_raw_active, self)
        self.raw_action = self._action("&Raw Answer", self.set_raw_mode, "Ctrl+R", True)
        self.side_by_side_action = self._action("&Side by Side", self.set_side_by_side,
                                                "Ctrl+Shift+B", True)
        self.zoom_in_action = self._action("Zoom &In", lambda: self.set_zoom(self.zoom + 1))
        self.zoom_in_action.setShortcuts([QKeySequence(QKeySequence.StandardKey.ZoomIn),
                                          QKeySequence("Ctrl+=")])
        self.zoom_out_action = self._action("Zoom &Out", lambda: self.set_zoom(self.zoom - 1),
                                            QKeySequence.StandardKey.ZoomOut)
        self.actual_size_action = self._action("&Actual Size", lambda: self.set_zoom(0),
                                               "Ctrl+0")
        self.present_action = self._action("&Presentation Mode", self.set_presenting, "F11",
                                           True)

    def _action(self, text: str, slot: Callable[..., object],
                shortcut: QKeySequence.StandardKey | str | None = None,
                checkable: bool = False) -> QAction:
        act = QAction(text, self.window)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        act.setCheckable(checkable)
        act.triggered.connect(slot)
        return act

    # -- raw and side by side ---------------------------------------------------------------

    def set_raw_mode(self, raw: bool) -> None:
        """Show the raw answer (markers and all, lint findings underlined) or the rendered one.

        Side by side, Raw Answer (Ctrl+R) is unchecked; pressing it ends side by side and shows
        the raw answer alone (``set_raw_mode(False)``: the rendered one alone)."""
        typing_here = self.answer.hasFocus() or self.raw.hasFocus()
        if self.side_by_side.on:
            self.side_by_side.set_on(False)
            self.side_by_side_action.setChecked(False)
            self.settings.setValue(SIDE_BY_SIDE_KEY, False)
        self.raw_mode = bool(raw)
        self.raw_action.setChecked(self.raw_mode)
        if self.raw_mode and self._raw_stale:
            self.refresh_raw()
        self.answer_stack.setCurrentWidget(self.raw if self.raw_mode else self.answer)
        if typing_here:  # the keyboard stays with the answer, not the next pane in line
            (self.raw if self.raw_mode else self.answer).setFocus()
        if self.raw_mode:
            self.show_raw_active()

    def set_side_by_side(self, on: bool) -> None:
        """Show the rendered and the raw answer side by side, scrolled together, the active
        citation marked in both (remembered). While on, :attr:`raw_mode` is true: the raw pane
        follows the case and citation, and Find in the answer searches it (the exact text).
        Turned off, the pane shown alone before comes back."""
        on = bool(on)
        self.side_by_side_action.setChecked(on)
        self.settings.setValue(SIDE_BY_SIDE_KEY, on)
        if on == self.side_by_side.on:
            return
        if on:
            self._alone_raw = self.raw_mode
            self.raw_mode = True
            self.raw_action.setChecked(False)
            if self._raw_stale:
                self.refresh_raw()
            self.side_by_side.set_on(True)
            self.show_raw_active()
        else:
            typing_here = self.answer.hasFocus() or self.raw.hasFocus()
            self.side_by_side.set_on(False)
            self.set_raw_mode(self._alone_raw)
            if typing_here:
                (self.raw if self.raw_mode else self.answer).setFocus()

    def refresh_raw(self) -> None:
        """The raw view takes in the shown case: now when it is shown, else when it is next."""
        view = self.state.view
        if self.raw_mode and view is not None:
            self.raw.set_answer(view.case.answer, self.shown_diagnostics())
            self._raw_stale = False
        else:
            self._raw_stale = True

    def show_raw_active(self) -> None:
        """Mark the active citation's claim and marker in the raw view."""
        view, active = self.state.view, self.state.active
        if view is None or active is None:
            self.raw.set_active([])
            return
        cv = view.citations[active]
        c = cv.citation
        self.raw.set_active([(cv.claim[0], cv.claim[1], "claim"), (c.start, c.end, "marker")])
        self.side_by_side.settle()  # both panes show the active citation: none follows

    # -- presentation and zoom --------------------------------------------------------------

    def set_presenting(self, on: bool) -> None:
        """Presentation mode: only the answer and the source, larger type, a clean title, the
        keys stepping through citations (J/K, Left/Right); verdict keys record nothing."""
        on = bool(on)
        if on == self.presenting:
            return
        self.presenting = on
        self.present_action.setChecked(on)
        self.presentingChanged.emit(on)
        for pane in self.chrome:
            if pane is not None:
                pane.setVisible(not on)
        window = self.window
        if on:
            self._zoom_before = self.zoom
            self.set_zoom(self.zoom + PRESENT_ZOOM)
            self._title_before = window.windowTitle()
            view = self.state.view
            case = view.case.id if view is not None else ""
            window.setWindowTitle(f"{safe_title(case)} \u2014 citeview" if case else "citeview")
            self.answer.setFocus()
            message.info("Presentation mode: J/K or Left/Right step through citations; "
                         "F11 or Escape ends it")
        else:
            self.set_zoom(self._zoom_before)
            window.setWindowTitle(self._title_before)

    def set_zoom(self, step: int) -> None:
        old, self.zoom = self.zoom, max(ZOOM_RANGE[0], min(ZOOM_RANGE[1], step))
        self.source.zoom(self.zoom - old)
        for name, w in (("answer", self.answer), ("raw", self.raw)):
            font = w.font()
            base = self._base_point_sizes.setdefault(name, font.pointSizeF())
            font.setPointSizeF(max(5.0, base + self.zoom))
            w.setFont(font)


__all__ = ["PRESENT_ZOOM", "ViewModes"]
