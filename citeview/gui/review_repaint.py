"""What shows the review, repainted when the session changes.

The session's changes arrive as typed events (:mod:`citeview.session.events`, passed on by
:attr:`~citeview.gui.review_session.ReviewSession.changed`) and are dispatched on their class:
a case's review (:class:`ReviewChanged`) repaints its row of the case list, an annotation
(:class:`AnnotationChanged`) the shown case's chips and citation rows, the session's meta
(:class:`MetaChanged`) where it lives. When the verdicts changed under the views (another
annotator, a follow, an input taken in again) everything shown is counted and decorated again.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSignalBlocker

from citeview.gui.navigation import select_row
from citeview.gui.ops import AfterPaint
from citeview.gui.progress import progress_text
from citeview.session.events import (
    AnnotationChanged,
    CasesAdded,
    Change,
    MetaChanged,
    ReviewChanged,
)

if TYPE_CHECKING:
    from citeview.gui.case_loader import CaseLoader
    from citeview.gui.elided import QtElidedLabel
    from citeview.gui.filters import Filters
    from citeview.gui.menus import WindowMenus
    from citeview.gui.panes import Panes
    from citeview.gui.progress import ProgressTracker
    from citeview.gui.review import ReviewController
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.window_state import WindowState
    from citeview.session.protocol import ReviewStore


class ReviewRepaint(QObject):
    """Connects to the review session's ``attached``, ``changed``, ``followed`` and ``recount``
    (the window does the connecting) and repaints the parts that show the review."""

    def __init__(self, state: WindowState, panes: Panes, review_session: ReviewSession,
                 progress: ProgressTracker, loader: CaseLoader, filters: Filters,
                 review: ReviewController, menus: WindowMenus, progress_label: QtElidedLabel,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state, self.panes = state, panes
        self.review_session, self.progress = review_session, progress
        self.loader, self.filters = loader, filters
        self.review, self.menus = review, menus
        self.progress_label = progress_label  # the status bar's progress
        # Changes made by a case switch (Ctrl+Enter), shown after the next case's first paint.
        self._held: list[Change] = []
        # (Asked for from the event loop, once the switch has marked the new case dirty: the
        # repaint comes after that case's paint.)
        self._show_held = AfterPaint(self._repaint_held, self)

    def session_attached(self, session: ReviewStore | None) -> None:
        """Another session (or none) is reviewed: each part of the review starts over."""
        self._held.clear()
        self.review.repaint_held = False
        self.review.session_attached(session)
        self.progress.start(session)
        self.loader.fit_verdicts()  # the rubric's labels read whole
        self.menus.session_attached(session)
        self.panes.cases_model.state_of = (self.progress.state_text if session is not None
                                           else None)
        if session is not None:
            self.filters.fill(session.labels)
            self.filters.fill_case()

    def session_changed(self, change: Change) -> None:
        """A change committed to the session (an edit, its undo, an adjudication): repaint
        what shows it."""
        if self.review_session.session is None:
            return
        if self.review.switching or self._held:
            # Counted now (the next case not done reads the counts), shown after the paint
            # (the label and case list are ~2 ms the reviewer would wait on before it). Later
            # changes queue behind, in order.
            with QSignalBlocker(self.progress):
                self.progress.on_change(change)
            self._held.append(change)
            self.review.repaint_held = True
            self._show_held.request_soon()
            return
        self.progress.on_change(change)
        self._repaint(change)

    def _repaint_held(self) -> None:
        held, self._held = self._held, []
        self.review.repaint_held = False
        if self.review_session.session is None or not held:
            return
        for change in held:
            self._repaint(change)
        self.show_progress()

    def _repaint(self, change: Change) -> None:
        panes, dataset = self.panes, self.state.dataset
        if isinstance(change, ReviewChanged):
            if dataset is not None:
                with contextlib.suppress(KeyError):
                    panes.cases_model.refresh_case(dataset.index_of(change.case_id))
            panes.cases_proxy.invalidate_rows()
        elif isinstance(change, AnnotationChanged):
            view = self.state.view
            if view is not None and view.case.id == change.case_id:
                key = change.key
                changed = self.progress.decorate(view, key.number if key is not None else None)
                found = (view.analysed.citation(key.number)
                         if key is not None and view.analysed is not None else None)
                if found is not None:
                    changed.append(found.index)
                for i in sorted(set(changed)):
                    self.loader.refresh_citation(i)
                panes.citations_proxy.invalidate_rows()
        elif isinstance(change, MetaChanged):
            self.review_session.show_where()
        elif isinstance(change, CasesAdded):
            self.relist()
        self.filters.session_changed(change)
        self.review.sync_bar()

    def relist(self) -> None:
        """The session's list of cases changed (cases added; a team reviewer's next
        hand-out): the case list shows it, the case shown stays selected."""
        dataset = self.state.dataset
        if dataset is None:
            return
        self.panes.cases_model.set_ids(dataset.case_ids())
        view = self.state.view
        if view is not None:
            with contextlib.suppress(KeyError):
                self.state.set_case_index(dataset.index_of(view.case.id))
        select_row(self.panes.cases_table, self.panes.cases_proxy, self.state.case_index)
        self.loader.update_counts()

    def refresh_review(self) -> None:
        """The session's verdicts changed under the views (another annotator, an input taken
        in again): count and decorate the shown case again."""
        if self.review_session.session is None:
            return
        self.progress.recount()
        model = self.panes.cases_model
        if model.rowCount():  # review states may have changed anywhere
            model.dataChanged.emit(model.index(0, 0),
                                   model.index(model.rowCount() - 1, model.columnCount() - 1))
        self.panes.cases_proxy.invalidate_rows()
        view = self.state.view
        if view is not None:
            for i in self.progress.decorate(view):
                self.loader.refresh_citation(i)
            self.panes.citations_model.set_view(view)
        self.review.sync_bar()

    def show_progress(self) -> None:
        """The status bar's progress: the annotator's, blind or not, merged annotators'."""
        s = self.review_session.session
        self.progress_label.setText(progress_text(
            self.progress.progress(), s.annotator if s is not None else "", self.review.blind,
            self.progress.merged_text()))


__all__ = ["ReviewRepaint"]
