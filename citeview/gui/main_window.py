"""The inspection window: answer, source, sources list, citations table, cases list.

The window is the composition root: it builds its layout (gui/layout.py) and its parts with
the collaborators each uses and connects their signals; each part is a module of its own and
never sees the window:

- :mod:`~citeview.gui.window_state` holds what is shown (dataset, case, view, active citation)
  and signals each change,
- :mod:`~citeview.gui.case_loader` shows a case (view-model built off the GUI thread, then lint),
- :mod:`~citeview.gui.navigation` moves between citations, sources and cases,
- :mod:`~citeview.gui.view_modes` is raw, side by side, zoom and presentation,
- :mod:`~citeview.gui.opening` opens inputs, :mod:`~citeview.gui.menus` builds the menus,
  :mod:`~citeview.gui.case_actions` takes the shown case out (Save As, Copy Answer As),
- :mod:`~citeview.gui.find` and :mod:`~citeview.gui.filters` are the find bar and table filters,
- :mod:`~citeview.gui.watcher` reloads the input when it changes on disk,
- :mod:`~citeview.gui.review_session`, :mod:`~citeview.gui.progress` and
  :mod:`~citeview.gui.review` are the review: its session, progress, and keys and edits;
  :mod:`~citeview.gui.review_repaint` repaints what shows it on the session's typed events,
- :mod:`~citeview.gui.layout` builds the panes, tables and splitters,
  :mod:`~citeview.gui.window_settings` restores and saves their sizes,
- :mod:`~citeview.gui.message` carries what the user is told to
  :mod:`~citeview.gui.status_messages`, the status bar,
- :mod:`~citeview.gui.readback` reads the widgets back (snapshots, tests).
"""


from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QObject, QSettings, Qt
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeyEvent,
    QShowEvent,
)
from PySide6.QtWidgets import QMainWindow, QSplitter

from citeview.core.datasets import Dataset
from citeview.core.diagnostics import Diagnostic
from citeview.core.inputs import InputLoader, InputLoaders
from citeview.gui import layout, window_settings
from citeview.gui.case_actions import CaseActions
from citeview.gui.case_loader import CaseLoader
from citeview.gui.filters import Filters
from citeview.gui.find import FindBar
from citeview.gui.layout import WindowLayout
from citeview.gui.menus import WindowMenus
from citeview.gui.navigation import Navigator
from citeview.gui.opening import CASE_COLUMN_SHARES, InputOpener
from citeview.gui.progress import ProgressTracker
from citeview.gui.review_repaint import ReviewRepaint
from citeview.gui.review_session import SESSION_LANE, ReviewSession
from citeview.gui.side_by_side import SideBySide
from citeview.gui.state import CaseView
from citeview.gui.status_messages import StatusMessages
from citeview.gui.tables import CitationsModel, fit_columns
from citeview.gui.view_modes import ViewModes
from citeview.gui.watcher import InputWatcher
from citeview.gui.window_state import WindowState
from citeview.session.loader import session_loader
from citeview.session.protocol import ReviewStore, SessionBackend, SessionDataset


class MainWindow(QMainWindow):
    def __init__(self, settings: QSettings | None = None, synchronous: bool = False, *,
                 sessions: SessionBackend | None = None,
                 loaders: Iterable[InputLoader] | None = None) -> None:
        super().__init__()
        self.settings = settings if settings is not None else QSettings("citeview", "citeview")
        # Where review sessions live, and the readers of binary inputs (session files): given
        # by the entry point (gui/app.py's choice when not), never found by what happens to be
        # imported. Session files open through the backend the window was given.
        from citeview.gui import app

        self.sessions: SessionBackend = sessions if sessions is not None else app.SESSIONS
        self.loaders = InputLoaders(loaders if loaders is not None else
                                    [session_loader(self.sessions)])
        # Snapshot mode: view-models built in the GUI thread, and no modal dialogs (nobody is
        # there to answer them).
        self.synchronous = synchronous
        self.state = WindowState(self)  # what is shown: dataset, case, view, active citation
        self._splitters_restored = False
        self.messages = StatusMessages(self, lambda: self.review_session.can_ask())
        self.messages.listen(True)

        self.progress = ProgressTracker(self)
        self.review_session = ReviewSession(self.settings, self.synchronous, self.sessions, self)

        self.setWindowTitle("citeview")
        self.setAcceptDrops(True)
        self._build_ui()
        self.navigator = Navigator(self.state, self.panes, self.modes, self.filters,
                                   self.review_session, self)
        self.loader = CaseLoader(self.state, self.panes, self.modes, self.navigator,
                                 self.progress, self.review_session,
                                 lambda: self.advance.landing(), self, self.synchronous)
        self.watcher = InputWatcher(self.state, self.review_session, self.loader, self.loaders,
                                    self)
        from citeview.gui.advance import Advancer

        self.advance = Advancer(self.state, self.settings, self.loader, self.navigator,
                                self.progress, self)
        self.opener = InputOpener(self.state, self.panes, self.cases_box, self.review_session,
                                  self.watcher, self.loader, self.advance, self.progress,
                                  self.settings, self.synchronous, self.sessions,
                                  self.loaders, self)
        self.cases_model.question_of = self.opener.question_of  # the list's question column
        self.navigator.wire(self.find_bar, self.loader.show_case)
        # A chip clicked while its case is built (its answer drawn first) is shown once it is.
        self.answer.citationActivated.connect(self.loader.chip_before_view)
        self.case_actions = CaseActions(self.state, self.review_session, self.answer, self)
        self.menus = WindowMenus(self, self.opener, self.case_actions, self.review_session,
                                 self.watcher, self.find_bar, self.modes, self.source,
                                 self.navigator)
        from citeview.gui.review import ReviewController

        self.review = ReviewController(self.state, self.review_session, self.navigator,
                                       self.loader, self.advance, self.progress, self)
        # The review's views, repainted on the session's typed change events.
        self.review_views = ReviewRepaint(self.state, self.panes, self.review_session,
                                          self.progress, self.loader, self.filters, self.review,
                                          self.menus, self.progress_label, self)
        self.review.verdictsStale.connect(self.review_views.refresh_review)
        from citeview.gui.review_marks import ReviewMarks

        # Evidence, reasons and corrections (issue 30): keys in the Review menu.
        self.marks = ReviewMarks(self.state, self.panes, self.review,
                                 lambda: self.modes.raw_mode, self)
        self.navigator.citationChanged.connect(lambda _i: self.marks.citation_changed())
        self.loader.viewReady.connect(self.marks.case_shown)
        self.review_session.changed.connect(self.marks.session_changed)
        self.review_session.attached.connect(lambda _s: self.marks.case_shown())
        for stale in (self.review.verdictsStale, self.review_session.followed,
                      self.review_session.recount, self.watcher.synced):
            stale.connect(self.marks.case_shown)  # another annotator's, or read again
        self.review.blindToggled.connect(self.blind_changed)
        self.opener.sessionMade.connect(self.review.sync_bar)
        go = self.menus.go_menu
        go.insertAction(go.actions()[0], self.review.prev_action)
        go.insertAction(self.review.prev_action, self.review.next_action)
        go.insertAction(self.review.next_action, self.review.prev_unjudged_action)
        go.insertAction(self.review.prev_unjudged_action,
                         self.review.next_unjudged_action)
        self.menus.add_help(self.review_session)  # last: after the Review menu
        self.modes.chrome = [self.split_left, self.split_right.widget(1), self.statusBar(),
                             self.menuBar()]  # hidden while presenting
        self.modes.presentingChanged.connect(self.review.set_presenting)
        self.review.advance_action.setChecked(self.advance.enabled)
        self.review.advance_action.toggled.connect(self.advance.set_enabled)
        self.advance.overridden.connect(self._show_advance_override)
        self.filters.fill(())
        self.loader.viewReady.connect(self.filters.fill_case)  # its statuses and lint codes
        self.loader.lintReady.connect(self.filters.fill_case)
        self.loader.viewReady.connect(self.review_session.start_making_soon)
        self.review_session.attached.connect(self.review_views.session_attached)
        from citeview.gui.team import QtTeamLink

        # A team project: the outbox's status, retries, leases, live changes, team progress.
        self.team = QtTeamLink(self, cases_model=self.cases_model)
        self.advance.team = self.navigator.team = self.team  # routed: the server's next case
        self.review_session.attached.connect(self.team.attach)
        self.review_session.changed.connect(self.review_views.session_changed)
        self.review_session.followed.connect(self.review_views.refresh_review)
        self.review_session.recount.connect(self.review_views.refresh_review)
        self.watcher.synced.connect(self.review_views.refresh_review)
        self.state.blindChanged.connect(self._blind_set)
        self.watcher.reloaded.connect(self.opener.list_cases)
        self.review_session.remake.connect(self.opener.reopen_changed)
        self.progress.changed.connect(self.review_views.show_progress)
        self.progress.problemsChecked.connect(self.cases_proxy.invalidate_rows)
        from citeview.gui import focus

        focus.install(self, [self.cases_table, self.answer, self.raw, self.source.text_view(),
                             self.citations_table], self.find_bar)
        self.answer.chipStep.connect(  # chip to chip (J/K also visit each source)
            lambda d: self.navigator.next_citation() if d > 0
            else self.navigator.previous_citation())
        self._restore_settings()
        self._warm_up()

    def _warm_up(self) -> None:
        """Make the Qt classes the workers use, here, before any worker starts; then import
        what showing the first case needs (the Markdown renderer, Pygments' lexers) in a worker
        thread of its own while the window starts."""
        from citeview.gui.ops import BackgroundOp, start_lanes

        if not self.synchronous:
            from citeview.gui.warm_up import warm_up, warm_up_qt

            warm_up_qt(self.answer.font())
            BackgroundOp(self, warm_up, key="warm-up").run(lane="warm-up")
            start_lanes("", SESSION_LANE)  # the case's and the session's

    # What is shown, read through the state (parts set it there: see window_state.py).

    @property
    def dataset(self) -> Dataset | None:
        return self.state.dataset

    @property
    def case_index(self) -> int:
        return self.state.case_index

    @property
    def view(self) -> CaseView | None:
        return self.state.view

    @property
    def active(self) -> int | None:
        return self.state.active

    @property
    def active_source(self) -> int:
        return self.state.active_source

    @property
    def path(self) -> str | None:
        return self.state.path

    @path.setter
    def path(self, path: str | None) -> None:
        self.state.path = path

    @property
    def input_dataset(self) -> Dataset | None:
        return self.state.input_dataset

    @input_dataset.setter
    def input_dataset(self, dataset: Dataset | None) -> None:
        self.state.input_dataset = dataset

    def _build_ui(self) -> None:
        """The layout (gui/layout.py), with the parts that sit in it; its widgets stay
        reachable as the window's attributes."""
        lay = WindowLayout(self, self.synchronous)
        self.panes = p = lay.panes
        self.answer, self.raw, self.source, self.question = p.answer, p.raw, p.source, p.question
        self.counts_label, self.answer_stack, self.split_panes = (p.counts_label,
                                                                  lay.answer_stack,
                                                                  lay.split_panes)
        self.cases_table, self.cases_proxy, self.cases_model = (p.cases_table, p.cases_proxy,
                                                                p.cases_model)
        self.sources_table, self.sources_proxy, self.sources_model = (
            p.sources_table, p.sources_proxy, p.sources_model)
        self.citations_table, self.citations_proxy, self.citations_model = (
            p.citations_table, p.citations_proxy, p.citations_model)
        self.cases_table.viewport().installEventFilter(self)  # its columns fit its width
        self.find_bar = FindBar(self.state, self.answer, self.raw, self.source,
                                lambda: self.raw_mode)
        lay.add_find_bar(self.find_bar)
        self.modes = ViewModes(self.state, self.settings, self.answer, self.raw, self.source,
                               self.answer_stack, self.split_panes, self,
                               self.shown_diagnostics)
        self.filters = Filters(self.state, self.citations_proxy, self.cases_proxy, self.progress,
                               self.review_session, self)
        lay.arrange(self, self.filters.cases_box, self.filters.citations_box,
                    self.review_session.label)
        self.cases_box, self.progress_label = lay.cases_box, lay.progress_label
        self.split_left, self.split_right, self.split_main = (lay.split_left, lay.split_right,
                                                              lay.split_main)

    # ------------------------------------------------------------------------------ settings

    def _splitters(self) -> tuple[QSplitter, ...]:
        return (self.split_main, self.split_right, self.split_left, self.split_panes,
                self.side_by_side.splitter)

    def _restore_settings(self) -> None:
        self._splitters_restored = window_settings.restore(self, self.settings,
                                                           self._splitters(), self.modes)

    def save_settings(self) -> None:
        window_settings.save(self, self.settings, self._splitters(), self.modes)

    # ------------------------------------------------------------------------------ events

    def showEvent(self, ev: QShowEvent) -> None:  # noqa: N802
        super().showEvent(ev)
        self.watcher.resume()
        self.messages.listen(True)
        if not self._splitters_restored:  # first run
            self._splitters_restored = True
            window_settings.first_run_sizes(self.width(), self.split_main, self.split_right,
                                            self.split_panes, self.citations_table,
                                            self.side_by_side.on)

    def eventFilter(self, watched: QObject, ev: QEvent) -> bool:  # noqa: N802
        if ev.type() == QEvent.Type.Resize and watched is self.cases_table.viewport():
            fit_columns(self.cases_table, 160, CASE_COLUMN_SHARES)
        return super().eventFilter(watched, ev)

    def changeEvent(self, ev: QEvent) -> None:  # noqa: N802
        super().changeEvent(ev)
        if (ev.type() == QEvent.Type.PaletteChange and layout.recolor(self, self.panes)
                and self.view is not None):  # the answer's chips are baked into its HTML
            self.loader.show_case(self.case_index, citation=self.active,
                                  source=self.active_source)

    def closeEvent(self, ev: QCloseEvent) -> None:  # noqa: N802
        self.save_settings()
        self.team.before_close()  # edits that could not reach the server: said, and kept
        self.review_session.close()  # every verdict is already committed; this releases the lock
        for shown in {id(d): d for d in (self.state.input_dataset, self.state.dataset)
                      if isinstance(d, SessionDataset)}.values():
            shown.close()  # a project's cases, read over a connection of its own
        self.progress.start(None)
        self.watcher.stop()
        self.loader.stop()
        super().closeEvent(ev)
        self.messages.listen(False)

    def dragEnterEvent(self, ev: QDragEnterEvent) -> None:  # noqa: N802
        if ev.mimeData().hasUrls() and any(u.isLocalFile() for u in ev.mimeData().urls()):
            ev.acceptProposedAction()

    def dropEvent(self, ev: QDropEvent) -> None:  # noqa: N802
        for url in ev.mimeData().urls():
            if url.isLocalFile():
                self.open_path(url.toLocalFile())
                ev.acceptProposedAction()
                return

    def can_ask(self) -> bool:
        """Whether a modal dialog can be answered here: not in a snapshot, not offscreen."""
        return self.review_session.can_ask()

    # ------------------------------------------------------------------------------ opening
    # (gui/opening.py opens inputs; these are its window-level names)

    def open_path(self, path: str, case_id: str | None = None) -> bool:
        return self.opener.open_path(path, case_id)

    def open_input(self, dataset: Dataset, path: str | None = None,
                   case_id: str | None = None) -> bool:
        return self.opener.open_input(dataset, path, case_id)

    def open_session(self, session: ReviewStore, path: str | None = None,
                     case_id: str | None = None) -> None:
        self.opener.open_session(session, path, case_id)

    def open_dataset(self, dataset: Dataset, path: str | None = None,
                     case_id: str | None = None, citation: int | None = 0,
                     session: ReviewStore | None = None) -> None:
        self.opener.open_dataset(dataset, path, case_id, citation, session)

    def recent_files(self) -> list[str]:
        return self.opener.recent_files()

    def _show_advance_override(self, on: bool) -> None:
        """The menu shows ``--no-advance`` without remembering it as the setting."""
        action = self.review.advance_action
        action.blockSignals(True)
        action.setChecked(on)
        action.blockSignals(False)

    # ------------------------------------------------------------------------------ review

    def _blind_set(self, on: bool) -> None:
        self.citations_model.blind = on  # its hints and findings

    def blind_changed(self) -> None:
        """Blind mode toggled: hide or show lint findings and hints everywhere."""
        blind = self.review.blind
        self.citations_table.setColumnHidden(CitationsModel.HINT_COLUMN, blind)
        self.citations_table.setColumnHidden(CitationsModel.DIAGNOSTICS_COLUMN, blind)
        self.filters.fill_case()  # no lint codes to filter by when blind
        self.filters.apply_citations()
        if self.view is not None:
            self.loader.show_case(self.case_index, citation=self.active,
                                  source=self.active_source)
        self.review_views.show_progress()

    def shown_diagnostics(self) -> list[Diagnostic]:
        """Answer diagnostics the panes show: none in blind mode."""
        if self.view is None or self.review.blind:
            return []
        return list(self.view.diagnostics)

    # ------------------------------------------------------------------------------ view

    # The view modes live in view_modes.py; these are their window-level names.

    @property
    def raw_mode(self) -> bool:
        return self.modes.raw_mode

    @property
    def zoom(self) -> int:
        return self.modes.zoom

    @property
    def side_by_side(self) -> SideBySide:
        return self.modes.side_by_side

    def set_raw_mode(self, raw: bool) -> None:
        self.modes.set_raw_mode(raw)

    def set_side_by_side(self, on: bool) -> None:
        self.modes.set_side_by_side(on)

    def set_zoom(self, step: int) -> None:
        self.modes.set_zoom(step)

    def refresh_raw(self) -> None:
        self.modes.refresh_raw()

    def show_raw_active(self) -> None:
        self.modes.show_raw_active()

    def keyPressEvent(self, ev: QKeyEvent) -> None:  # noqa: N802
        if ev.key() == Qt.Key.Key_Escape and self.modes.presenting:
            self.modes.set_presenting(False)
            return
        super().keyPressEvent(ev)
