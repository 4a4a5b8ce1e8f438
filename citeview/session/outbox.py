"""Nothing acknowledged is lost: a team project's store behind a local outbox.

:class:`OutboxStore` wraps a store on a server (any :class:`ReviewStore`; in practice the
PostgreSQL one) for one reviewer. Every write gets an op id (a UUID made here) and is put in the
outbox file first (a local SQLite file per project and annotator, in the user data folder:
:func:`outbox_path`), then sent. It counts as saved only once the server's transaction has
committed; then it leaves the outbox. When the server cannot be reached the write stays in the
outbox, the reviewer keeps working on the cases already fetched (those handed out ahead are
fetched with :meth:`OutboxStore.prefetch`) and :meth:`OutboxStore.retry` sends what waits, in
order, when the server is back. A write sent twice (the commit went through, its answer did
not) is stored once: the server keeps each op id once.

The outbox file also keeps a copy of what the reviewer needs offline: the settings, the list of
case ids, the cases fetched and this annotator's own rows of them. Offline reads answer from
that copy, held in a :class:`~citeview.session.memory.MemorySession`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from citeview.core.analysis import AnalysedCase, Analyser
from citeview.core.cases import Case
from citeview.core.corrections import Correction
from citeview.core.datasets import Dataset
from citeview.core.policy import Policy
from citeview.session.errors import ServerUnreachable, SessionError, SessionInUse, one_line
from citeview.session.events import Change, Listener, Subscribers
from citeview.session.jsonio import dumps_json
from citeview.session.location import user_data_dir
from citeview.session.memory import MemoryBackend, MemorySession
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    CaseReview,
    Evidence,
    Reattached,
    ReviewState,
    ReviewTally,
    now_iso,
    prefix_forms,
)
from citeview.session.protocol import ReviewStore, Row, RowChange, SessionDataset, row_event
from citeview.session.row_access import RowReads, RowWrites

_T = TypeVar("_T")


@runtime_checkable
class IdempotentStore(Protocol):
    """A store that keeps each op id once: :meth:`apply` of an op id it already stored
    changes nothing (the server's side of "a verdict sent twice is stored
    once"); :meth:`applied` says whether an op id is stored."""

    def apply(self, changes: Sequence[RowChange], op_id: str | None = None) -> object: ...
    def applied(self, op_id: str) -> bool: ...


def outbox_path(project: str, annotator: str) -> Path:
    """The outbox file of ``annotator`` on ``project`` (a project's address: connection and
    name), in the user data folder. The address is hashed: it may name a host and a user."""
    digest = hashlib.sha256(f"{project}\0{annotator}".encode()).hexdigest()[:16]
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", annotator)[:40] or "annotator"
    return user_data_dir() / "outbox" / f"{readable}-{digest}.sqlite"


# ---------------------------------------------------------------------------- rows as JSON


def _annotation_json(a: Annotation) -> dict[str, Any]:
    k = a.key
    return {"key": [k.case_id, k.number, k.anchor, k.source_id], "annotator": a.annotator,
            "verdict": a.verdict, "note": a.note, "timestamp": a.timestamp, "claim": a.claim,
            "recovered": a.recovered, "orphaned": a.orphaned, "extra": a.extra,
            "reasons": list(a.reasons)}


def _annotation(d: dict[str, Any]) -> Annotation:
    case_id, number, anchor, source_id = d["key"]
    return Annotation(AnnotationKey(case_id, int(number), anchor, source_id), d["annotator"],
                      d["verdict"], d["note"], d["timestamp"], d["claim"], bool(d["recovered"]),
                      bool(d["orphaned"]), dict(d["extra"]), tuple(d.get("reasons") or ()))


def _review_json(r: CaseReview) -> dict[str, Any]:
    return {"case_id": r.case_id, "annotator": r.annotator, "state": r.state.value,
            "verdict": r.verdict, "note": r.note, "timestamp": r.timestamp, "extra": r.extra}


def _review(d: dict[str, Any]) -> CaseReview:
    return CaseReview(d["case_id"], d["annotator"], ReviewState(d["state"]), d["verdict"],
                      d["note"], d["timestamp"], dict(d["extra"]))


def _evidence_json(e: Evidence) -> dict[str, Any]:
    return {"case_id": e.case_id, **e.to_dict()}


def _evidence(d: dict[str, Any]) -> Evidence:
    return Evidence.from_dict(d["case_id"], d)


def _correction_json(c: Correction) -> dict[str, Any]:
    return {"case_id": c.case_id, **c.to_dict()}


def _correction(d: dict[str, Any]) -> Correction:
    return Correction.from_dict(d["case_id"], d)


def change_json(ch: RowChange) -> dict[str, Any]:
    """``ch`` as JSON (how the outbox file keeps a write)."""
    new: dict[str, Any] | None = None
    if isinstance(ch.new, Annotation):
        new = _annotation_json(ch.new)
    elif isinstance(ch.new, CaseReview):
        new = _review_json(ch.new)
    elif isinstance(ch.new, Evidence):
        new = _evidence_json(ch.new)
    elif isinstance(ch.new, Correction):
        new = _correction_json(ch.new)
    key = None if ch.key is None else [ch.key.case_id, ch.key.number, ch.key.anchor,
                                       ch.key.source_id]
    return {"kind": ch.kind, "case_id": ch.case_id, "annotator": ch.annotator, "key": key,
            "orphaned": ch.orphaned, "new": new, "ident": ch.ident}


_ROW_FROM_JSON: dict[str, Callable[[dict[str, Any]], Row]] = {
    "annotation": _annotation, "review": _review, "evidence": _evidence,
    "correction": _correction}


def change_from_json(d: dict[str, Any]) -> RowChange:
    key = None if d["key"] is None else AnnotationKey(d["key"][0], int(d["key"][1]),
                                                      d["key"][2], d["key"][3])
    new = None if d["new"] is None else _ROW_FROM_JSON[d["kind"]](d["new"])
    return RowChange(d["kind"], d["case_id"], d["annotator"], key, bool(d["orphaned"]), new,
                     str(d.get("ident") or ""))


# ---------------------------------------------------------------------------- the file

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pending (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    op_id TEXT NOT NULL UNIQUE,
    changes TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS refused (
    op_id TEXT PRIMARY KEY,
    changes TEXT NOT NULL,
    reason TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS kept (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cases (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    case_id TEXT NOT NULL UNIQUE,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS own_rows (case_id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS own_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    row TEXT NOT NULL UNIQUE,
    case_id TEXT NOT NULL,
    change TEXT NOT NULL
);
"""


def _row_of(ch: RowChange) -> str:
    """Which row ``ch`` writes (the last write of a row is all the copy needs of it)."""
    if ch.kind in ("evidence", "correction"):
        return dumps_json([ch.kind, ch.case_id, ch.ident])
    if ch.kind == "review":
        return dumps_json([ch.kind, ch.case_id, ch.annotator])
    k = ch.key
    assert k is not None
    return dumps_json([ch.kind, ch.case_id, ch.annotator, k.number, k.anchor, k.source_id,
                       ch.orphaned])


@dataclass(slots=True, frozen=True)
class OwnRows:
    """One annotator's rows of one case, as the offline copy keeps them."""

    case_id: str
    annotations: Sequence[Annotation] = ()
    review: CaseReview | None = None
    evidence: Sequence[Evidence] = ()
    corrections: Sequence[Correction] = ()

    def changes(self) -> list[RowChange]:
        """The rows as writes (to put them in the copy)."""
        found = [RowChange("annotation", a.case_id, a.annotator, a.key, a.orphaned, a)
                 for a in self.annotations]
        if self.review is not None:
            found.append(RowChange("review", self.case_id, self.review.annotator, None, False,
                                   self.review))
        found += [RowChange("evidence", e.case_id, e.annotator, e.key, False, e, e.id)
                  for e in self.evidence]
        found += [RowChange("correction", c.case_id, c.annotator, None, False, c, c.id)
                  for c in self.corrections]
        return found


def _rows_json(rows: OwnRows) -> str:
    return dumps_json({"annotations": [_annotation_json(a) for a in rows.annotations],
                       "review": None if rows.review is None else _review_json(rows.review),
                       "evidence": [_evidence_json(e) for e in rows.evidence],
                       "corrections": [_correction_json(c) for c in rows.corrections]})


class Outbox:
    """The outbox file: writes waiting for the server (in order, by op id), writes the server
    refused (kept, never dropped), and the copy of what offline work needs. Every change is
    committed at once (WAL). A write is synced to disk (``synchronous=FULL``) when it is to
    wait for the server (:meth:`add` ``durable``, :meth:`make_durable`); one sent at once is
    not: lost with the machine before the server has it, it was never acknowledged, and sent
    again after the server has it, it is stored once (its op id)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None,
                                        check_same_thread=False, timeout=1.0)
            # One window per project and annotator (a second would send the same waiting
            # writes): the first holds the file's lock until it closes or dies.
            self.conn.execute("PRAGMA locking_mode=EXCLUSIVE")
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.executescript(_SCHEMA)
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("COMMIT")
        except sqlite3.OperationalError as err:
            with contextlib.suppress(Exception):
                self.conn.close()
            if "locked" in str(err):
                raise SessionInUse(f"{self.path}: this project is already open for this "
                                   "annotator in another citeview; close it there") from None
            raise SessionError(f"{self.path}: cannot open the outbox ({one_line(err)})") from None

    def close(self) -> None:
        self.conn.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- writes waiting
    def add(self, op_id: str, changes: Sequence[RowChange], *, durable: bool = True) -> None:
        if durable:
            self.conn.execute("PRAGMA synchronous=FULL")
        try:
            with self._tx() as c:
                c.execute("INSERT INTO pending (op_id, changes, created) VALUES (?, ?, ?)",
                          (op_id, dumps_json([change_json(ch) for ch in changes]), now_iso()))
        finally:
            if durable:
                self.conn.execute("PRAGMA synchronous=NORMAL")

    def make_durable(self) -> None:
        """Sync what is written so far to disk (a write that was to be sent at once waits)."""
        self.conn.execute("PRAGMA synchronous=FULL")
        try:
            with self._tx() as c:  # a commit under FULL syncs the log, earlier commits too
                c.execute("INSERT OR REPLACE INTO kept VALUES ('synced', ?)",
                          (dumps_json(now_iso()),))
        finally:
            self.conn.execute("PRAGMA synchronous=NORMAL")

    def pending(self) -> list[tuple[str, list[RowChange]]]:
        rows = self.conn.execute("SELECT op_id, changes FROM pending ORDER BY seq").fetchall()
        return [(op, [change_from_json(d) for d in json.loads(text)]) for op, text in rows]

    def sent(self, op_id: str, changes: Sequence[RowChange] = ()) -> None:
        """The server has ``op_id``: it leaves; ``changes`` kept in the copy
        (:meth:`keep_changes`) in the same transaction."""
        with self._tx() as c:
            c.execute("DELETE FROM pending WHERE op_id = ?", (op_id,))
            self._keep_changes(c, changes)

    def refuse(self, op_id: str, reason: str) -> None:
        """Move a write the server refused (not one it could not be reached for) aside."""
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO refused SELECT op_id, changes, ?, ? FROM pending "
                      "WHERE op_id = ?", (reason, now_iso(), op_id))
            c.execute("DELETE FROM pending WHERE op_id = ?", (op_id,))

    def waiting(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM pending").fetchone()[0])

    def refused(self) -> list[tuple[str, str]]:
        return [(op, reason) for op, reason in
                self.conn.execute("SELECT op_id, reason FROM refused ORDER BY at")]

    # -- the copy for offline work
    def keep(self, key: str, value: Any) -> None:
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO kept VALUES (?, ?)", (key, dumps_json(value)))

    def kept(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM kept WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def keep_case(self, case_id: str, data: dict[str, Any]) -> None:
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO cases (case_id, data) VALUES (?, ?)",
                      (case_id, dumps_json(data)))

    def cases(self) -> list[tuple[str, dict[str, Any]]]:
        return [(cid, json.loads(data)) for cid, data in
                self.conn.execute("SELECT case_id, data FROM cases ORDER BY seq")]

    def keep_rows(self, rows: OwnRows) -> None:
        """A case's rows as the server has them (the changes kept of it before are in them)."""
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO own_rows VALUES (?, ?)",
                      (rows.case_id, _rows_json(rows)))
            c.execute("DELETE FROM own_changes WHERE case_id = ?", (rows.case_id,))

    def keep_changes(self, changes: Sequence[RowChange]) -> None:
        """Keep written rows in the copy: each row's last write, on top of :meth:`rows`."""
        if not changes:
            return
        with self._tx() as c:
            self._keep_changes(c, changes)

    def _keep_changes(self, c: sqlite3.Connection, changes: Sequence[RowChange]) -> None:
        c.executemany("INSERT OR REPLACE INTO own_changes (row, case_id, change) "
                      "VALUES (?, ?, ?)", [(_row_of(ch), ch.case_id, dumps_json(change_json(ch)))
                                           for ch in changes])

    def changes(self) -> list[RowChange]:
        """The rows written since their case was copied (:meth:`keep_changes`)."""
        return [change_from_json(json.loads(text)) for (text,) in
                self.conn.execute("SELECT change FROM own_changes ORDER BY seq")]

    def rows(self) -> list[OwnRows]:
        found = []
        for cid, text in self.conn.execute("SELECT case_id, data FROM own_rows"):
            d = json.loads(text)
            found.append(OwnRows(
                cid, [_annotation(a) for a in d["annotations"]],
                None if d["review"] is None else _review(d["review"]),
                [_evidence(e) for e in d.get("evidence", [])],
                [_correction(c) for c in d.get("corrections", [])]))
        return found


# ---------------------------------------------------------------------------- the store


@dataclass(slots=True, frozen=True)
class OutboxStatus:
    """What the status bar shows: whether the server answers and how many writes wait."""

    online: bool
    waiting: int
    refused: int = 0
    reason: str = ""

    def text(self) -> str:
        if self.online and not self.waiting:
            said = "saved on the server"
        elif self.online:
            said = f"sending {self.waiting} waiting edit{'s' if self.waiting != 1 else ''}"
        else:
            said = (f"server unreachable, working offline; {self.waiting} "
                    f"edit{'s' if self.waiting != 1 else ''} waiting")
        if self.refused:
            said += f"; {self.refused} refused by the server (kept in the outbox)"
        return said


StatusListener = Callable[[OutboxStatus], None]
_MIRROR = "<outbox copy>"


class OutboxStore(RowWrites, RowReads):
    """A :class:`ReviewStore` for one reviewer on a server's project, with an outbox.

    ``server`` is the open store (None when it could not be opened: the outbox copy is used
    until :meth:`retry` succeeds); ``reconnect`` opens it again after it went away;
    ``offline_errors`` are what a store raises when the server cannot be reached."""

    def __init__(self, server: ReviewStore | None, outbox: Outbox, *, path: str, annotator: str,
                 reconnect: Callable[[], ReviewStore] | None = None,
                 offline_errors: tuple[type[BaseException], ...] = (ServerUnreachable,)) -> None:
        self.path = path
        self._annotator = annotator
        self.readonly = False
        self.message: str | None = None
        self.closed = False
        self.unclean = False
        self.outbox = outbox
        self._server: ReviewStore | None = None
        self._unsubscribe_server: Callable[[], None] | None = None
        self._reconnect = reconnect
        self._offline_errors = offline_errors
        self._subscribers = Subscribers()
        self._status_listeners: list[StatusListener] = []
        self._online = False
        self._reason = "" if server is not None else "the server could not be reached"
        self._kept_cases: set[str] = set()
        # (libpq conninfo, project) of the server's announcements, for a live feed
        self.live: tuple[str, str] | None = None
        self._mirror = self._load_mirror()
        if server is not None:
            self._attach(server)
            self._online = True
            self._refresh_copy()
            self._flush()
        self._status_changed()

    @property
    def annotator(self) -> str:
        return self._annotator

    @annotator.setter
    def annotator(self, name: str) -> None:
        """Whose rows are "own" (the window sets it): the server's and the copy's too."""
        self._annotator = name
        if self._server is not None:
            self._server.annotator = name
            # A server may keep its own idea (an annotator writes as their role only).
            self._annotator = self._server.annotator
        self._mirror.annotator = self._annotator

    # ------------------------------------------------------------------ the copy

    def _load_mirror(self) -> MemorySession:
        """The copy kept in the outbox file, with the writes still waiting applied."""
        meta = self.outbox.kept("meta") or {}
        cases = []
        for cid, data in self.outbox.cases():
            with contextlib.suppress(SessionError):
                cases.append(Case.from_dict(data, cid))
        kwargs: dict[str, Any] = {"name": meta.get("name") or "project"}
        if meta.get("families"):
            kwargs["families"] = meta["families"]
        mirror = MemoryBackend().create(_MIRROR, cases, annotator=self.annotator, **kwargs)
        _copy_settings(meta, mirror)
        self._kept_cases = {c.id for c in cases}
        for own in self.outbox.rows():
            if own.case_id in self._kept_cases:
                self._mirror_apply(mirror, own.changes())
        self._mirror_apply(mirror, self.outbox.changes())
        for _op, changes in self.outbox.pending():
            self._mirror_apply(mirror, changes)
        return mirror

    def _mirror_apply(self, mirror: MemorySession, changes: Sequence[RowChange]) -> None:
        changes = [ch for ch in changes if ch.case_id in self._kept_cases]
        if changes:
            mirror.apply(changes)

    def _refresh_copy(self) -> None:
        """Keep the settings and the case ids for a later offline start."""
        server = self._server
        assert server is not None
        try:
            meta = dict(server.meta)
            ids = server.case_ids()
        except self._offline_errors as err:
            self._went_offline(err)
            return
        self.outbox.keep("meta", meta)
        self.outbox.keep("case_ids", ids)
        _copy_settings(meta, self._mirror)

    def _keep_case(self, case_id: str) -> None:
        """Copy a case and this annotator's rows of it from the server (once a session)."""
        server = self._server
        if case_id in self._kept_cases or server is None:
            return
        try:
            data = server.case_data(case_id)
        except KeyError:
            return  # no such case: the server says so when it is asked for it
        review = server.review(case_id, self.annotator)
        own = OwnRows(case_id, server.annotations(case_id, annotator=self.annotator),
                      None if review.empty else review,
                      server.evidence(case_id, annotator=self.annotator),
                      server.corrections(case_id, annotator=self.annotator))
        self.outbox.keep_case(case_id, data)
        self.outbox.keep_rows(own)
        self._mirror.add_cases([Case.from_dict(data, case_id)])
        self._kept_cases.add(case_id)
        self._mirror_apply(self._mirror, own.changes())

    def _own_changes(self, changes: Sequence[RowChange]) -> list[RowChange]:
        """Of ``changes``, those the copy keeps: this annotator's, of a case it holds."""
        return [ch for ch in changes
                if ch.annotator == self.annotator and ch.case_id in self._kept_cases]

    def _keep(self, case_id: str) -> None:
        """:meth:`_keep_case` when online; an unreachable server is noted, not raised."""
        if self._online and case_id not in self._kept_cases:
            try:
                self._keep_case(case_id)
            except self._offline_errors as err:
                self._went_offline(err)
                self._status_changed()

    def prefetch(self, case_ids: Iterable[str]) -> None:
        """Copy these cases (those handed out ahead) so they can be reviewed offline."""
        for cid in case_ids:
            if not self._online:
                return
            try:
                self._keep_case(cid)
            except self._offline_errors as err:
                self._went_offline(err)

    def next_cases(self, ahead: int = 3) -> list[str]:
        """The cases the server hands this reviewer (K ahead), fetched for offline work; the
        ones fetched before while the server cannot be reached."""
        server = self._server
        take = getattr(server, "next_cases", None)
        if self._online and take is not None:
            try:
                ids: list[str] = list(take(ahead))
            except self._offline_errors as err:
                self._went_offline(err)
            else:
                self.outbox.keep("leased", ids)
                self.prefetch(ids)
                return ids
        return [cid for cid in self.outbox.kept("leased") or [] if cid in self._kept_cases]

    def renew_leases(self) -> int:
        """Keep this reviewer's leases while the window is open (0 when offline)."""
        renew = getattr(self._server, "renew_leases", None)
        if not self._online or renew is None:
            return 0
        try:
            return int(renew())
        except self._offline_errors as err:
            self._went_offline(err)
            self._status_changed()
            return 0

    def heard(self, *changes: Change) -> None:
        """Changes committed by others (the live feed): told to the subscribers."""
        if not self.closed:
            self._subscribers.notify(*changes)

    def available_offline(self, case_id: str) -> bool:
        return case_id in self._kept_cases

    # ------------------------------------------------------------------ server state

    def _attach(self, server: ReviewStore) -> None:
        self._server = server
        server.annotator = self._annotator
        self._annotator = server.annotator
        self._unsubscribe_server = server.subscribe(self._subscribers.notify)

    def _detach(self) -> None:
        if self._unsubscribe_server is not None:
            self._unsubscribe_server()
            self._unsubscribe_server = None
        server, self._server = self._server, None
        if server is not None:
            with contextlib.suppress(Exception):
                server.close()

    def _went_offline(self, err: BaseException) -> None:
        was = self._online
        self._online = False
        self._reason = one_line(err)
        self.message = f"server unreachable ({self._reason}): working offline"
        if self._reconnect is not None:
            self._detach()  # its connection is gone; a new one is made on retry
        if was:
            self._status_changed()

    def ask(self, online: Callable[[ReviewStore], _T], offline: Callable[[], _T]) -> _T:
        """``online(server)`` while the server answers, else ``offline()`` (and the store
        goes offline on the way: the status bar says so, writes wait in the outbox)."""
        server = self._server
        if self._online and server is not None:
            try:
                return online(server)
            except self._offline_errors as err:
                self._went_offline(err)
        return offline()

    @property
    def online(self) -> bool:
        return self._online

    @property
    def waiting(self) -> int:
        """Writes not yet committed on the server."""
        return self.outbox.waiting()

    def status(self) -> OutboxStatus:
        return OutboxStatus(self._online, self.outbox.waiting(), len(self.outbox.refused()),
                            "" if self._online else self._reason)

    def subscribe_status(self, listener: StatusListener) -> Callable[[], None]:
        self._status_listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._status_listeners:
                self._status_listeners.remove(listener)
        return unsubscribe

    def _status_changed(self) -> None:
        status = self.status()
        if status.online:
            self.message = None
        for listener in list(self._status_listeners):
            listener(status)

    def retry(self) -> bool:
        """Reach the server again (reconnecting if need be) and send what waits, in order.
        True when online with nothing waiting."""
        if self.closed:
            return False
        if not self._online:
            try:
                if self._server is None:
                    if self._reconnect is None:
                        return False
                    self._attach(self._reconnect())
                self._online = True
                self._refresh_copy()
            except self._offline_errors as err:
                self._went_offline(err)
                self._status_changed()
                return False
        sent = self._flush()
        self._status_changed()
        return sent

    def _send(self, server: ReviewStore, op_id: str, changes: Sequence[RowChange]) -> None:
        if isinstance(server, IdempotentStore):
            server.apply(changes, op_id=op_id)
        else:
            server.apply(changes)  # a store without op ids: setting a row twice is harmless

    def _flush(self) -> bool:
        """Send the waiting writes, oldest first; stop at the first the server cannot take."""
        for op_id, changes in self.outbox.pending():
            server = self._server
            if not self._online or server is None:
                return False
            try:
                self._send(server, op_id, changes)
            except self._offline_errors as err:
                self._went_offline(err)
                return False
            except SessionError as err:
                self.outbox.refuse(op_id, one_line(err))
                continue
            self.outbox.sent(op_id)
        return self._online

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        """Close; writes still waiting stay in the outbox file for the next start."""
        if self.closed:
            return
        self.closed = True
        self._detach()
        self._mirror.close()
        self.outbox.close()

    def __enter__(self) -> OutboxStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def changed_elsewhere(self) -> bool:
        return self.ask(lambda s: s.changed_elsewhere(), lambda: False)

    def integrity_check(self) -> str:
        return self.ask(lambda s: s.integrity_check(), lambda: "ok")

    def save_as(self, path: str, *, switch: bool = True) -> None:
        raise SessionError(f"{self.path}: a team project lives on its server; export it "
                           "instead of Save As")

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._subscribers.subscribe(listener)

    def _server_only(self) -> ReviewStore:
        if not self._online or self._server is None:
            raise ServerUnreachable(f"{self.path}: needs the server, which cannot be reached "
                                    "now; try again when it is back")
        return self._server

    # ------------------------------------------------------------------ meta

    @property
    def meta(self) -> dict[str, Any]:
        return self.ask(lambda s: s.meta, lambda: dict(self.outbox.kept("meta") or {}))

    @property
    def document_extra(self) -> dict[str, Any]:
        return self.ask(lambda s: s.document_extra, lambda: {})

    @property
    def labels(self) -> tuple[str, ...]:
        return self.ask(lambda s: s.labels, lambda: self._mirror.labels)

    @property
    def families(self) -> tuple[str, ...]:
        return self.ask(lambda s: s.families, lambda: self._mirror.families)

    @property
    def blind(self) -> bool:
        return self.ask(lambda s: s.blind, lambda: self._mirror.blind)

    @property
    def name(self) -> str:
        return self.ask(lambda s: s.name, lambda: self._mirror.name)

    def set_meta(self, key: str, value: Any) -> None:
        self._server_only().set_meta(key, value)

    def set_blind(self, blind: bool) -> None:
        self._server_only().set_blind(blind)

    def set_labels(self, labels: Sequence[str]) -> None:
        self._server_only().set_labels(labels)

    @property
    def reasons(self) -> tuple[str, ...]:
        return self.ask(lambda s: s.reasons, lambda: self._mirror.reasons)

    def set_reasons(self, reasons: Sequence[str]) -> None:
        self._server_only().set_reasons(reasons)

    # ------------------------------------------------------------------ cases

    def _ids_offline(self) -> list[str]:
        ids = self.outbox.kept("case_ids")
        return list(ids) if ids is not None else self._mirror.case_ids()

    def case_ids(self) -> list[str]:
        return self.ask(lambda s: s.case_ids(), self._ids_offline)

    def __len__(self) -> int:
        return self.ask(len, lambda: len(self._ids_offline()))

    def index_of(self, case_id: str) -> int:
        def offline() -> int:
            try:
                return self._ids_offline().index(case_id)
            except ValueError:
                raise KeyError(case_id) from None
        return self.ask(lambda s: s.index_of(case_id), offline)

    def _offline_case(self, case_id: str) -> None:
        if case_id not in self._kept_cases:
            raise ServerUnreachable(f"case {case_id!r} was not fetched before the server "
                                    "became unreachable; it can be reviewed when it is back")

    def case_data(self, case_id: str) -> dict[str, Any]:
        def online(s: ReviewStore) -> dict[str, Any]:
            self._keep_case(case_id)
            return s.case_data(case_id)

        def offline() -> dict[str, Any]:
            self._offline_case(case_id)
            return self._mirror.case_data(case_id)
        return self.ask(online, offline)

    def get_case(self, case_id: str) -> Case:
        def online(s: ReviewStore) -> Case:
            self._keep_case(case_id)
            return s.get_case(case_id)

        def offline() -> Case:
            self._offline_case(case_id)
            return self._mirror.get_case(case_id)
        return self.ask(online, offline)

    def adopt_case(self, case: Case) -> None:
        self.ask(lambda s: s.adopt_case(case), lambda: None)

    def adopt_case_ids(self, ids: list[str], positions: dict[str, int]) -> None:
        """Nothing to keep: the server lists its own ids."""

    def ids_starting(self, prefix: str, limit: int) -> list[str]:
        def offline() -> list[str]:
            forms = prefix_forms(prefix)
            return sorted(i for i in self._ids_offline() if i.startswith(tuple(forms)))[:limit]

        return self.ask(lambda s: s.ids_starting(prefix, limit), offline)

    def ids_between(self, start: int, stop: int) -> list[str]:
        return self.case_ids()[max(0, start):max(0, stop)]

    def case_at(self, index: int) -> Case:
        return self.get_case(self.case_ids()[index])

    def dataset(self) -> SessionDataset:
        return SessionDataset(self)

    def add_cases(self, cases: Iterable[Case]) -> list[str]:
        return self._server_only().add_cases(cases)

    def update_case(self, case: Case) -> Reattached:
        return self._server_only().update_case(case)

    def sync_from(self, dataset: Dataset) -> dict[str, Reattached]:
        return self._server_only().sync_from(dataset)

    # ------------------------------------------------------------------ analysis

    @property
    def analyser(self) -> Analyser:
        return self.ask(lambda s: s.analyser, lambda: self._mirror.analyser)

    @property
    def policy(self) -> Policy:
        return self.analyser.policy

    def analysed(self, case: str | Case, policy: Policy | None = None) -> AnalysedCase:
        if isinstance(case, str):
            case = self.get_case(case)
        else:
            self._keep(case.id)  # a case the window shows: reviewable offline from now on
        found = self.analyser.analysed(case, policy)
        self.record_sizes(case.id, found.item_counts)
        return found

    def sizes(self) -> dict[str, tuple[int, ...]]:
        return self.ask(lambda s: s.sizes(), self._mirror.sizes)

    def record_sizes(self, case_id: str, sizes: Sequence[int]) -> None:
        self.record_sizes_many({case_id: tuple(sizes)}, store=False)

    def record_sizes_many(self, sizes: dict[str, tuple[int, ...]], store: bool = True) -> None:
        self._mirror.record_sizes_many(sizes, store)
        self.ask(lambda s: s.record_sizes_many(sizes, store), lambda: None)

    def flush_sizes(self) -> None:
        self.ask(lambda s: s.flush_sizes(), lambda: None)

    # ------------------------------------------------------------------ annotations

    def annotation(self, key: AnnotationKey, annotator: str | None = None) -> Annotation | None:
        return self.ask(lambda s: s.annotation(key, annotator),
                         lambda: self._mirror.annotation(key, annotator))

    def annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                    orphaned: bool | None = None) -> list[Annotation]:
        return self.ask(
            lambda s: s.annotations(case_id, annotator=annotator, orphaned=orphaned),
            lambda: self._mirror.annotations(case_id, annotator=annotator, orphaned=orphaned))

    def iter_annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                         orphaned: bool | None = None,
                         number: int | None = None) -> Iterator[Annotation]:
        rows = self.ask(
            lambda s: list(s.iter_annotations(case_id, annotator=annotator, orphaned=orphaned,
                                              number=number)),
            lambda: list(self._mirror.iter_annotations(case_id, annotator=annotator,
                                                       orphaned=orphaned, number=number)))
        return iter(rows)

    def review(self, case_id: str, annotator: str | None = None) -> CaseReview:
        self._keep(case_id)
        return self.ask(lambda s: s.review(case_id, annotator),
                         lambda: self._mirror.review(case_id, annotator))

    def reviews(self, case_id: str | None = None) -> list[CaseReview]:
        return self.ask(lambda s: s.reviews(case_id), lambda: self._mirror.reviews(case_id))

    def states(self, annotator: str | None = None) -> dict[str, ReviewState]:
        return self.ask(lambda s: s.states(annotator), lambda: self._mirror.states(annotator))

    def annotator_progress(self) -> dict[str, ReviewTally]:
        """The server's count; offline, the copy's (this reviewer's own reviews)."""
        return self.ask(lambda s: s.annotator_progress(), self._mirror.annotator_progress)

    def first_not_done(self, annotator: str | None = None) -> int | None:
        def offline() -> int | None:
            states = self._mirror.states(annotator)
            for i, cid in enumerate(self._ids_offline()):
                if states.get(cid) is not ReviewState.DONE and cid in self._kept_cases:
                    return i
            return None
        return self.ask(lambda s: s.first_not_done(annotator), offline)

    # ------------------------------------------------------------------ evidence, corrections

    def evidence(self, case_id: str | None = None, *, key: AnnotationKey | None = None,
                 annotator: str | None = None) -> list[Evidence]:
        return self.ask(lambda s: s.evidence(case_id, key=key, annotator=annotator),
                         lambda: self._mirror.evidence(case_id, key=key, annotator=annotator))

    def corrections(self, case_id: str | None = None, *,
                    annotator: str | None = None) -> list[Correction]:
        return self.ask(lambda s: s.corrections(case_id, annotator=annotator),
                         lambda: self._mirror.corrections(case_id, annotator=annotator))

    def current_row(self, change: RowChange) -> Row | None:
        return self.ask(lambda s: s.current_row(change),
                         lambda: self._mirror.current_row(change))

    def apply(self, changes: Sequence[RowChange]) -> None:
        """Write ``changes`` (all or none): into the outbox file, then to the server. Returns
        once the server committed them, or, when it cannot be reached, once they wait in the
        outbox (:attr:`waiting`; the status listeners hear of it)."""
        if self.readonly:
            raise SessionError(f"{self.path}: opened read-only")
        if self.closed:
            raise SessionError(f"{self.path}: session is closed")
        changes = list(changes)
        if not changes:
            return
        cases = {ch.case_id for ch in changes}
        if self._online:
            try:
                for cid in cases:
                    self._keep_case(cid)
            except self._offline_errors as err:
                self._went_offline(err)
        if not self._online:
            for cid in cases:
                self._offline_case(cid)
        if self._online and not cases <= self._kept_cases:
            assert self._server is not None
            self._server.apply(changes)  # not a case of this project: refused as it says
            return
        op_id = str(uuid.uuid4())
        server = self._server
        direct = self._online and server is not None and not self.outbox.waiting()
        self.outbox.add(op_id, changes, durable=not direct)
        if direct and server is not None:
            try:
                self._send(server, op_id, changes)
            except self._offline_errors as err:
                self.outbox.make_durable()  # it waits now: kept through a power cut too
                self._went_offline(err)
            except BaseException:
                self.outbox.sent(op_id)  # refused outright (a bad key, no right): not kept
                raise
            else:
                self._mirror_apply(self._mirror, changes)
                self.outbox.sent(op_id, self._own_changes(changes))
                self._status_changed()
                return
        # Waiting: the window shows it from the copy until the server has it.
        self._mirror_apply(self._mirror, changes)
        self.outbox.keep_changes(self._own_changes(changes))
        self._status_changed()
        self._subscribers.notify(*[row_event(ch) for ch in changes])
        if self._online:
            self._flush()
            self._status_changed()


def _copy_settings(meta: dict[str, Any], mirror: MemorySession) -> None:
    """The server's labels, blind and reasons (``meta``) into the copy (a setting the copy
    cannot take is left as it was: the server checks its own)."""
    if meta.get("labels"):
        with contextlib.suppress(SessionError):
            mirror.set_labels(meta["labels"])
    mirror.set_blind(bool(meta.get("blind", False)))
    if meta.get("reasons") is not None:
        with contextlib.suppress(SessionError):
            mirror.set_meta("reasons", meta["reasons"])


def _typed(store: OutboxStore) -> ReviewStore:
    return store  # mypy checks that an OutboxStore is a ReviewStore


__all__ = ["IdempotentStore", "Outbox", "OutboxStatus", "OutboxStore", "OwnRows",
           "change_from_json",
           "change_json", "outbox_path"]
