"""The inspection window: answer, source, sources list, citations table, cases list.

A case's view-model (:func:`citeview.gui.state.build_case_view`) is built in a worker thread;
the window paints at once with a loading note and fills in when the model arrives. Everything
shown comes from the model and the widgets; snapshots read the widgets back
(:meth:`MainWindow.view_state`).

Navigation is a handful of public methods the review workflow (issue 7) binds keys to:
:meth:`activate_citation`, :meth:`next_citation`, :meth:`previous_citation`,
:meth:`show_case`, :meth:`next_case`, :meth:`previous_case`; :attr:`citationChanged` and
:attr:`caseChanged` tell it what is active.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QFileSystemWatcher,
    QItemSelectionModel,
    QModelIndex,
    QSettings,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from citeview.core.errors import InputError
from citeview.gui.answer_view import (
    AnswerView,
    PreparedDocument,
    RawAnswerView,
    prepare_document,
)
from citeview.gui.palette import color_roles
from citeview.gui.state import CaseView, build_case_view, lint_case
from citeview.gui.tables import (
    KEY_ROLE,
    CasesModel,
    CitationsModel,
    FilterProxy,
    SourcesModel,
    fit_columns,
)

MAX_RECENT = 10
FILE_FILTER = ("Cases, datasets, transcripts, sessions (*.json *.jsonl *.ndjson *.txt *.md "
               "*.citeview);;All files (*)")


def safe_title(text: str, limit: int = 80) -> str:
    """Untrusted text for a window title: one line, bounded, no ``[*]`` placeholder."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "\u2026"
    return flat.replace("[*]", "[*][*]")


def _menu_text(text: str) -> str:
    """Untrusted text for a menu item: ``&`` would become a mnemonic."""
    return safe_title(text, 100).replace("&", "&&")


def _needles(raw: str) -> list[str]:
    """Texts to look for in the rendered answer for a raw answer span: the span itself, then
    its first line without Markdown syntax (a whole paragraph rarely renders verbatim)."""
    out = [raw.strip()]
    first = raw.strip().split("\n", 1)[0]
    plain = re.sub(r"^\s*(?:#+|>|[-*+]|\d+[.)])\s+", "", first)
    plain = re.sub(r"[*_`]+", "", plain).strip()
    out.append(plain[:60])
    return [n for n in out if n]


def _source_view_class() -> type[QWidget]:
    from citeview.gui.source_view import QSourceView

    return QSourceView


class MainWindow(QMainWindow):
    citationChanged = Signal(int)  # active citation index, -1 for none
    caseChanged = Signal(int)  # index of the case shown
    viewReady = Signal()  # the case's view-model is shown
    _built = Signal(object, int)  # (CaseView | Exception, generation), from the worker
    _linted = Signal(object, int)  # (diagnostics | Exception, generation), from the worker
    lintReady = Signal()  # lint diagnostics merged into the shown case

    def __init__(self, settings: QSettings | None = None, synchronous: bool = False) -> None:
        super().__init__()
        self.settings = settings if settings is not None else QSettings("citeview", "citeview")
        self.synchronous = synchronous  # build view-models in the GUI thread (snapshots)
        self.dataset: Any = None
        # The dataset as read from the input files (not the session holding its copy): what a
        # reload reads again and whose files are watched.
        self.input_dataset: Any = None
        self.path: str | None = None
        self.case_index = -1
        self.view: CaseView | None = None
        self.active: int | None = None
        self.active_source = 0  # which source of a multi-source citation is shown
        self.raw_mode = False
        self.zoom = 0
        self.errors: list[str] = []
        self.chip_menu: QMenu | None = None  # the last chip context menu shown
        self.error_dialogs = True  # tests turn dialogs off and read self.errors
        self.use_sessions = True  # open_path keeps a review session beside the input
        self._gen = 0
        self._pending: tuple[int | None, int] | None = None  # (citation, source) after load
        self._syncing = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citeview-view")
        self._built.connect(self._on_built)
        self._linted.connect(self._on_linted)
        self.linted = False
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_changed)
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(300)
        self._reload_timer.timeout.connect(self.reload)

        self.setWindowTitle("citeview")
        self.setAcceptDrops(True)
        self._build_ui()
        self._build_menus()
        from citeview.gui.review import ReviewController

        self.review = ReviewController(self)
        self.go_menu.insertAction(self.go_menu.actions()[0], self.review.prev_action)
        self.go_menu.insertAction(self.review.prev_action, self.review.next_action)
        self._restore_settings()

    # ------------------------------------------------------------------------------ layout

    def _build_ui(self) -> None:
        roles = color_roles(self.palette())
        self.cases_model = CasesModel(self)
        self.cases_proxy = FilterProxy(self)
        self.cases_proxy.setSourceModel(self.cases_model)
        self.cases_table = self._table(self.cases_proxy, "cases")
        self.cases_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.cases_table.selectionModel().currentRowChanged.connect(self._on_case_row)

        self.sources_model = SourcesModel(self)
        self.sources_proxy = FilterProxy(self)
        self.sources_proxy.setSourceModel(self.sources_model)
        self.sources_table = self._table(self.sources_proxy, "sources")
        self.sources_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.sources_table.selectionModel().currentRowChanged.connect(self._on_source_row)

        self.citations_model = CitationsModel(self)
        self.citations_proxy = FilterProxy(self)
        self.citations_proxy.setSourceModel(self.citations_model)
        self.citations_table = self._table(self.citations_proxy, "citations")
        self.citations_table.selectionModel().currentRowChanged.connect(self._on_citation_row)

        self.question = QLabel()
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setWordWrap(True)
        self.question.setContentsMargins(12, 8, 12, 6)
        self.question.setStyleSheet(f"color: {roles.css('muted')};")
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.answer = AnswerView()
        self.answer.set_dark(roles.dark)
        self.answer.setAcceptDrops(False)
        self.answer.citationActivated.connect(self._on_chip)
        self.answer.chipMenuRequested.connect(self._chip_menu)
        self.answer.tooltip_for = self._tooltip_for
        self.raw = RawAnswerView()
        self.raw.setAcceptDrops(False)
        self.answer_stack = QStackedWidget()
        self.answer_stack.addWidget(self.answer)
        self.answer_stack.addWidget(self.raw)

        self.find_bar = self._build_find_bar()
        answer_box = QWidget()
        lay = QVBoxLayout(answer_box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.question)
        lay.addWidget(self.answer_stack, 1)
        lay.addWidget(self.find_bar)

        self.source: Any = _source_view_class()()
        self.source.setAcceptDrops(False)

        self.split_panes = QSplitter(Qt.Orientation.Horizontal)
        self.split_panes.setObjectName("panes")
        self.split_panes.addWidget(answer_box)
        self.split_panes.addWidget(self.source)
        self.split_panes.setStretchFactor(0, 1)
        self.split_panes.setStretchFactor(1, 1)

        self.split_right = QSplitter(Qt.Orientation.Vertical)
        self.split_right.setObjectName("right")
        self.split_right.addWidget(self.split_panes)
        self.citations_filter = QComboBox()
        self.citations_filter.setObjectName("citations-filter")
        self.citations_filter.setToolTip("Which citations the table lists (and J/K visit)")
        self.citations_filter.currentIndexChanged.connect(self._apply_citations_filter)
        self.cases_filter = QComboBox()
        self.cases_filter.setObjectName("cases-filter")
        self.cases_filter.setToolTip("Which cases the list shows")
        self.cases_filter.currentIndexChanged.connect(self._apply_cases_filter)
        self.fill_filters(())
        self.cases_box = _boxed(self.cases_table, "Cases", self.cases_filter)
        self.split_right.addWidget(_boxed(self.citations_table, "Citations",
                                          self.citations_filter))
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

        self.counts_label = QLabel()
        self.counts_label.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addPermanentWidget(self.counts_label)
        self.resize(1400, 860)

    def _table(self, model: Any, name: str) -> QTableView:
        t = QTableView()
        t.setObjectName(name)
        t.setModel(model)
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

    def _build_find_bar(self) -> QWidget:
        bar = QWidget()
        lay = QHBoxLayout(bar)
        lay.setContentsMargins(6, 3, 6, 3)
        self.find_edit = QLineEdit()
        self.find_edit.setPlaceholderText("Find")
        self.find_edit.setClearButtonEnabled(True)
        self.find_edit.returnPressed.connect(lambda: self.find_next())
        self.find_scope = QComboBox()
        self.find_scope.addItems(["Answer", "Source", "All cases"])
        prev_btn = QToolButton()
        prev_btn.setText("\u2191")
        prev_btn.setToolTip("Previous match (Shift+F3)")
        prev_btn.clicked.connect(lambda: self.find_next(backward=True))
        next_btn = QToolButton()
        next_btn.setText("\u2193")
        next_btn.setToolTip("Next match (F3)")
        next_btn.clicked.connect(lambda: self.find_next())
        close_btn = QToolButton()
        close_btn.setText("\u2715")
        close_btn.clicked.connect(bar.hide)
        self.find_status = QLabel()
        self.find_status.setTextFormat(Qt.TextFormat.PlainText)
        for w in (self.find_edit, self.find_scope, prev_btn, next_btn, self.find_status):
            lay.addWidget(w)
        lay.addStretch(1)
        lay.addWidget(close_btn)
        bar.hide()
        return bar

    def _action(self, menu: QMenu, text: str, slot: Callable[..., Any],
                shortcut: Any = None, checkable: bool = False) -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            if isinstance(shortcut, list):
                act.setShortcuts(shortcut)
            else:
                act.setShortcut(QKeySequence(shortcut))
        act.setCheckable(checkable)
        act.triggered.connect(slot)
        menu.addAction(act)
        return act

    def _build_menus(self) -> None:
        bar = self.menuBar()
        m = bar.addMenu("&File")
        self._action(m, "&Open\u2026", self.open_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = m.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.save_as_action = self._action(m, "Save Case &As\u2026", self.save_as_dialog,
                                           QKeySequence.StandardKey.SaveAs)
        self._action(m, "&Reload", self.reload, QKeySequence.StandardKey.Refresh)
        m.addSeparator()
        self._action(m, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        m = bar.addMenu("&Edit")
        self._action(m, "&Find\u2026", self.show_find, QKeySequence.StandardKey.Find)
        self._action(m, "Find &Next", lambda: self.find_next(), QKeySequence.StandardKey.FindNext)
        self._action(m, "Find &Previous", lambda: self.find_next(backward=True),
                     QKeySequence.StandardKey.FindPrevious)
        self._action(m, "Find in All &Cases\u2026", lambda: self.show_find(scope=2),
                     "Ctrl+Shift+F")

        m = bar.addMenu("&View")
        self.raw_action = self._action(m, "&Raw Answer", self.set_raw_mode, "Ctrl+R",
                                       checkable=True)
        m.addSeparator()
        self._action(m, "Zoom &In", lambda: self.set_zoom(self.zoom + 1),
                     [QKeySequence(QKeySequence.StandardKey.ZoomIn), QKeySequence("Ctrl+=")])
        self._action(m, "Zoom &Out", lambda: self.set_zoom(self.zoom - 1),
                     QKeySequence.StandardKey.ZoomOut)
        self._action(m, "&Actual Size", lambda: self.set_zoom(0), "Ctrl+0")

        m = bar.addMenu("&Go")
        self.go_menu = m  # the review adds Next/Previous Citation (J/K, F8/Shift+F8)
        self._action(m, "Next &Source of Citation", self.next_source_of_citation, "Ctrl+F8")
        m.addSeparator()
        self._action(m, "Next &Case", self.next_case, "Ctrl+PgDown")
        self._action(m, "Previous C&ase", self.previous_case, "Ctrl+PgUp")
        self._action(m, "&Go to Case\u2026", self.goto_case_dialog, "Ctrl+G")

    # ------------------------------------------------------------------------------ settings

    def _restore_settings(self) -> None:
        s = self.settings
        geometry = s.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        self._splitters_restored = False
        for split in (self.split_main, self.split_right, self.split_left, self.split_panes):
            state = s.value(f"splitters/{split.objectName()}")
            if isinstance(state, QByteArray):
                self._splitters_restored |= split.restoreState(state)
        try:
            self.set_zoom(int(str(s.value("view/zoom", 0))))
        except (TypeError, ValueError):
            self.set_zoom(0)

    def save_settings(self) -> None:
        s = self.settings
        s.setValue("window/geometry", self.saveGeometry())
        for split in (self.split_main, self.split_right, self.split_left, self.split_panes):
            s.setValue(f"splitters/{split.objectName()}", split.saveState())
        s.setValue("view/zoom", self.zoom)
        s.sync()

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def _add_recent(self, path: str) -> None:
        path = os.path.abspath(path)
        recent = [p for p in self.recent_files() if p != path]
        self.settings.setValue("recent", [path, *recent][:MAX_RECENT])

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.recent_files():
            act = self.recent_menu.addAction(_menu_text(path))
            act.triggered.connect(lambda _=False, p=path: self.open_path(p))
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none)").setEnabled(False)

    def showEvent(self, ev: Any) -> None:  # noqa: N802
        super().showEvent(ev)
        self._closed = False
        if not self._splitters_restored:
            # First run: lists take a fifth of the width, the panes share the rest evenly.
            self._splitters_restored = True
            width = max(self.width(), 600)
            left = min(300, width // 5)
            self.split_main.setSizes([left, width - left])
            self.split_panes.setSizes([(width - left) // 2, (width - left) // 2])

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
                self.show_case(self.case_index, citation=self.active, source=self.active_source)

    def closeEvent(self, ev: QCloseEvent) -> None:  # noqa: N802
        self.save_settings()
        self.review.close()  # every verdict is already committed; this releases the lock
        self._reload_timer.stop()  # a file rewritten just now must not reload a closed window
        self._closed = True
        if self._watcher.files():
            self._watcher.removePaths(self._watcher.files())
        self._executor.shutdown(wait=False, cancel_futures=True)
        super().closeEvent(ev)

    # ------------------------------------------------------------------------------ opening

    def show_error(self, message: str) -> None:
        """One-line error in a dialog (plain text: the message may quote model text)."""
        line = " ".join(str(message).split())
        self.errors.append(line)
        self.statusBar().showMessage(line, 10000)
        if self.error_dialogs:
            box = QMessageBox(QMessageBox.Icon.Critical, "citeview", line,
                              QMessageBox.StandardButton.Ok, self)
            box.setTextFormat(Qt.TextFormat.PlainText)
            box.exec()

    def open_dialog(self) -> None:
        start = os.path.dirname(self.path) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open", start, FILE_FILTER)
        if path:
            self.open_path(path)

    def open_path(self, path: str, case_id: str | None = None) -> bool:
        """Open any input format; errors become a dialog. Returns True on success."""
        from citeview.core.inputs import load_input

        try:
            dataset = load_input(path)
        except InputError as err:
            self.show_error(str(err))
            return False
        except OSError as err:
            self.show_error(f"{path}: {err.strerror or err}")
            return False
        if not self.open_input(dataset, path, case_id):
            return False
        self._add_recent(path)
        return True

    def open_input(self, dataset: Any, path: str | None = None,
                   case_id: str | None = None) -> bool:
        """Review ``dataset`` read from ``path`` (default: its own path) in its session
        (created beside it, or in the user data folder); without sessions, just show it."""
        path = path or getattr(dataset, "path", None)
        if not self.use_sessions or not path:
            self.open_dataset(dataset, path=path, case_id=case_id)
            return True
        session = self.review.open_for(path, dataset)  # a .citeview input is the session itself
        if session is None:
            return False
        self.input_dataset = dataset if getattr(dataset, "kind", "") != "session" else None
        self.open_session(session, path=path, case_id=case_id)
        return True

    def open_session(self, session: Any, path: str | None = None,
                     case_id: str | None = None) -> None:
        """Review ``session``: its cases, resuming at the first case not done (or ``case_id``).
        ``path`` is the input it came from (watched for changes) or the session file."""
        self.review.attach(session)
        if case_id is None:
            first = session.first_not_done()
            ids = session.case_ids()
            if first is not None and ids:
                case_id = ids[first]
            elif ids:
                case_id = ids[-1]
                self.statusBar().showMessage("Every case is done", 8000)
        self.open_dataset(session.dataset(), path=path or session.path, case_id=case_id,
                          session=session)
        self.answer.setFocus()  # the review keys, not a filter box, get the first key press

    def open_dataset(self, dataset: Any, path: str | None = None, case_id: str | None = None,
                     citation: int | None = 0, session: Any = None) -> None:
        """Show ``dataset`` (a :class:`citeview.core.formats.Dataset`), at ``case_id`` or its
        first case, with ``citation`` active once the case is ready. Without ``session`` there
        is no review (snapshots, ``citeview open``)."""
        self.review.attach(session)
        self.dataset = dataset
        if session is None:
            self.input_dataset = dataset
        self.path = path if path is not None else getattr(dataset, "path", None)
        self._watch(dataset)
        ids = dataset.case_ids()
        self.cases_model.question_of = self._question_of
        self.cases_model.set_ids(ids)
        # The review state column stays hidden until a review session provides states.
        self.cases_table.setColumnHidden(2, self.cases_model.state_of is None)
        self.cases_box.setVisible(len(ids) > 1)
        fit_columns(self.cases_table, 160)
        index = 0
        if case_id is not None:
            try:
                index = dataset.index_of(case_id)
            except KeyError:
                self.show_error(f"no case with id {safe_title(case_id, 60)!r}; showing the first")
        self.case_index = -1
        if not ids:
            self._gen += 1
            self.view = None
            self.active = None
            self.answer.clear_content("This input holds no case.")
            self.sources_model.set_rows([])
            self.citations_model.set_view(None)
            self.source.show_source(None)
            return
        self.show_case(index, citation=citation)

    def _watched_files(self, dataset: Any) -> list[str]:
        """The input files to watch: all a dataset was read from (plain files: material,
        context, documents and answer), never a session (it changes with each verdict)."""
        source = self.input_dataset if self.input_dataset is not None else dataset
        paths = source.watch_paths() if hasattr(source, "watch_paths") else []
        if self.path and self.path not in paths:
            paths = [self.path]
        return [p for p in paths if os.path.isfile(p) and not p.endswith(".citeview")]

    def _watch(self, dataset: Any) -> None:
        wanted = self._watched_files(dataset)
        stale = [p for p in self._watcher.files() if p not in wanted]
        if stale:
            self._watcher.removePaths(stale)
        new = [p for p in wanted if p not in self._watcher.files()]
        if new:
            self._watcher.addPaths(new)

    def _question_of(self, i: int) -> str:
        try:
            return self.dataset.get(i).question or ""
        except InputError as err:
            return f"(unreadable: {err})"

    def show_case(self, index: int, citation: int | None = 0, source: int = 0) -> None:
        """Show case ``index``; ``citation`` becomes active once its view is ready."""
        if self.dataset is None or not 0 <= index < len(self.dataset):
            return
        try:
            case = self.dataset.get(index)
        except InputError as err:
            self.show_error(str(err))
            return
        self.case_index = index
        self.view = None
        self.active = None
        self._gen += 1
        self._pending = (citation, source)
        self._select_row(self.cases_table, self.cases_proxy, lambda k: k == index)
        self.setWindowTitle(self._title(case.id))
        self.question.setText(case.question or "")
        self.question.setVisible(bool(case.question))
        self.answer.clear_content("Loading\u2026")
        self.statusBar().showMessage("Loading case\u2026")
        self.caseChanged.emit(index)
        gen = self._gen
        dark = color_roles(self.palette()).dark
        font = self.answer.font().toString()
        if self.synchronous:
            self._on_built(self._build_view(case, dark, font), gen)
        else:
            self._executor.submit(self._build_in_worker, case, dark, font, gen)

    def _build_view(self, case: Any, dark: bool,
                    font: str) -> tuple[CaseView, PreparedDocument] | Exception:
        """The view-model and the answer document (both safe to build in the worker)."""
        try:
            view = build_case_view(case, dark=dark, with_lint=False)
            return view, prepare_document(view.html, dark, font)
        except InputError as err:
            return err
        except Exception as err:  # a bug must not leave the window stuck on "Loading"
            return RuntimeError(f"cannot show case {case.id!r}: {type(err).__name__}: {err}")

    def _build_in_worker(self, case: Any, dark: bool, font: str, gen: int) -> None:
        self._built.emit(self._build_view(case, dark, font), gen)

    def _lint(self, case: Any) -> object:
        try:
            return lint_case(case)
        except Exception as err:  # shown as an error, the case stays usable
            return RuntimeError(f"lint failed on case {case.id!r}: {type(err).__name__}: {err}")

    def _lint_in_worker(self, case: Any, gen: int) -> None:
        self._linted.emit(self._lint(case), gen)

    def _on_linted(self, result: object, gen: int) -> None:
        """Second phase: lint diagnostics join the tables, chips and raw view."""
        if gen != self._gen or self.view is None:
            return
        if isinstance(result, Exception):
            self.show_error(str(result))
            return
        if self.review.blind:
            result = None  # blind: the reviewer judges without the linter's opinion
        changed = self.view.apply_lint(result)  # type: ignore[arg-type]
        if changed:
            self.answer.update_chips([self.view.citations[i].chip for i in changed])
        self.citations_model.set_view(self.view)
        fit_columns(self.citations_table)
        if self.active is not None:
            self._syncing = True
            try:
                active = self.active
                self._select_row(self.citations_table, self.citations_proxy,
                                 lambda k: k == ("citation", active))
            finally:
                self._syncing = False
        if self.raw_mode:
            self.raw.set_answer(self.view.case.answer, self._shown_diagnostics())
            self._raw_active()
        else:
            self._raw_stale = True
        self._update_counts()
        self.linted = True
        self.lintReady.emit()

    def _title(self, case_id: str) -> str:
        name = os.path.basename(self.path) if self.path else "demo"
        return f"{safe_title(case_id)} \u2014 {safe_title(name)} \u2014 citeview"

    def is_ready(self) -> bool:
        return self.view is not None

    def _on_built(self, result: object, gen: int) -> None:
        if gen != self._gen:
            return  # a later case was asked for meanwhile
        if isinstance(result, Exception):
            self.answer.clear_content(str(result))
            self.show_error(str(result))
            return
        assert isinstance(result, tuple)
        view, prepared = result
        self.view = view
        claims = [(view.case.answer[s:e], (s, e)) for s, e in (c.claim for c in view.citations)]
        self.answer.set_prepared(prepared, claims)
        judged = self.review.decorate(view)
        if judged:
            self.answer.update_chips([view.citations[i].chip for i in judged])
        if self.raw_mode:
            self.raw.set_answer(view.case.answer, self._shown_diagnostics())
        self._raw_stale = not self.raw_mode
        self.sources_model.set_rows(view.sources)
        self.citations_model.set_view(view)
        fit_columns(self.citations_table)
        fit_columns(self.sources_table, 160)
        self.source.show_source(None)
        self._update_counts()
        pending = self._pending
        self._pending = None
        if pending is not None and pending[0] is not None and view.citations:
            self.activate_citation(min(pending[0], len(view.citations) - 1), pending[1])
        elif view.sources and view.sources[0].source is not None:
            self._show_source_row(view.sources[0])
        self.statusBar().clearMessage()
        self.linted = False
        self.viewReady.emit()
        if self.synchronous:
            self._on_linted(self._lint(view.case), self._gen)
        else:
            self._executor.submit(self._lint_in_worker, view.case, self._gen)

    def _update_counts(self) -> None:
        if self.view is None or self.dataset is None:
            self.counts_label.setText("")
            return
        c = self.view.counts()
        parts = [f"Case {self.case_index + 1}/{len(self.dataset)}",
                 f"{c['citations']} citations", f"{c['problems']} with problems",
                 f"{c['sources']} sources"]
        if c["missing"]:
            parts.append(f"{c['missing']} missing")
        parts.append(f"{c['errors']} errors, {c['warnings']} warnings")
        self.counts_label.setText("  \u00b7  ".join(parts))

    # ------------------------------------------------------------------------------ citations

    def activate_citation(self, index: int, source: int = 0) -> None:
        """Make citation ``index`` (0-based) active: claim highlighted in the answer, its
        ``source``-th source shown with the cited span highlighted and centred."""
        view = self.view
        if view is None or not 0 <= index < len(view.citations):
            return
        cv = view.citations[index]
        n = len(cv.citation.source_ids)
        source = source % n if n else 0
        self.active = index
        self.active_source = source
        self.answer.set_active(index)
        if self.raw_mode:
            self._raw_active()
        sid = cv.citation.source_ids[source] if n else ""
        target = cv.targets[source] if source < len(cv.targets) else None
        src = getattr(target, "source", None)
        if src is None:
            self.source.show_source(None, missing_id=sid)
        else:
            if self.source.shown_source_id() != sid:
                self.source.show_source(src)
                self.source.set_tints(view.cited_spans.get(sid, []))
            self.source.highlight(target)
        self._syncing = True
        try:
            self._select_row(self.citations_table, self.citations_proxy,
                             lambda k: k == ("citation", index))
            self._select_row(self.sources_table, self.sources_proxy,
                             lambda k: k == ("source", sid))
        finally:
            self._syncing = False
        more = f" (source {source + 1} of {n}: {sid})" if n > 1 else ""
        codes = ("" if self.review.blind else
                 "".join(f" \u00b7 {d.code} {d.name}" for d in cv.diagnostics))
        judged = ""
        if self.review.session is not None:
            verdict = cv.verdicts[source] if source < len(cv.verdicts) else None
            n_keys = min(len(self.review.session.labels), 9)
            judged = (f" \u00b7 your verdict: {verdict}" if verdict
                      else f" \u00b7 not judged (keys 1\u2013{n_keys}, N note)")
        self.statusBar().showMessage(
            f"Citation {index + 1}/{len(view.citations)}{more} \u00b7 {cv.status_text}{codes}"
            + judged)
        self.citationChanged.emit(index)

    def refresh_citation(self, index: int) -> None:
        """Redraw citation ``index`` after its state changed (a verdict was set): its chip in
        the answer and its row in the table."""
        if self.view is None or not 0 <= index < len(self.view.citations):
            return
        self.answer.update_chips([self.view.citations[index].chip])
        self.citations_model.refresh_citation(index)

    def next_citation(self) -> None:
        if self.view and self.view.citations:
            i = -1 if self.active is None else self.active
            self.activate_citation(min(i + 1, len(self.view.citations) - 1))

    def previous_citation(self) -> None:
        if self.view and self.view.citations:
            i = len(self.view.citations) if self.active is None else self.active
            self.activate_citation(max(i - 1, 0))

    def next_source_of_citation(self) -> None:
        if self.active is not None:
            self.activate_citation(self.active, self.active_source + 1)

    def _on_chip(self, index: int) -> None:
        # Activating the active multi-source chip again shows its next source.
        if index == self.active:
            self.activate_citation(index, self.active_source + 1)
        else:
            self.activate_citation(index)

    def _chip_menu(self, index: int, pos: Any) -> None:
        if self.view is None or not 0 <= index < len(self.view.citations):
            return
        cv = self.view.citations[index]
        menu = QMenu(self)
        for k, sid in enumerate(cv.citation.source_ids):
            target = cv.targets[k] if k < len(cv.targets) else None
            title = getattr(getattr(target, "source", None), "title", None)
            label = f"{sid} \u2014 {title}" if title else sid
            act = menu.addAction(_menu_text(label))
            act.triggered.connect(lambda _=False, k=k: self.activate_citation(index, k))
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.chip_menu = menu  # what tests and issue 7 inspect
        menu.popup(pos)

    def _tooltip_for(self, index: int) -> list[str]:
        if self.view is None or not 0 <= index < len(self.view.citations):
            return []
        return self.view.citations[index].tooltip_lines(self.review.blind)

    def _on_citation_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        key = current.data(KEY_ROLE)
        if not key:
            return
        if key[0] == "citation":
            self.activate_citation(key[1])
        elif key[0] == "diagnostic" and self.view is not None:
            self.jump_to_diagnostic(key[1])

    def jump_to_diagnostic(self, k: int) -> None:
        """Show answer diagnostic ``k``: its text selected in the raw view (the exact spot), or
        in the rendered answer between the chips around it."""
        assert self.view is not None
        d = self.view.diagnostics[k]
        answer = self.view.case.answer
        self.statusBar().showMessage(f"{d.code} {d.severity.value}: {' '.join(d.message.split())}")
        if self.raw_mode:
            self.raw.set_active([(d.start, max(d.end, d.start + 1), "claim")])
            return
        before = [c for c in self.view.citations if c.citation.start <= d.start]
        lo = self.answer.chip_range(before[-1].index) if before else None
        start = lo[1] if lo else 0
        found = None
        for needle in _needles(answer[d.start:d.end]):
            found = self.answer.find_in_range(needle, start)
            if found is not None:
                break
        if found is not None:
            self.answer.show_range(found)
        elif lo is not None:
            self.answer.show_range(lo)

    def _on_source_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid() or self.view is None:
            return
        key = current.data(KEY_ROLE)
        for row in self.view.sources:
            if key == ("source", row.source_id):
                self._show_source_row(row)
                return

    def _show_source_row(self, row: Any) -> None:
        assert self.view is not None
        if row.source is None:
            self.source.show_source(None, missing_id=row.source_id)
        else:
            self.source.show_source(row.source)
            self.source.set_tints(self.view.cited_spans.get(row.source_id, []))

    @staticmethod
    def _select_row(table: QTableView, proxy: FilterProxy, match: Callable[[Any], bool]) -> None:
        model = proxy.sourceModel()
        for r in range(model.rowCount()):
            if match(model.index(r, 0).data(KEY_ROLE)):
                pi = proxy.mapFromSource(model.index(r, 0))
                if pi.isValid():
                    table.selectionModel().setCurrentIndex(
                        pi, QItemSelectionModel.SelectionFlag.ClearAndSelect
                        | QItemSelectionModel.SelectionFlag.Rows)
                    table.scrollTo(pi)
                return

    # ------------------------------------------------------------------------------ cases

    def _on_case_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        index = current.data(KEY_ROLE)
        if isinstance(index, int) and index != self.case_index:
            self.show_case(index)

    def next_case(self) -> None:
        if self.dataset is not None and self.case_index + 1 < len(self.dataset):
            self.show_case(self.case_index + 1)

    def previous_case(self) -> None:
        if self.dataset is not None and self.case_index > 0:
            self.show_case(self.case_index - 1)

    def goto_case_dialog(self) -> None:
        if self.dataset is None:
            return
        text, ok = QInputDialog.getText(self, "Go to case", "Case id:")
        if ok and text.strip():
            self.goto_case(text.strip())

    def goto_case(self, case_id: str) -> bool:
        try:
            self.show_case(self.dataset.index_of(case_id))
        except KeyError:
            self.show_error(f"no case with id {safe_title(case_id, 60)!r}")
            return False
        return True

    # ------------------------------------------------------------------------------ view

    def set_raw_mode(self, raw: bool) -> None:
        self.raw_mode = bool(raw)
        self.raw_action.setChecked(self.raw_mode)
        if self.raw_mode and self.view is not None and getattr(self, "_raw_stale", True):
            self.raw.set_answer(self.view.case.answer, self._shown_diagnostics())
            self._raw_stale = False
        self.answer_stack.setCurrentWidget(self.raw if self.raw_mode else self.answer)
        if self.raw_mode:
            self._raw_active()

    def _raw_active(self) -> None:
        if self.view is None or self.active is None:
            self.raw.set_active([])
            return
        cv = self.view.citations[self.active]
        c = cv.citation
        self.raw.set_active([(cv.claim[0], cv.claim[1], "claim"), (c.start, c.end, "marker")])

    def set_zoom(self, step: int) -> None:
        old, self.zoom = self.zoom, max(-6, min(12, step))
        self.source.zoom(self.zoom - old)
        for w in (self.answer, self.raw):
            base = getattr(w, "_base_point_size", None)
            font = w.font()
            if base is None:
                base = font.pointSizeF()
                w._base_point_size = base
            font.setPointSizeF(max(5.0, base + self.zoom))
            w.setFont(font)

    def show_find(self, scope: int | None = None) -> None:
        if scope is not None:
            self.find_scope.setCurrentIndex(scope)
        self.find_bar.show()
        self.find_edit.setFocus()
        self.find_edit.selectAll()

    def find_next(self, backward: bool = False) -> bool:
        text = self.find_edit.text()
        if not text:
            return False
        scope = self.find_scope.currentIndex()
        if scope == 0:
            pane = self.raw if self.raw_mode else self.answer
            found = pane.find_text(text, backward)
        elif scope == 1:
            found = self.source.find_text(text, backward)
        else:
            found = self._find_in_cases(text, backward)
        self.find_status.setText("" if found else "Not found")
        return found

    def _find_in_cases(self, text: str, backward: bool) -> bool:
        if self.dataset is None:
            return False
        n = len(self.dataset)
        needle = text.casefold()
        for step in range(1, n + 1):
            i = (self.case_index + (-step if backward else step)) % n
            try:
                case = self.dataset.get(i)
            except InputError:
                continue
            if needle in case.answer.casefold() or needle in (case.question or "").casefold():
                self.show_case(i)
                return True
        return False

    def save_as_dialog(self) -> None:
        """Save As: the review session (a copy made with SQLite's backup API; work continues in
        the copy), or without a session the current case as case JSON."""
        if self.review.session is not None:
            s = self.review.session
            path, _ = QFileDialog.getSaveFileName(self, "Save Session As", s.path,
                                                  "citeview session (*.citeview)")
            if path:
                if not path.endswith(".citeview"):
                    path += ".citeview"
                self.review.save_as(path)
            return
        if self.view is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save Case As", f"{self.view.case.id}.json",
                                              "Case JSON (*.json)")
        if path:
            self.save_case(path)

    def save_case(self, path: str) -> None:
        assert self.view is not None
        try:
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(self.view.case.to_dict(), fh, ensure_ascii=False, indent=2)
                fh.write("\n")
        except OSError as err:
            self.show_error(f"{path}: {err.strerror or err}")

    # ------------------------------------------------------------------------------ reload

    def _on_file_changed(self, path: str) -> None:
        self._reload_timer.start()

    def reload(self) -> None:
        """Re-read the input, keeping the active case (by id) and citation."""
        if not self.path or getattr(self, "_closed", False):
            return
        watched = self._watched_files(self.dataset)
        if not os.path.exists(self.path) or any(not os.path.exists(p) for p in watched):
            self._reload_timer.start()  # being rewritten: try again shortly
            return
        from citeview.core.inputs import load_input

        case_id = self.view.case.id if self.view else None
        citation, source = self.active, self.active_source
        try:
            if self.input_dataset is not None and hasattr(self.input_dataset, "reload"):
                dataset = self.input_dataset.reload()  # plain files: every file, not the answer
            else:
                dataset = load_input(self.path)
        except InputError as err:
            self.show_error(str(err))
            return
        self.input_dataset = dataset
        self._watch(dataset)  # an atomic rewrite drops the watch
        session = self.review.session
        if session is not None and not session.readonly and dataset.kind != "session":
            try:
                session.sync_from(dataset)  # answers changed: annotations re-attached
            except InputError as err:
                self.show_error(str(err))
                return
            dataset = session.dataset()
            self.review._reload_from_session()
        self.dataset = dataset
        self.cases_model.set_ids(dataset.case_ids())
        self.cases_box.setVisible(len(dataset) > 1)
        index = 0
        if case_id is not None:
            try:
                index = dataset.index_of(case_id)
            except KeyError:
                index = min(max(self.case_index, 0), len(dataset) - 1)
        self.show_case(index, citation=citation if citation is not None else 0, source=source)
        self.statusBar().showMessage("Reloaded: the file changed on disk", 5000)

    # ------------------------------------------------------------------------------ drops

    def dragEnterEvent(self, ev: QDragEnterEvent) -> None:  # noqa: N802
        if ev.mimeData().hasUrls() and any(u.isLocalFile() for u in ev.mimeData().urls()):
            ev.acceptProposedAction()

    def dropEvent(self, ev: QDropEvent) -> None:  # noqa: N802
        for url in ev.mimeData().urls():
            if url.isLocalFile():
                self.open_path(url.toLocalFile())
                ev.acceptProposedAction()
                return

    # ------------------------------------------------------------------------------ review

    def _shown_diagnostics(self) -> list[Any]:
        """Answer diagnostics the panes show: none in blind mode."""
        if self.view is None or self.review.blind:
            return []
        return list(self.view.diagnostics)

    def blind_changed(self) -> None:
        """Blind mode toggled: hide or show lint findings and hints everywhere."""
        blind = self.review.blind
        self.citations_table.setColumnHidden(CitationsModel.HINT_COLUMN, blind)
        self.citations_table.setColumnHidden(CitationsModel.DIAGNOSTICS_COLUMN, blind)
        self._apply_citations_filter()
        if self.view is not None:
            self.show_case(self.case_index, citation=self.active, source=self.active_source)

    def fill_filters(self, labels: Any) -> None:
        """Filter choices: all, not yet judged, problems only, and one per verdict label."""
        for combo, first in ((self.citations_filter,
                              [("All citations", "all"), ("Not yet judged", "not judged"),
                               ("Problems only", "problems")]),
                             (self.cases_filter,
                              [("All cases", "all"), ("Not done", "not done"),
                               ("Done", "done"), ("Problems only", "problems")])):
            combo.blockSignals(True)
            combo.clear()
            for text, data in first:
                combo.addItem(text, data)
            for label in labels:
                combo.addItem(f"Verdict: {label}", f"verdict:{label}")
            combo.blockSignals(False)
        self._apply_citations_filter()
        self._apply_cases_filter()

    def set_citations_filter(self, kind: Any) -> None:
        """``"all"``, ``"not judged"``, ``"problems"`` or ``("verdict", label)``."""
        if isinstance(kind, tuple):
            kind = f"verdict:{kind[1]}"
        i = self.citations_filter.findData(kind)
        self.citations_filter.setCurrentIndex(max(i, 0))

    def set_cases_filter(self, kind: Any) -> None:
        """``"all"``, ``"not done"``, ``"done"``, ``"problems"`` or ``("verdict", label)``."""
        if isinstance(kind, tuple):
            kind = f"verdict:{kind[1]}"
        i = self.cases_filter.findData(kind)
        self.cases_filter.setCurrentIndex(max(i, 0))

    def _apply_citations_filter(self, *_: Any) -> None:
        kind = self.citations_filter.currentData()
        review = getattr(self, "review", None)
        blind = bool(review is not None and review.blind)

        def accept(row: Any) -> bool:
            c = row.citation
            if c is None:  # a diagnostic no citation explains
                if blind:
                    return False
                return kind in (None, "all") or (
                    kind == "problems" and row.diagnostic.severity.value == "error")
            if kind == "not judged":
                return not c.verdict
            if kind == "problems":
                return bool(c.problem)
            if isinstance(kind, str) and kind.startswith("verdict:"):
                return kind[8:] in c.verdicts
            return True

        self.citations_proxy.set_row_filter(
            None if kind in (None, "all") and not blind else accept)

    def _apply_cases_filter(self, *_: Any) -> None:
        kind = self.cases_filter.currentData()
        review = getattr(self, "review", None)
        if review is None:
            return
        if kind == "problems":
            review.check_problems()

        def accept(row: Any) -> bool:
            i, cid = row
            state = str(review.case_state(cid).value)
            if kind == "not done":
                return state != "done"
            if kind == "done":
                return state == "done"
            if kind == "problems":
                return bool(review.case_problem(i))
            if isinstance(kind, str) and kind.startswith("verdict:"):
                return bool(review.case_verdict(cid) == kind[8:])
            return True

        self.cases_proxy.set_row_filter(None if kind in (None, "all") else accept)

    # ------------------------------------------------------------------------------ snapshots

    def view_state(self) -> dict[str, Any]:
        """What the widgets show, read back from them (not recomputed from the core)."""
        labels = self.source.highlighted_labels()
        index = self.answer.active()
        return {
            "case": self.view.case.id if self.view else None,
            "case_position": self.case_index + 1,
            "cases": len(self.dataset) if self.dataset is not None else 0,
            "citations": self.answer.chip_count() if self.view else 0,
            "active_citation": index + 1 if index is not None else None,
            "chip": self.answer.chip_text(index) if index is not None else None,
            "claim": self.answer.highlighted_claim(),
            "source_id": self.source.shown_source_id(),
            "source_missing": bool(self.source.is_missing_state()),
            "source_of_citation": self.active_source + 1 if index is not None else None,
            "first_line": labels[0] if labels else None,
            "last_line": labels[1] if labels else None,
            "highlighted_text": self.source.highlighted_text(),
            "raw": self.raw_mode,
            # The review bar: the pressed verdict button of the shown source, and progress.
            "verdict": next((a.text().split(" \u00b7 ", 1)[1]
                             for a in self.review.verdict_actions if a.isChecked()), None),
            "progress": self.review.progress_label.text(),
        }


def _boxed(table: QTableView, title: str, combo: QComboBox) -> QWidget:
    """A table with a one-line header holding its filter."""
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(0)
    head = QHBoxLayout()
    head.setContentsMargins(6, 2, 2, 2)
    label = QLabel(title)
    label.setTextFormat(Qt.TextFormat.PlainText)
    head.addWidget(label)
    head.addStretch(1)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    head.addWidget(combo)
    lay.addLayout(head)
    lay.addWidget(table, 1)
    return box
