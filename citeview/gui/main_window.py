"""The inspection window: answer, source, sources list, citations table, cases list.

The window is the composition root: it lays out the panes and status bar, keeps its settings,
builds its parts with the collaborators each uses and connects their signals; each part is a
module of its own and never sees the window:

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
- :mod:`~citeview.gui.message` carries what the user is told to the status bar,
- :mod:`~citeview.gui.readback` reads the widgets back (snapshots, tests).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QObject, QSettings, Qt
from PySide6.QtGui import (
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeyEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from citeview.core.datasets import Dataset
from citeview.core.diagnostics import Diagnostic
from citeview.core.inputs import InputLoader, InputLoaders
from citeview.gui import dialogs, message
from citeview.gui.answer_view import AnswerView
from citeview.gui.case_actions import CaseActions
from citeview.gui.case_loader import CaseLoader
from citeview.gui.elided import QtElidedLabel
from citeview.gui.filters import Filters
from citeview.gui.find import FindBar
from citeview.gui.menus import WindowMenus
from citeview.gui.message import Message
from citeview.gui.navigation import Navigator
from citeview.gui.opening import CASE_COLUMN_SHARES, InputOpener
from citeview.gui.palette import color_roles
from citeview.gui.panes import Panes
from citeview.gui.progress import ProgressTracker
from citeview.gui.raw_answer_view import RawAnswerView
from citeview.gui.review_repaint import ReviewRepaint
from citeview.gui.review_session import SESSION_LANE, ReviewSession
from citeview.gui.side_by_side import SIDE_BY_SIDE_KEY, SideBySide
from citeview.gui.state import CaseView
from citeview.gui.tables import (
    CasesModel,
    CitationsModel,
    FilterProxy,
    QtRowsDelegate,
    SourcesModel,
    fit_columns,
)
from citeview.gui.view_modes import ViewModes
from citeview.gui.watcher import InputWatcher
from citeview.gui.window_state import WindowState
from citeview.session.loader import session_loader
from citeview.session.protocol import ReviewStore, SessionBackend

if TYPE_CHECKING:
    from citeview.gui.source_view import QtSourceView



def _source_view() -> QtSourceView:
    from citeview.gui.source_view import QtSourceView  # Pygments loads with the first window

    return QtSourceView()




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
        self._messages_connected = False
        self._connect_messages(True)

        self.progress = ProgressTracker(self)
        self.review_session = ReviewSession(self.settings, self.synchronous, self.sessions, self)

        self.setWindowTitle("citeview")
        self.setAcceptDrops(True)
        self._build_ui()
        self.panes = Panes(
            self.answer, self.raw, self.source, self.question, self.counts_label,
            self.cases_table, self.cases_proxy, self.cases_model,
            self.citations_table, self.citations_proxy, self.citations_model,
            self.sources_table, self.sources_proxy, self.sources_model)
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
        self._wire_navigation()
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
        self.review_session.changed.connect(self.review_views.session_changed)
        self.review_session.followed.connect(self.review_views.refresh_review)
        self.review_session.recount.connect(self.review_views.refresh_review)
        self.watcher.synced.connect(self.review_views.refresh_review)
        self.state.blindChanged.connect(self._blind_set)
        self.watcher.reloaded.connect(self.opener.list_cases)
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

    # ------------------------------------------------------------------------------ layout

    def _wire_navigation(self) -> None:
        """The panes' clicks and rows move the navigator; the parts that ask for a case get it
        from the case loader."""
        nav, loader = self.navigator, self.loader
        self.cases_table.selectionModel().currentRowChanged.connect(nav.on_case_row)
        self.sources_table.selectionModel().currentRowChanged.connect(nav.on_source_row)
        self.citations_table.selectionModel().currentRowChanged.connect(nav.on_citation_row)
        self.answer.citationActivated.connect(nav.on_chip)
        self.answer.chipMenuRequested.connect(nav.chip_menu)
        self.answer.tooltip_for = nav.tooltip_for
        for part in (nav, self.find_bar):
            part.caseWanted.connect(lambda index: loader.show_case(index))

    def _build_ui(self) -> None:
        roles = color_roles(self.palette())
        self.cases_model = CasesModel(self)
        self.cases_proxy = FilterProxy(self)
        self.cases_proxy.setSourceModel(self.cases_model)
        self.cases_table = self._table(self.cases_proxy, "cases")
        self.cases_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.cases_table.viewport().installEventFilter(self)  # its columns fit its width

        self.sources_model = SourcesModel(self)
        self.sources_proxy = FilterProxy(self)
        self.sources_proxy.setSourceModel(self.sources_model)
        self.sources_table = self._table(self.sources_proxy, "sources")
        self.sources_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.citations_model = CitationsModel(self)
        self.citations_proxy = FilterProxy(self)
        self.citations_proxy.setSourceModel(self.citations_model)
        self.citations_table = self._table(self.citations_proxy, "citations")

        self.question = QLabel()
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setWordWrap(True)
        self.question.setContentsMargins(12, 8, 12, 6)
        self.question.setStyleSheet(f"color: {roles.css('muted')};")
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.answer = AnswerView()
        self.answer.set_dark(roles.dark)
        self.answer.setAcceptDrops(False)
        self.raw = RawAnswerView()
        self.raw.setAcceptDrops(False)
        self.answer_stack = QStackedWidget()
        self.answer_stack.addWidget(self.answer)
        self.answer_stack.addWidget(self.raw)

        answer_box = QWidget()
        answer_box_lay = lay = QVBoxLayout(answer_box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.question)
        lay.addWidget(self.answer_stack, 1)

        self.source = _source_view()
        self.source.setAcceptDrops(False)
        # A big source fills in pieces from the event loop; a snapshot has no event loop.
        self.source.progressive = not self.synchronous
        self.find_bar = FindBar(self.state, self.answer, self.raw, self.source,
                                lambda: self.raw_mode)
        answer_box_lay.addWidget(self.find_bar)

        self.split_panes = QSplitter(Qt.Orientation.Horizontal)
        self.split_panes.setObjectName("panes")
        self.split_panes.addWidget(answer_box)
        self.split_panes.addWidget(self.source)
        self.split_panes.setStretchFactor(0, 1)
        self.split_panes.setStretchFactor(1, 1)
        self.modes = ViewModes(self.state, self.settings, self.answer, self.raw, self.source,
                               self.answer_stack, self.split_panes, self,
                               self.shown_diagnostics)

        self.split_right = QSplitter(Qt.Orientation.Vertical)
        self.split_right.setObjectName("right")
        self.split_right.addWidget(self.split_panes)
        self.filters = Filters(self.state, self.citations_proxy, self.cases_proxy, self.progress,
                               self.review_session, self)
        self.cases_box = _boxed(self.cases_table, "Cases", self.filters.cases_box)
        # The shown case's counts, in the header of the table they count (in the status bar
        # they were cut short beside the progress and the session: "0...").
        self.counts_label = QtElidedLabel()
        self.counts_label.setContentsMargins(12, 0, 8, 0)
        self.split_right.addWidget(_boxed(self.citations_table, "Citations",
                                          self.filters.citations_box, self.counts_label))
        self.split_right.setStretchFactor(0, 4)
        self.split_right.setStretchFactor(1, 1)

        self.split_left = QSplitter(Qt.Orientation.Vertical)
        self.split_left.setObjectName("left")
        self.split_left.addWidget(self.cases_box)
        self.split_left.addWidget(self.sources_table)
        self.cases_box.hide()

        self.split_main = QSplitter(Qt.Orientation.Horizontal)
        self.split_main.setObjectName("main")
        self.split_main.addWidget(self.split_left)
        self.split_main.addWidget(self.split_right)
        self.split_main.setStretchFactor(0, 0)
        self.split_main.setStretchFactor(1, 1)
        self.split_main.setSizes([300, 1100])
        self.split_right.setSizes([560, 200])
        self.setCentralWidget(self.split_main)

        # Permanent labels that give way: the message on the left always has room.
        self.progress_label = QtElidedLabel(share=0.22)  # the review's progress
        self.progress_label.set_detail(
            "Your progress. A citation counts as judged once each of its sources has your "
            "verdict (\u201ccannot tell\u201d included); Review \u25b8 Summary gives the "
            "report's numbers, per cited source.")
        for label in (self.progress_label, self.review_session.label):
            self.statusBar().addPermanentWidget(label)
        self.resize(1400, 860)

    def _table(self, model: FilterProxy, name: str) -> QTableView:
        t = QTableView()
        t.setObjectName(name)
        t.setModel(model)
        t.setItemDelegate(QtRowsDelegate(model, t))
        t.setSortingEnabled(True)
        t.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setWordWrap(False)
        t.setAlternatingRowColors(True)
        t.setShowGrid(False)
        t.verticalHeader().hide()
        t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 6)
        header = t.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        # Size columns from the first rows only: 10,000 citations must not stall the window.
        header.setResizeContentsPrecision(64)
        t.setAcceptDrops(False)
        return t

    # ------------------------------------------------------------------------------ settings

    def _restore_settings(self) -> None:
        s = self.settings
        geometry = s.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self._fit_screen()
        self._splitters_restored = False
        for split in (self.split_main, self.split_right, self.split_left, self.split_panes,
                      self.side_by_side.splitter):
            state = s.value(f"splitters/{split.objectName()}")
            if isinstance(state, QByteArray):
                self._splitters_restored |= split.restoreState(state)
        try:
            self.set_zoom(int(str(s.value("view/zoom", 0))))
        except (TypeError, ValueError):
            self.set_zoom(0)
        if s.value(SIDE_BY_SIDE_KEY, False) in (True, "true", "1", 1):
            self.set_side_by_side(True)

    def _fit_screen(self) -> None:
        """First start: 1400x860, or what the screen has room for (a 1024x640 display shows
        the whole window, not its left part)."""
        dialogs.fit_to_screen(self, 1400, 860, frame=(0, 0))

    def save_settings(self) -> None:
        s = self.settings
        s.setValue("window/geometry", self.saveGeometry())
        for split in (self.split_main, self.split_right, self.split_left, self.split_panes,
                      self.side_by_side.splitter):
            s.setValue(f"splitters/{split.objectName()}", split.saveState())
        s.setValue("view/zoom", self.zoom)
        s.sync()

    # ------------------------------------------------------------------------------ events

    def showEvent(self, ev: QShowEvent) -> None:  # noqa: N802
        super().showEvent(ev)
        self.watcher.resume()
        self._connect_messages(True)
        if not self._splitters_restored:
            # First run: lists take a quarter of the width (their questions and titles
            # readable), the panes share the rest evenly; the citations table shows 8 rows.
            self._splitters_restored = True
            width = max(self.width(), 600)
            left = min(520, max(220, width * 28 // 100))
            self.split_main.setSizes([left, width - left])
            total = sum(self.split_right.sizes())
            rows = self.citations_table.verticalHeader().defaultSectionSize()
            below = max(total * 3 // 10, 8 * rows + 80)  # (a scroll bar may show)
            if total > 2 * below:
                self.split_right.setSizes([total - below, below])
            # Side by side, the two answers take two thirds (gui/side_by_side).
            answer = (width - left) * 2 // 3 if self.side_by_side.on else (width - left) // 2
            self.split_panes.setSizes([answer, width - left - answer])

    def eventFilter(self, watched: QObject, ev: QEvent) -> bool:  # noqa: N802
        if ev.type() == QEvent.Type.Resize and watched is self.cases_table.viewport():
            fit_columns(self.cases_table, 160, CASE_COLUMN_SHARES)
        return super().eventFilter(watched, ev)

    def changeEvent(self, ev: QEvent) -> None:  # noqa: N802
        super().changeEvent(ev)
        if ev.type() != QEvent.Type.PaletteChange:
            return
        roles = color_roles(self.palette())
        self.question.setStyleSheet(f"color: {roles.css('muted')};")
        for model in (self.cases_model, self.sources_model, self.citations_model):
            model.palette_changed()
        if roles.dark != self.answer.dark:
            # Chips and the answer stylesheet are baked into the HTML: render again.
            self.answer.set_dark(roles.dark)
            if self.view is not None:
                self.loader.show_case(self.case_index, citation=self.active,
                                      source=self.active_source)

    def closeEvent(self, ev: QCloseEvent) -> None:  # noqa: N802
        self.save_settings()
        self.review_session.close()  # every verdict is already committed; this releases the lock
        self.progress.start(None)
        self.watcher.stop()
        self.loader.stop()
        super().closeEvent(ev)
        self._connect_messages(False)

    def dragEnterEvent(self, ev: QDragEnterEvent) -> None:  # noqa: N802
        if ev.mimeData().hasUrls() and any(u.isLocalFile() for u in ev.mimeData().urls()):
            ev.acceptProposedAction()

    def dropEvent(self, ev: QDropEvent) -> None:  # noqa: N802
        for url in ev.mimeData().urls():
            if url.isLocalFile():
                self.open_path(url.toLocalFile())
                ev.acceptProposedAction()
                return

    # ------------------------------------------------------------------------------ messages

    def _connect_messages(self, on: bool) -> None:
        """Show the message bridge's messages while shown (a closed window tells nothing)."""
        if on == self._messages_connected:
            return
        b = message.bridge()
        if on:
            b.shown.connect(self._show_message)
            b.cleared.connect(self._clear_message)
        else:
            b.shown.disconnect(self._show_message)
            b.cleared.disconnect(self._clear_message)
        self._messages_connected = on

    def _show_message(self, m: Message) -> None:
        """In the status bar; an error to acknowledge also in a dialog, where one can be."""
        self.statusBar().showMessage(m.text, m.timeout_ms)
        if m.dialog and self.can_ask():
            dialogs.show_error(self, m.text)

    def _clear_message(self) -> None:
        self.statusBar().clearMessage()

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


def _boxed(table: QTableView, title: str, combo: QComboBox,
           detail: QWidget | None = None) -> QWidget:
    """A table with a one-line header holding its filter (and ``detail`` beside its title)."""
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(0)
    head = QHBoxLayout()
    head.setContentsMargins(6, 2, 2, 2)
    label = QLabel(title)
    label.setTextFormat(Qt.TextFormat.PlainText)
    head.addWidget(label)
    if detail is not None:
        head.addWidget(detail, 1)
    else:
        head.addStretch(1)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    head.addWidget(combo)
    lay.addLayout(head)
    lay.addWidget(table, 1)
    return box
