"""Live progress from a team project's server: a thread that ``LISTEN``\\ s and hands each
committed change on.

The server announces every row written (``pg_notify('citeview', ...)`` from a trigger, with the
project, the table, the case and who wrote it). :class:`LiveFeed` keeps a connection of its own
listening, and calls ``on_change`` on its own thread for each change of its project; a window
posts it to the GUI thread (:mod:`citeview.gui.team`), ``team status --follow`` prints again.
When the connection drops it connects again (every ``retry_s``) and then reports a
:class:`~citeview.session.events.MetaChanged`: what was announced meanwhile is lost, so readers
read everything again. No Qt here; psycopg (the ``team`` extra) is imported when started.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass

from citeview.session.events import AnnotationChanged, Change, MetaChanged, ReviewChanged

CHANNEL = "citeview"


@dataclass(slots=True, frozen=True)
class Heard:
    """One announcement: the change for views, who made it (a reviewer, a lead), its table."""

    change: Change
    who: str = ""
    table: str = ""


def heard_of(payload: str, project: str) -> Heard | None:
    """The announcement ``payload`` (JSON) as a :class:`Heard`, or None when it is about
    another project or not understood (a notification is untrusted text too)."""
    try:
        note = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(note, dict) or note.get("project") != project:
        return None
    case_id, table, who = note.get("case_id"), note.get("table"), note.get("who")
    if not isinstance(case_id, str) or not isinstance(table, str):
        return None
    who = who if isinstance(who, str) else ""
    if table == "annotations":
        return Heard(AnnotationChanged(case_id), who, table)
    if table in ("reviews", "assignments"):
        return Heard(ReviewChanged(case_id), who, table)
    return None


class LiveFeed:
    """Listen to ``project``'s announcements on the server at ``conninfo`` (libpq) in a daemon
    thread. ``on_heard`` is called on that thread; ``on_link(True/False)`` when the connection
    is made or lost."""

    def __init__(self, conninfo: str, project: str, on_heard: Callable[[Heard], None], *,
                 on_link: Callable[[bool], None] | None = None, retry_s: float = 1.0,
                 poll_s: float = 0.25) -> None:
        self.conninfo = conninfo
        self.project = project
        self.on_heard = on_heard
        self.on_link = on_link
        self.retry_s = retry_s
        self.poll_s = poll_s
        self.linked = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> LiveFeed:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="citeview-live",
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self, wait_s: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(wait_s)
            self._thread = None

    def _link(self, up: bool) -> None:
        if up == self.linked.is_set():
            return
        if up:
            self.linked.set()
        else:
            self.linked.clear()
        if self.on_link is not None:
            self.on_link(up)

    def _run(self) -> None:
        import psycopg

        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True,
                                     application_name="citeview live") as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._link(True)
                    if not first:
                        self.on_heard(Heard(MetaChanged()))  # missed meanwhile: read again
                    first = False
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=self.poll_s):
                            heard = heard_of(note.payload, self.project)
                            if heard is not None:
                                self.on_heard(heard)
                            if self._stop.is_set():
                                break
            except psycopg.Error:
                self._link(False)
                self._stop.wait(self.retry_s)
        self._link(False)


__all__ = ["CHANNEL", "Heard", "LiveFeed", "heard_of"]
