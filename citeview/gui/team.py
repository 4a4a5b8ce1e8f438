"""The window's side of a team project (:class:`~citeview.session.outbox.OutboxStore`).

- The status bar says whether the server answers and how many edits wait in the outbox; while
  it does not answer (or edits wait) the window tries again every :data:`RETRY_MS`.
- The reviewer's leases are renewed while the window is open and topped up to K cases ahead,
  fetched so they can be reviewed offline (:data:`RENEW_MS`).
- Others' committed changes arrive live: :class:`QtLiveFeed` runs the server's ``LISTEN`` on a
  thread of its own (:class:`~citeview.session.live.LiveFeed`) and posts each change to the GUI
  thread through a queued signal, where the store tells its subscribers (views repaint). A
  lead's window shows each annotator's progress, asked of the store once per burst of
  changes (:meth:`~citeview.session.protocol.ReviewStore.annotator_progress`: one query).
- Closing with edits waiting says so; they stay in the outbox for the next start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QMainWindow

from citeview.gui import dialogs, message
from citeview.gui.untrusted import safe_title
from citeview.session.events import CasesAdded, Change
from citeview.session.live import Heard, LiveFeed
from citeview.session.model import ReviewTally
from citeview.session.outbox import OutboxStatus, OutboxStore
from citeview.session.routed import NO_MORE, RoutedStore, reviewer_counts, takes_handouts
from citeview.session.team_client import AHEAD

if TYPE_CHECKING:
    from citeview.gui.tables import CasesModel

RETRY_MS = 3000  # offline: how often the server is tried again
RENEW_MS = 20_000  # how often the reviewer's leases are renewed and topped up to K ahead
PROGRESS_MS = 500  # the lead's progress is counted at most this often
REPAINT_ROWS = 64  # past this many cases whose reviewers moved, the whole column is repainted


class QtLiveFeed(QObject):
    """A :class:`LiveFeed` whose announcements arrive on the GUI thread as :attr:`heard`."""

    heard = Signal(object)  # a Heard, on the thread this object lives in
    linked = Signal(bool)

    def __init__(self, conninfo: str, project: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Emitted from the feed's thread: Qt queues them to this object's (the GUI) thread.
        self.feed = LiveFeed(conninfo, project, self.heard.emit, on_link=self.linked.emit)

    def start(self) -> None:
        self.feed.start()

    def stop(self) -> None:
        self.feed.stop()


def progress_text(progress: dict[str, ReviewTally]) -> str:
    """Each annotator's progress, by name."""
    return " · ".join(f"{who}: {done} done, {started} in progress"
                      for who, (done, started) in sorted(progress.items()))


class QtTeamLink(QObject):
    """Status, retries, lease renewal, the live feed and the lead's progress of the team
    project open in ``window`` (none of it when the session is a file)."""

    statusShown = Signal(str)  # the outbox status text, as the status bar shows it

    def __init__(self, window: QMainWindow,
                 feed_factory: Callable[[str, str, QObject], QtLiveFeed] | None = None,
                 cases_model: CasesModel | None = None) -> None:
        super().__init__(window)
        self._window = window
        self.store: OutboxStore | None = None
        self._cases_model = cases_model
        self._counts: dict[str, int] = {}
        # What the label shows: (each annotator's progress, whose window it is).
        self._progress: tuple[dict[str, ReviewTally], str] | None = None
        # A routed project: what is left for this reviewer ("no more cases for you").
        self.routing_label = QLabel()
        self.routing_label.setObjectName("teamRouting")
        self.routing_label.setTextFormat(Qt.TextFormat.PlainText)
        self.routing_label.hide()
        window.statusBar().addPermanentWidget(self.routing_label)
        self.status_label = QLabel()
        self.status_label.setObjectName("teamStatus")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.hide()
        self.progress_label = QLabel()
        self.progress_label.setObjectName("teamProgress")
        self.progress_label.setTextFormat(Qt.TextFormat.PlainText)
        self.progress_label.hide()
        window.statusBar().addPermanentWidget(self.progress_label)
        window.statusBar().addPermanentWidget(self.status_label)
        self._unsubscribe: list[Callable[[], None]] = []
        self._retry = QTimer(self)
        self._retry.setInterval(RETRY_MS)
        self._retry.timeout.connect(self.retry_now)
        self._renew = QTimer(self)
        self._renew.setInterval(RENEW_MS)
        self._renew.timeout.connect(self._renew_leases)
        self._count = QTimer(self)
        self._count.setSingleShot(True)
        self._count.setInterval(PROGRESS_MS)
        self._count.timeout.connect(self.show_progress)
        self._feed_factory = feed_factory or (lambda c, p, parent: QtLiveFeed(c, p, parent))
        self.feed: QtLiveFeed | None = None
        self.closing_note: str | None = None  # what closing with edits waiting said

    def attach(self, session: object | None) -> None:
        self.detach()
        if not isinstance(session, OutboxStore):
            return
        self.store = session
        self._unsubscribe = [session.subscribe_status(self._show_status),
                             session.subscribe(self._changed)]
        self._show_status(session.status())
        self.status_label.show()
        self._retry.start()
        self._renew.start()
        if self._cases_model is not None and reviewer_counts(session) is not None:
            self._cases_model.reviewers_of = lambda cid: self._counts.get(cid, 0)
        if (isinstance(session, RoutedStore) and session.online
                and session.first_not_done() is None):
            self.say_no_more()  # nothing handed out at the start either
        if session.live is not None:
            self.feed = self._feed_factory(*session.live, self)
            self.feed.heard.connect(self._heard)
            self.feed.start()
        self.show_progress()

    def detach(self) -> None:
        for stop in self._unsubscribe:
            stop()
        self._unsubscribe = []
        self._retry.stop()
        self._renew.stop()
        self._count.stop()
        if self.feed is not None:
            self.feed.stop()
            self.feed.deleteLater()
            self.feed = None
        self.store = None
        self.status_label.hide()
        self.progress_label.hide()
        self.routing_label.hide()
        self._counts = {}
        self._progress = None
        if self._cases_model is not None:
            self._cases_model.reviewers_of = None

    # ------------------------------------------------------------------ routing

    @property
    def routed(self) -> bool:
        """Whether the window follows the server's routing (an annotator in a project of N
        reviewers per case, or none): its list holds only their own cases."""
        return isinstance(self.store, RoutedStore) and not self.store.closed

    def next_handout(self) -> str | None:
        """The reviewer's next case (one held not done, else the server's next hand-out,
        joined to the case list); None, said plainly, when there is none for them."""
        store = self.store
        if not isinstance(store, RoutedStore) or store.closed:
            return None
        found = store.take_next(AHEAD)
        if found is not None:
            self.routing_label.hide()
            return found
        if not store.online:
            text = ("The server cannot be reached: the cases handed to you are done; more "
                    "are handed out when it is back")
            self.routing_label.setText(text)
            self.routing_label.show()
            message.warning(text, message.KEEP)
            return None
        self.say_no_more()
        return None

    def not_yours(self, text: str) -> str | None:
        """Why case ``text`` cannot be opened here: a case of the project not handed to this
        reviewer (None when it is not one, or the window does not follow routing)."""
        store = self.store
        if not isinstance(store, RoutedStore) or store.closed or store.handed(text):
            return None
        if not store.in_project(text):
            return None
        return (f"case {safe_title(text, 60)!r} is not handed to you: in this project the "
                "server hands out the cases (Ctrl+Enter takes your next one)")

    def say_no_more(self) -> None:
        self.routing_label.setText("No more cases for you")
        self.routing_label.setToolTip(NO_MORE)
        self.routing_label.show()
        message.info(NO_MORE, message.KEEP)

    # ------------------------------------------------------------------ outbox

    def _show_status(self, status: OutboxStatus) -> None:
        text = status.text()
        self.status_label.setText(text)
        self.status_label.setToolTip(status.reason)
        self.statusShown.emit(text)

    def retry_now(self) -> bool:
        """Offline, or edits waiting: try the server again (the timer's job)."""
        store = self.store
        if store is None or store.closed:
            return False
        if store.online and not store.waiting:
            return True
        return store.retry()

    def _renew_leases(self) -> None:
        """Renew the leases and top them up to K ahead (fetched: reviewable offline)."""
        store = self.store
        if store is not None and not store.closed and store.online:
            if takes_handouts(store):
                store.next_cases(AHEAD)
            else:
                store.renew_leases()

    def before_close(self) -> None:
        """The window closes: edits still waiting are said to stay in the outbox."""
        store = self.store
        if store is None or store.closed:
            return
        if store.waiting:
            store.retry()  # one last try
        n = store.waiting
        if n:
            self.closing_note = (
                f"{n} edit{'s' if n != 1 else ''} could not reach the server and "
                f"{'are' if n != 1 else 'is'} kept in the outbox ({store.outbox.path}); "
                "sent when this project is opened again")
            if dialogs.can_ask():
                dialogs.show_error(self._window, self.closing_note)
            else:
                message.warning(self.closing_note)
        self.detach()

    # ------------------------------------------------------------------ live

    def _heard(self, heard: Heard) -> None:
        if self.store is not None and not self.store.closed:
            self.store.heard(heard.change)

    def _changed(self, change: Change) -> None:
        if isinstance(change, CasesAdded) and self.routing_label.isVisible():
            # A case came back to the queue and was handed to this reviewer (the renewal's
            # top-up): "no more cases" is no longer so.
            store = self.store
            if isinstance(store, RoutedStore) and store.first_not_done() is not None:
                self.routing_label.hide()
                message.info("A new case was handed to you (Ctrl+Enter: next case)", 8000)
        if not self._count.isActive():
            self._count.start()

    def _show_reviewers(self, store: OutboxStore, moved: list[str]) -> None:
        """The case list's rows whose count of reviewers moved are painted again (the whole
        column at once when many did)."""
        model = self._cases_model
        if model is None or not model.rowCount() or not moved:
            return
        last = model.rowCount() - 1
        if len(moved) > REPAINT_ROWS:
            model.dataChanged.emit(model.index(0, 2), model.index(last, 2))
            return
        for cid in moved:
            try:
                row = store.index_of(cid)
            except KeyError:
                continue  # not a case of the list (yet)
            if 0 <= row <= last:
                model.dataChanged.emit(model.index(row, 2), model.index(row, 2))

    def show_progress(self) -> None:
        """Each annotator's progress, as far as this window may read it (a lead: everyone)."""
        store = self.store
        if store is None or store.closed:
            return
        if self._cases_model is not None and self._cases_model.reviewers_of is not None:
            counts = reviewer_counts(store)
            if counts is not None and counts != self._counts:
                old, self._counts = self._counts, counts
                self._show_reviewers(store, [cid for cid in old.keys() | counts.keys()
                                             if old.get(cid, 0) != counts.get(cid, 0)])
        progress = store.annotator_progress()  # one query per burst of changes
        if (progress, store.annotator) == self._progress:
            return  # nobody's count moved: the label stays as it is
        self._progress = (progress, store.annotator)
        if not any(who != store.annotator for who in progress):
            self.progress_label.hide()
            return
        self.progress_label.setText(progress_text(progress))
        self.progress_label.show()


__all__ = ["QtLiveFeed", "QtTeamLink", "progress_text"]
