"""The review session open in the window: opening it, the annotator, Save As, where it lives.

Opening an input opens (or creates) its session (:mod:`citeview.session.location`); when another
citeview has it, the user may look at it read-only. The annotator's name is asked once and kept
in the settings. :attr:`ReviewSession.attached` tells the window that another session (or none)
is reviewed; :attr:`ReviewSession.changed` passes on every change committed to it (an edit, its
undo, an adjudication), so every view repaints the same way whatever made the change.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtWidgets import QWidget

from citeview.core.datasets import Dataset, JsonlDataset
from citeview.core.errors import InputError
from citeview.gui import dialogs, message, ops
from citeview.gui.elided import QtElidedLabel
from citeview.gui.ops import AfterPaint, BackgroundOp
from citeview.gui.session_adapter import SessionAdapter
from citeview.session import location
from citeview.session.errors import SessionInUse
from citeview.session.location import open_review_session
from citeview.session.protocol import ReviewStore, SessionBackend

ANNOTATOR_KEY = "review/annotator"
SESSION_WORK = "session"  # the key of the op making a new input's session
SESSION_LANE = "session"  # its worker thread


FOLLOW_MS = 1000  # how often a read-only window looks for the writer's changes



def usable(session: ReviewStore) -> bool:
    """Whether the settings every view reads (labels, families, blind) can be read; if not,
    the session is closed and why told, before any view reads them (a damaged ``labels`` meta
    was a traceback from a slot)."""
    try:
        session.labels, session.families, session.blind  # noqa: B018
    except InputError as err:
        session.close()
        message.error(str(err))
        return False
    return True

@dataclass(slots=True)
class Made:
    """A session made in the worker: where, from which cases, the input's stamp when read,
    and the case ids in order with each one's position. ``cases`` is None (and so are the
    ids) when another process read the input: this one never indexed it, and the session
    answers by query as when it is reopened (its count stored with its cases)."""

    path: str
    cases: Dataset | None
    stamp: list[int] | None
    ids: list[str] | None
    positions: dict[str, int] | None


class _InputChanged(Exception):
    """The input changed between being read and its session being made from it."""


class ReviewSession(QObject):
    attached = Signal(object)  # the Session now reviewed, or None
    changed = Signal(object)  # a citeview.session.events.Change, after it was committed
    followed = Signal()  # read-only: another citeview changed the session; views read again
    recount = Signal()  # whose verdicts are shown changed (another annotator): views read again
    remake = Signal(str)  # this input changed while its session was made: open it again
    detaching = Signal()  # the session is about to be let go: write what waits (a done case)

    def __init__(self, settings: QSettings, synchronous: bool, sessions: SessionBackend,
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.settings = settings
        self.synchronous = synchronous  # snapshot mode: made here, never asked
        self.sessions = sessions  # where review sessions live (the entry point chose)
        self.session: ReviewStore | None = None
        self.adapter: SessionAdapter | None = None
        self.where = ""  # where the session lives, for the label
        self._follow = QTimer(self)  # read-only: follow the window that writes
        self._follow.setInterval(FOLLOW_MS)
        self._follow.timeout.connect(self.follow_now)
        # Ask the annotator's name (a dialog where one can be answered; tests replace it).
        self.prompt_annotator: Callable[[], str | None] = (
            lambda: dialogs.back_to(parent, dialogs.ask_annotator(parent)) if self.can_ask()
            else None)
        # Another process has the session: True opens it read-only (a dialog; tests replace it).
        self.ask_in_use: Callable[[str], dialogs.InUse] = (
            lambda text: dialogs.session_in_use(parent, text) if self.can_ask()
            else dialogs.InUse.CANCEL)
        self.in_use: str | None = None  # why the last open found no session to review
        # A session just made, attached, whose case list is listed at the next turn of the
        # event loop (the window's opener sets and clears it).
        self.handing_over: ReviewStore | None = None
        self.label = QtElidedLabel(share=0.12)  # the session's file name; where it is on hover
        # Making a session, until started.
        self._start_later: BackgroundOp[Made] | None = None
        self._after_paint = AfterPaint(self.start_making, self)

    # ------------------------------------------------------------------ the annotator

    def can_ask(self) -> bool:
        """Whether a modal dialog can be answered here: not in a snapshot, not offscreen."""
        return not self.synchronous and dialogs.can_ask()

    @property
    def annotator(self) -> str:
        return str(self.settings.value(ANNOTATOR_KEY, "") or "")

    def ask_before_review(self) -> None:
        """A review is about to start (an input is opened, before its first case shows): ask
        the annotator's name now if none is kept, never later in the middle of typing
        verdicts (a name box opened by the first verdict key took the keys typed after it).
        Cancelled: the review goes on, and verdict keys say a name is needed."""
        if not self.annotator:
            self.ensure_annotator()

    def has_annotator(self) -> bool:
        """Whether verdicts can be recorded under a name (asks nothing)."""
        name = self.annotator
        if name and self.session is not None:
            self.session.annotator = name
        return bool(name)

    def ensure_annotator(self) -> bool:
        """Ask the annotator's name once (kept in QSettings); False when they cancel."""
        if self.annotator:
            if self.session is not None:
                self.session.annotator = self.annotator
            return True
        name = self.prompt_annotator()
        if not name:
            return False
        self.set_annotator(name)
        return True

    def set_annotator(self, name: str) -> None:
        """Review as ``name`` from now on: progress, case states and chips are this
        annotator's (counted again when the name changes)."""
        self.settings.setValue(ANNOTATOR_KEY, name)
        self.settings.sync()
        if self.session is not None and self.session.annotator != name:
            self.session.annotator = name
            self.recount.emit()

    # ------------------------------------------------------------------ opening and closing

    def open_for(self, path: str, dataset: Dataset) -> ReviewStore | None:
        """The session of an input, or None (the reason told) when it cannot be opened."""
        self.in_use = None
        try:
            session, where = open_review_session(path, dataset, self.annotator,
                                                 backend=self.sessions)
        except SessionInUse as err:
            choice = self.ask_in_use(str(err))
            if choice is dialogs.InUse.RETRY:
                return self.open_for(path, dataset)
            if choice is dialogs.InUse.CANCEL:
                self.in_use = str(err)
                return None
            try:
                session, where = open_review_session(path, dataset, self.annotator,
                                                     readonly=True, backend=self.sessions)
            except InputError as err2:
                message.error(str(err2))
                return None
            session.message = session.message or "open in another citeview: read-only here"
        except InputError as err:
            message.error(str(err))
            return None
        except OSError as err:
            message.error(f"{path}: cannot keep a review session ({err.strerror or err})")
            return None
        if not usable(session):
            return None
        self.where = where
        return session

    def open_unchanged(self, input_path: str) -> ReviewStore | None:
        """The session of ``input_path`` when its input is as it was when they last matched
        (reopening a million cases reads none of them); None when there is none, the input
        changed, or it cannot be opened here as it is (:meth:`open_for` then says why)."""
        try:
            found = location.open_unchanged(input_path, self.annotator, backend=self.sessions)
        except (InputError, OSError):
            return None
        if found is None:
            return None
        session, where = found
        if not usable(session):
            return None
        self.where = where
        return session

    def make_later(self, input_path: str, dataset: Dataset,
                   ready: Callable[[ReviewStore, Dataset | None], None],
                   whole: Callable[[], Dataset] | None = None) -> bool:
        """The first opening of an input: its session is made in a worker thread of its own
        (the window shows the input meanwhile), then opened here and handed to ``ready`` with
        the dataset it was made from: ``whole()`` read there when the window shows only a part
        (the first record of a big JSONL file), else ``dataset``. False when there is a session
        already (or the input is one): :meth:`open_for` opens it."""
        if getattr(dataset, "kind", "") == "session" or self.synchronous:
            return False  # a snapshot has no event loop to wait in: open_for makes it now
        path, where = location.session_location(input_path)
        if self.sessions.exists(path):
            return False
        source = os.path.abspath(input_path)
        read = [dataset]  # what was read of the input (and the whole input, once read)

        def make() -> Made:
            stamp = location.input_stamp(input_path)  # before reading: a change after is seen
            if whole is None and dataset.stale():
                raise _InputChanged  # what was indexed is not in the file any more
            cases = whole() if whole is not None else dataset
            read.append(cases)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            self.sessions.create_file(path, cases, source=source)
            if isinstance(cases, JsonlDataset) and not cases.indexed:
                return Made(path, None, stamp, None, None)  # read by another process
            # The ids in order, and each one's position, listed here: not on the GUI thread.
            ids = cases.case_ids()
            return Made(path, cases, stamp, ids, {cid: i for i, cid in enumerate(ids)})

        def made(result: Made) -> None:
            self.label.setText("")  # (the session's name once it is attached)
            cases = result.cases
            try:
                session = self.sessions.open(result.path, annotator=self.annotator)
                if result.ids is not None and result.positions is not None:
                    session.adopt_case_ids(result.ids, result.positions)
                location.stamp_session(session, result.stamp)
            except InputError as err:
                message.error(str(err))
                return
            if not usable(session):
                return
            self.where = where
            ready(session, cases)

        def failed(err: Exception) -> None:
            self.label.setText("")
            if isinstance(err, _InputChanged) or any(d.stale() for d in read):
                # Rewritten while it was read (a stale index reads broken records): not a
                # fault of the file; its session is made again from what it is now.
                message.info(f"{os.path.basename(input_path)} changed while its review session "
                             "was made: making it again", 5000)
                self.remake.emit(input_path)
                return
            what = err.strerror if isinstance(err, OSError) and err.strerror else err
            message.error(f"{input_path}: cannot keep a review session ({what})"
                          if isinstance(err, OSError) else str(err))

        op = BackgroundOp(self, make, key=SESSION_WORK).success(made).failure(failed)
        # Started once the first case is shown: copying every case must not slow down the
        # first paint (the copy holds the GIL now and then).
        self._start_later = op
        # Said where the session's name goes: a big input takes seconds, and until then the
        # review keys do nothing.
        self.label.setText("making the review session\u2026")
        self.label.set_detail("Every case of the input is copied into its review session file; "
                              "the review keys work once it is made.")
        return True

    def start_making(self) -> None:
        """Start making the session :meth:`make_later` prepared (the first case is shown)."""
        op, self._start_later = self._start_later, None
        if op is not None:
            op.run(lane=SESSION_LANE)

    def start_making_soon(self) -> None:
        """:meth:`start_making` once the first case is painted: copying every case holds the
        GIL now and then."""
        if self._start_later is not None:
            self._after_paint.request()

    def making(self) -> bool:
        """Whether the session of the input shown is still being made (or handed over: its
        case list not listed yet, see :attr:`handing_over`)."""
        return (self._start_later is not None or ops.pending(self, SESSION_WORK)
                or self.handing_over is not None)

    def attach(self, session: ReviewStore | None) -> None:
        """Review ``session`` (None: no review, e.g. a snapshot); closes the previous one."""
        if session is not None:
            self._start_later = None
        if session is self.session:
            return
        self.detach()
        self.session = session
        if session is None:
            self.label.setText("")
        else:
            session.annotator = self.annotator
            self.adapter = SessionAdapter(session, self)
            self.adapter.changed.connect(self.changed)
            self.show_where()
            if session.readonly:
                session.changed_elsewhere()  # the version seen now
                self._follow.start()
        self.attached.emit(session)

    def follow_now(self) -> bool:
        """A read-only session: take in what the writing window committed meanwhile (polled
        every :data:`FOLLOW_MS`, and on Reload). Returns whether anything changed."""
        s = self.session
        if s is None or not s.readonly or s.closed or not s.changed_elsewhere():
            return False
        self.followed.emit()
        return True

    def detach(self) -> None:
        """Stop reviewing: the session is closed (every verdict is already committed: an
        edit put off until a paint is written on ``detaching``)."""
        if self.session is not None:
            self.detaching.emit()
        self._follow.stop()
        if self.adapter is not None:
            self.adapter.detach()
            self.adapter = None
        session, self.session = self.session, None
        if session is not None:
            try:
                session.close()
            except InputError as err:  # e.g. a full disk: told, never a traceback
                message.error(str(err))

    def close(self) -> None:
        """The window closes: release the session and its lock."""
        self.attach(None)

    def save_as(self, path: str) -> None:
        """Continue in a copy made with SQLite's backup API."""
        if self.session is None:
            return
        try:
            self.session.save_as(path)
        except InputError as err:
            message.error(str(err))
            return
        self.where = "saved as"
        self.show_where()
        message.info(f"Session saved as {path}: the review goes on in it", 10000)

    def show_where(self) -> None:
        """The label: the session's file name, where it is, read-only; its message told."""
        s = self.session
        if s is None:
            return
        usual = ("", "opened", "beside the input")
        where = f" ({self.where})" if self.where not in usual else ""
        text = os.path.basename(s.path) + where  # never an empty "()"
        if s.readonly:
            text += " \u00b7 READ-ONLY"
        self.label.setText(text)
        self.label.set_detail(s.path + (f"\n{s.message}" if s.message else ""))
        if s.message:
            message.warning(s.message, 10000)


__all__ = ["ANNOTATOR_KEY", "SESSION_LANE", "SESSION_WORK", "ReviewSession"]
