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
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.gui import dialogs, message
from citeview.gui.elided import QtElidedLabel
from citeview.gui.session_adapter import SessionAdapter
from citeview.session.location import open_review_session
from citeview.session.store import Session, SessionInUse

if TYPE_CHECKING:
    from citeview.gui.main_window import MainWindow

ANNOTATOR_KEY = "review/annotator"


FOLLOW_MS = 1000  # how often a read-only window looks for the writer's changes


class ReviewSession(QObject):
    attached = Signal(object)  # the Session now reviewed, or None
    changed = Signal(object)  # a citeview.session.store.Change, after it was committed
    followed = Signal()  # read-only: another citeview changed the session; views read again

    def __init__(self, win: MainWindow) -> None:
        super().__init__(win)
        self.win = win
        self.session: Session | None = None
        self.adapter: SessionAdapter | None = None
        self.where = ""  # where the session lives, for the label
        self._follow = QTimer(self)  # read-only: follow the window that writes
        self._follow.setInterval(FOLLOW_MS)
        self._follow.timeout.connect(self.follow_now)
        # Ask the annotator's name (a dialog; tests replace it).
        self.prompt_annotator: Callable[[], str | None] = (
            lambda: dialogs.back_to(win, dialogs.ask_annotator(win)))
        # Another process has the session: True opens it read-only (a dialog; tests replace it).
        self.ask_in_use: Callable[[str], dialogs.InUse] = (
            lambda text: dialogs.session_in_use(win, text) if win.can_ask()
            else dialogs.InUse.CANCEL)
        self.in_use: str | None = None  # why the last open found no session to review
        self.label = QtElidedLabel(0.13)  # the session's file name; where it is on hover

    # ------------------------------------------------------------------ the annotator

    @property
    def annotator(self) -> str:
        return str(self.win.settings.value(ANNOTATOR_KEY, "") or "")

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
        self.win.settings.setValue(ANNOTATOR_KEY, name)
        self.win.settings.sync()
        if self.session is not None:
            self.session.annotator = name

    # ------------------------------------------------------------------ opening and closing

    def open_for(self, path: str, dataset: Dataset) -> Session | None:
        """The session of an input, or None (the reason told) when it cannot be opened."""
        self.in_use = None
        try:
            session, where = open_review_session(path, dataset, self.annotator)
        except SessionInUse as err:
            choice = self.ask_in_use(str(err))
            if choice is dialogs.InUse.RETRY:
                return self.open_for(path, dataset)
            if choice is dialogs.InUse.CANCEL:
                self.in_use = str(err)
                return None
            try:
                session, where = open_review_session(path, dataset, self.annotator,
                                                     readonly=True)
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
        self.where = where
        return session

    def attach(self, session: Session | None) -> None:
        """Review ``session`` (None: no review, e.g. a snapshot); closes the previous one."""
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
        """Stop reviewing: the session is closed (every verdict is already committed)."""
        self._follow.stop()
        if self.adapter is not None:
            self.adapter.detach()
            self.adapter = None
        if self.session is not None:
            self.session.close()
        self.session = None

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


__all__ = ["ANNOTATOR_KEY", "ReviewSession"]
