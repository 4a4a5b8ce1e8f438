"""Opening an input: a file (any format; a JSONL file's first case shown at once), a dataset, a
session; the session made or opened for it, the case list filled, the recent files.

:class:`InputOpener` sets the :class:`~citeview.gui.window_state.WindowState`'s dataset and
input, fills the case list and asks the case loader for the first case; ``sessionMade`` tells
the window that the review of the input shown has started.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMenu, QWidget

from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.gui import message, ops
from citeview.gui.navigation import select_row
from citeview.gui.ops import BackgroundOp
from citeview.gui.tables import fit_columns
from citeview.gui.untrusted import menu_text, safe_title
from citeview.session import location
from citeview.session.pg.address import is_address
from citeview.session.protocol import ReviewStore, SessionBackend, SessionDataset
from citeview.session.routed import NO_MORE, RoutedStore

if TYPE_CHECKING:
    from citeview.core.inputs import InputLoaders
    from citeview.gui.advance import Advancer
    from citeview.gui.case_loader import CaseLoader
    from citeview.gui.panes import Panes
    from citeview.gui.progress import ProgressTracker
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.watcher import InputWatcher
    from citeview.gui.window_state import WindowState

MAX_RECENT = 10
# A JSON case file this big, opened for the first time, has its answer drawn before it is read
# whole (decoding and checking 17 MB of JSON took as long as drawing a 10,000-chip answer).
EARLY_ANSWER_BYTES = 4 << 20
READ_WORK = "read"  # the key of the op reading such a file after its answer is drawn
FILE_FILTER = ("Cases, datasets, transcripts, sessions (*.json *.jsonl *.ndjson *.txt *.md "
               "*.citeview);;All files (*)")
# The case list's id and state columns take at most these parts of it: its question (the last
# column) stays readable in a narrow list.
CASE_COLUMN_SHARES = {1: 0.24, 2: 0.24}


def failure_message(path: str, err: Exception) -> str:
    """What is told when ``path`` cannot be opened."""
    if isinstance(err, InputError):
        return str(err)
    if isinstance(err, OSError):
        return f"{path}: {err.strerror or err}"
    return f"cannot open {path}: {type(err).__name__}: {err}"


class InputOpener(QObject):
    sessionMade = Signal()  # the input shown is reviewed in its session, made just now

    def __init__(self, state: WindowState, panes: Panes, cases_box: QWidget,
                 review_session: ReviewSession, watcher: InputWatcher, loader: CaseLoader,
                 advance: Advancer, progress: ProgressTracker, settings: QSettings,
                 synchronous: bool, sessions: SessionBackend, loaders: InputLoaders,
                 window: QWidget) -> None:
        super().__init__(window)
        self.state = state
        self.panes = panes
        self.cases_box = cases_box  # the case list's box: shown for more than one case
        self.review_session = review_session
        self.watcher, self.loader = watcher, loader
        self.advance, self.progress = advance, progress
        self.settings = settings
        self.synchronous = synchronous  # snapshot mode: the whole input read at once
        # Where sessions live and the readers of binary inputs: the entry point's choice.
        self.sessions, self.loaders = sessions, loaders
        self.window = window  # the file dialog's parent
        # A long case list is listed in pieces: the shown case's row selected once it is there.
        panes.cases_model.listed.connect(self._select_shown_row)

    def open_dialog(self) -> None:
        start = os.path.dirname(self.state.path) if self.state.path else ""
        path, _ = QFileDialog.getOpenFileName(self.window, "Open", start, FILE_FILTER)
        if path:
            self.open_path(path)

    def open_path(self, path: str, case_id: str | None = None) -> bool:
        """Open any input format; errors are told. Returns True on success (a big case file
        whose answer is drawn first: once drawn; the input is read after its paint, and a
        failure to open it then is told as any)."""
        # A big file opened before and still being read is not opened over this one.
        ops.cancel(self, READ_WORK)
        dropped = self.loader.cancel_early()
        if case_id is None and self._answer_early(path):
            return True
        opened = self._open_now(path, case_id)
        if not opened and dropped:
            self.loader.forget_early()  # (its answer drawn must not stay)
        return opened

    def _answer_early(self, path: str) -> bool:
        """A big JSON case file opened for the first time: its answer, read ahead of the rest
        (:func:`~citeview.core.files.peek_json_member`), drawn and painted before the file is
        read and checked whole, then opened as any input. False when it is not such a file."""
        from citeview.core.datasets import named_jsonl
        from citeview.core.files import max_input_bytes, peek_json_member
        from citeview.core.inputs import load_input

        if self.synchronous or named_jsonl(path):  # (a JSONL file shows its first line first)
            return False
        try:
            if (not os.path.isfile(path)
                    or not EARLY_ANSWER_BYTES <= os.path.getsize(path) <= max_input_bytes()
                    or self.sessions.exists(location.session_location(path)[0])):
                return False
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return False
        answer = peek_json_member(data, "answer")
        if answer is None:
            return False

        def opened(dataset: Dataset) -> None:
            if self.open_input(dataset, path):
                self._add_recent(path)
            else:
                self.loader.forget_early()

        def failed(err: Exception) -> None:
            message.error(failure_message(path, err))
            self.loader.forget_early()

        def then() -> None:
            # Read in the worker: the answer drawn stays on screen (and its window answers)
            # while the file is decoded and checked.
            (BackgroundOp(self, lambda: load_input(path, self.loaders), key=READ_WORK)
             .success(opened).failure(failed).run())

        self.loader.draw_early(answer, then)
        return True

    def _open_now(self, path: str, case_id: str | None) -> bool:
        from citeview.core.inputs import load_input

        if is_address(path):  # a project on a server: its cases, reviewed there
            try:
                project = SessionDataset(self.sessions.open(path, readonly=True))
            except InputError as err:
                message.error(str(err))
                return False
            if not self.open_input(project, path, case_id):
                return False
            self._add_recent(path)
            return True
        if not self.synchronous:
            session = self.review_session.open_unchanged(path)
            if session is not None:
                # Its session holds the input as it is: reviewed at once, the input not read.
                self.state.input_dataset = None
                self.open_session(session, path=path, case_id=case_id)
                self._add_recent(path)
                return True
        try:
            first = self._first_record(path, case_id)
            if first is not None:
                # A JSONL file opened for the first time: its first case shows at once; the
                # whole file is read (and its session made) in the session's worker thread.
                if not self.open_input(first, path, case_id,
                                       whole=lambda: load_input(path, self.loaders,
                                                                copy_once=True)):
                    return False
                self._add_recent(path)
                return True
            dataset = load_input(path, self.loaders)
        except (InputError, OSError) as err:
            message.error(failure_message(path, err))
            return False
        if not self.open_input(dataset, path, case_id):
            return False
        self._add_recent(path)
        return True

    def reopen_changed(self, path: str) -> None:
        """``path`` changed while its session was made (the making failed on what it read):
        open it again, on the case shown, if it is still the window's input."""
        if self.state.path and os.path.abspath(self.state.path) == os.path.abspath(path):
            view = self.state.view
            self.open_path(path, case_id=view.case.id if view is not None else None)

    def _first_record(self, path: str, case_id: str | None) -> Dataset | None:
        """The first record of a JSONL input that has no session yet (see open_path)."""
        from citeview.core.datasets import jsonl_first_record

        if case_id is not None or self.synchronous:
            return None
        try:
            if self.sessions.exists(location.session_location(path)[0]):
                return None  # its session is opened, and compared with the whole input
        except OSError:
            return None
        first = jsonl_first_record(path)
        if first is not None:
            from citeview.core.inputs import load_input

            first.reader = lambda: load_input(path, self.loaders)  # a reload reads the whole file
        return first

    def open_input(self, dataset: Dataset, path: str | None = None,
                   case_id: str | None = None,
                   whole: Callable[[], Dataset] | None = None) -> bool:
        """Review ``dataset`` read from ``path`` (default: its own path) in its session
        (created beside it, or in the user data folder); without a path, just show it.
        ``whole``: reads the whole input when ``dataset`` is only its start (the session is
        made from it)."""
        path = path or dataset.path
        if not path:
            self.open_dataset(dataset, path=path, case_id=case_id)
            return True
        self.review_session.ask_before_review()  # before the first case shows
        if self.review_session.make_later(
                path, dataset, lambda s, cases: self._session_made(s, dataset, cases), whole):
            # First opening: the input shows at once; the review starts once its session is
            # made (a worker thread copies every case into it).
            self.state.input_dataset = dataset
            self.open_dataset(dataset, path=path, case_id=case_id)
            if self.state.view is not None or self.state.case_index < 0:
                self.review_session.start_making()  # shown already (or nothing to show)
            self.panes.answer.setFocus()
            return True
        # A .citeview input is the session itself.
        session = self.review_session.open_for(path, dataset)
        if session is None:
            if self.review_session.in_use is None:
                return False
            # Not reviewing here (another citeview has the session), but never an empty
            # window: the input is shown, and opening it again retries.
            self.open_dataset(dataset, path=path, case_id=case_id)
            message.warning(f"Not reviewing here: {self.review_session.in_use} (open the "
                            "input again to retry)", message.KEEP)
            return True
        self.state.input_dataset = dataset if dataset.kind != "session" else None
        self.open_session(session, path=path, case_id=case_id)
        return True

    def open_session(self, session: ReviewStore, path: str | None = None,
                     case_id: str | None = None) -> None:
        """Review ``session``: its cases, resuming at the first case not done (or ``case_id``).
        ``path`` is the input it came from (watched for changes) or the session file."""
        self.review_session.attach(session)
        if case_id is None:
            # Where to resume, and that case's id: two queries (no list of every id).
            first = session.first_not_done()
            count = len(session)
            at = session.ids_between(first if first is not None else count - 1,
                                     first + 1 if first is not None else count)
            if at:
                case_id = at[0]
            if first is None and at:
                message.info("Every case is done", 8000)
        self.advance.land("first")  # resume at the first unjudged citation of that case
        self.open_dataset(session.dataset(), path=path or session.path, case_id=case_id,
                          session=session)
        self.panes.answer.setFocus()  # the review keys, not a filter box, get the first key press

    def open_dataset(self, dataset: Dataset, path: str | None = None,
                     case_id: str | None = None, citation: int | None = 0,
                     session: ReviewStore | None = None) -> None:
        """Show ``dataset`` at ``case_id`` or its first case, with ``citation`` active once the
        case is ready. Without ``session`` there is no review (snapshots, ``citeview open``)."""
        self.review_session.attach(session)
        self.state.set_dataset(dataset)
        if session is None:
            self.state.input_dataset = dataset
        self.state.path = path if path is not None else dataset.path
        self.watcher.watch(dataset)
        # A session's ids are read a page at a time as the list paints them.
        ids = dataset.id_window() if isinstance(dataset, SessionDataset) else dataset.case_ids()
        self.panes.cases_model.set_ids(ids)
        if self.synchronous:
            self.panes.cases_model.list_all()  # (a snapshot has no event loop)
        # The review state column stays hidden until a review session provides states.
        self.panes.cases_table.setColumnHidden(2, self.panes.cases_model.state_of is None)
        self.cases_box.setVisible(len(ids) > 1)
        fit_columns(self.panes.cases_table, 160, CASE_COLUMN_SHARES)
        index = 0
        if case_id is not None:
            try:
                index = dataset.index_of(case_id)
            except KeyError:
                message.error(f"no case with id {safe_title(case_id, 60)!r}; showing the first")
        self.state.set_case_index(-1)
        if not ids:
            self.loader.show_nothing(NO_MORE if isinstance(session, RoutedStore)
                                     else "This input holds no case.")
            return
        self.loader.show_case(index, citation=citation)

    def _select_shown_row(self) -> None:
        if self.state.case_index >= 0:
            select_row(self.panes.cases_table, self.panes.cases_proxy, self.state.case_index)

    def list_cases(self, dataset: Dataset) -> None:
        """The input was read again: the case list shows its cases."""
        self.panes.cases_model.set_ids(dataset.case_ids())
        self.cases_box.setVisible(len(dataset) > 1)

    def _session_made(self, session: ReviewStore, shown: Dataset, cases: Dataset | None) -> None:
        """The session of the input shown is made (from ``cases``, the whole input; None when
        another process read it: then, as when it is reopened, the input is read again only to
        reload it): review in it, keeping the case and citation shown."""
        if self.state.input_dataset is not shown or self.review_session.session is not None:
            session.close()  # another input was opened meanwhile
            return
        self.state.input_dataset = cases
        self.review_session.attach(session)
        made = session.dataset()
        self.state.set_dataset(made)
        self.panes.cases_table.setColumnHidden(2, False)
        # The review column fills in: painted again. (A dataChanged over every row made the
        # sort proxy filter and sort a million rows again, in Python, on this thread.)
        self.panes.cases_table.viewport().update()
        view = self.state.view
        if view is not None:
            session.adopt_case(view.case)
            if view.analysed is not None:
                # The session keeps the analysis shown (made before it existed, under the same
                # numbering): the first verdict does not analyse the case again.
                session.analyser.adopt(view.analysed)
            if view.analysed is not None:
                session.record_sizes(view.case.id, view.analysed.item_counts)
            for i in self.progress.decorate(view):
                self.loader.refresh_citation(i)
            self.progress.show_case(view.case.id)
            self.loader.prefetch_next_soon()  # built ahead under the session's policy now
        # The case list takes the session's cases at the next turn of the event loop: the
        # window answers (and paints) between the two halves of the hand-over.
        self.review_session.handing_over = session
        QTimer.singleShot(0, self, lambda: self._list_made(session, made))

    def _list_made(self, session: ReviewStore, made: SessionDataset) -> None:
        """The second half of :meth:`_session_made`: the case list lists the session's cases
        (only the first record was listed); then the review has started."""
        if self.review_session.handing_over is session:
            self.review_session.handing_over = None
        if self.review_session.session is not session or self.state.dataset is not made:
            return  # another input or session since
        if len(session) != self.panes.cases_model.total():
            ids = made.id_window()
            self.panes.cases_model.set_ids(ids)
            self.cases_box.setVisible(len(ids) > 1)
            fit_columns(self.panes.cases_table, 160, CASE_COLUMN_SHARES)
            select_row(self.panes.cases_table, self.panes.cases_proxy, self.state.case_index)
            self.loader.update_counts()
        self.sessionMade.emit()

    def question_of(self, i: int) -> str:
        """Case ``i``'s question, for the case list (an unreadable case says why)."""
        if self.state.dataset is None:
            return ""
        try:
            return self.state.dataset.get(i).question or ""
        except InputError as err:
            return f"(unreadable: {err})"

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def _add_recent(self, path: str) -> None:
        path = os.path.abspath(path)
        recent = [p for p in self.recent_files() if p != path]
        self.settings.setValue("recent", [path, *recent][:MAX_RECENT])

    def fill_recent(self, menu: QMenu) -> None:
        """File > Open Recent, filled as it opens."""
        menu.clear()
        for path in self.recent_files():
            act = menu.addAction(menu_text(path))
            act.triggered.connect(lambda _=False, p=path: self.open_path(p))
        if menu.isEmpty():
            menu.addAction("(none)").setEnabled(False)


__all__ = ["CASE_COLUMN_SHARES", "FILE_FILTER", "MAX_RECENT", "InputOpener"]
