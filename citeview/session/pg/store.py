"""A project on a PostgreSQL server as a :class:`~citeview.session.protocol.ReviewStore`.

Every change is one transaction, committed before the method returns, and recorded in
``citeview.ops`` under its op id (made by the caller, or here): the same op id applied again
stores nothing (:meth:`PgSession.send` returns False). The server decides who may write what
(row-level security, :mod:`.schema`); a refusal is a one-line :class:`SessionError`, an
unreachable server a :class:`ServerUnreachable` (:mod:`.connection`). Projects are made by
:mod:`.projects`; :class:`PgBackend` and :func:`copy_session` are re-exported here.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pgerrors
from psycopg.pq import TransactionStatus

from citeview.core.analysis import Analyser
from citeview.core.cases import Case
from citeview.core.corrections import Correction, ordered
from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.session.analysing import AnalysingStore
from citeview.session.errors import ReadOnlySession, SessionError, SessionInUse, damaged
from citeview.session.events import (
    AnnotationChanged,
    CaseChanged,
    CasesAdded,
    Change,
    CorrectionChanged,
    EvidenceChanged,
    Listener,
    MetaChanged,
    ReviewChanged,
    SizesKnown,
    Subscribers,
)
from citeview.session.jsonio import dumps_json
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    CaseReview,
    Evidence,
    Reattached,
    ReviewState,
    ReviewTally,
    index_not_done,
    prefix_forms,
)
from citeview.session.pg.address import Address, is_address, parse_address
from citeview.session.pg.connection import Conn, ServerUnreachable, connect, server_error
from citeview.session.pg.connection import guard as _guard
from citeview.session.pg.projects import PgBackend, copy_cases, copy_session
from citeview.session.pg.schema import SCHEMA_VERSION, migrate, server_version
from citeview.session.protocol import (
    ReviewStore,
    Row,
    RowChange,
    SessionDataset,
    check_row,
    row_event,
)
from citeview.session.records import (
    ANNOTATION_FIELDS,
    CORRECTION_FIELDS,
    EVIDENCE_FIELDS,
    REVIEW_FIELDS,
    annotation_from_row,
    columns,
    correction_from_row,
    evidence_from_row,
    review_from_row,
)
from citeview.session.row_access import RowReads, RowWrites
from citeview.session.rowfilter import RowFilter
from citeview.session.settings import StoredSettings
from citeview.session.updating import moved_rows, sync_cases

_Parsed = TypeVar("_Parsed")
_A = columns(ANNOTATION_FIELDS, "a")
_R = columns(REVIEW_FIELDS, "r")
_E = columns(EVIDENCE_FIELDS, "e")
_K = columns(CORRECTION_FIELDS, "k")


class PgSession(StoredSettings, AnalysingStore, RowWrites, RowReads):
    """An open project (see :class:`~citeview.session.protocol.ReviewStore`)."""

    def __init__(self, conn: Conn, address: Address, *, annotator: str, readonly: bool,
                 message: str | None, schema: int = SCHEMA_VERSION) -> None:
        self._conn = conn
        # A server at schema 1 (older, opened read-only until a lead upgrades it) has no
        # reasons column and no evidence or corrections: read as none.
        self._marks = schema >= 2
        self._cols = _A if self._marks else _A.replace("a.reasons", "'[]'")
        self.address = address
        self.project = address.project
        self.path = address.text
        self.readonly = readonly
        self.message = message
        row = conn.execute("SELECT current_user, (SELECT rolsuper FROM pg_roles WHERE "
                           "rolname = current_user) OR citeview.is_lead(%s, current_user)",
                           (address.project,)).fetchone()
        assert row is not None
        self.role = str(row[0])
        # A plain annotator writes as their role whatever name is asked for (the server
        # would refuse another); a lead or the admin writes as any name (adjudication, tests).
        self.privileged = bool(row[1])
        self._annotator = self.role
        self.annotator = annotator
        self.closed = False
        self.unclean = False
        self.token = uuid.uuid4().hex
        self._subscribers = Subscribers()
        self._analyser: Analyser | None = None
        self._ids: list[str] | None = None
        self._pos: dict[str, int] | None = None
        self._cases: dict[str, Case] = {}
        self._meta: dict[str, Any] | None = None
        self._sizes: dict[str, tuple[int, ...]] | None = None
        self._pending: dict[str, tuple[int, ...]] = {}
        self._seen = 0
        self._listener: Conn | None = None
        self._pid = self.conn.info.backend_pid

    @property
    def annotator(self) -> str:
        return self._annotator

    @annotator.setter
    def annotator(self, name: str) -> None:
        self._annotator = name if name and self.privileged else self.role

    # ------------------------------------------------------------------ lifetime

    @classmethod
    def open(cls, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> PgSession:
        """Open the project at ``path``. Read-only when asked, or when the server's schema is
        newer than this citeview's (or older, and this role may not migrate it)."""
        address = parse_address(path)
        message = None
        conn = connect(address)
        try:
            with _guard(path):
                version = server_version(conn)
                if version == 0:
                    raise SessionError(f"{path}: no citeview projects on this server (create "
                                       "one: citeview team create)")
                if version > SCHEMA_VERSION:
                    readonly = True
                    message = (f"made by a newer citeview (server schema {version}, this one "
                               f"knows up to {SCHEMA_VERSION}): opened read-only")
                elif version < SCHEMA_VERSION:
                    try:
                        migrate(conn)
                    except pgerrors.InsufficientPrivilege:
                        readonly = True
                        message = (f"the server's citeview schema is older ({version}); a lead "
                                   "must upgrade it (citeview team upgrade): opened read-only")
                row = conn.execute("SELECT 1 FROM citeview.projects WHERE name = %s",
                                   (address.project,)).fetchone()
                if row is None:
                    raise SessionError(f"{path}: no such project, or you are not one of its "
                                       "members")
                conn.read_only = readonly
                session = cls(conn, address, annotator=annotator, readonly=readonly,
                              message=message, schema=version)
                session._seen = session._last_seq()
                if not readonly:
                    session._take_window(force)
        except BaseException:
            conn.close()
            raise
        return session

    def _take_window(self, force: bool) -> None:
        """One writing window per (project, role), as the file's lock row."""
        with self.conn.transaction():
            row = self.conn.execute(
                "SELECT w.token, EXISTS (SELECT 1 FROM pg_stat_activity s WHERE s.pid = w.pid "
                "AND s.backend_start <= w.since) FROM citeview.writers w "
                "WHERE w.project = %s AND w.role = current_user FOR UPDATE",
                (self.project,)).fetchone()
            if row is not None:
                if row[1] and not force:
                    raise SessionInUse(f"{self.path}: already open in another citeview as "
                                       f"{self.role}; close it there, or open it read-only")
                self.unclean = not row[1]
            self.conn.execute(
                "INSERT INTO citeview.writers (project, token, pid) VALUES (%s, %s, "
                "pg_backend_pid()) ON CONFLICT (project, role) DO UPDATE SET "
                "token = EXCLUDED.token, pid = EXCLUDED.pid, since = now()",
                (self.project, self.token))

    @property
    def conn(self) -> Conn:
        """The connection; made again when it was lost (the server restarted, the network
        came back): a writer takes its window again (:class:`SessionInUse` if another did
        meanwhile); a read-only view also reads again after it was closed (a window shows a
        dataset it closed once it knew the project was in use)."""
        conn = self._conn
        if conn.closed and (self.readonly or not self.closed):
            self._conn = conn = connect(self.address, readonly=self.readonly)
            self._pid = conn.info.backend_pid
            if not self.readonly:
                self._take_window(False)
        return conn

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                if not self.readonly and not self._conn.closed:
                    self.flush_sizes()
                    self._conn.execute("DELETE FROM citeview.writers WHERE project = %s AND "
                                       "token = %s", (self.project, self.token))
            except psycopg.Error:
                pass  # the server went away: its row names a dead backend, taken over later
        self._conn.close()
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def __del__(self) -> None:
        # A read-only view read again after it was closed holds a connection nobody closes
        # (a window showing a project it could not review): closed with the view.
        for conn in (getattr(self, "_conn", None), getattr(self, "_listener", None)):
            if conn is not None and not conn.closed:
                conn.close()

    def __enter__(self) -> PgSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _last_seq(self) -> int:
        row = self.conn.execute("SELECT coalesce(max(seq), 0) FROM citeview.ops "
                                "WHERE project = %s", (self.project,)).fetchone()
        return int(row[0]) if row else 0

    def changed_elsewhere(self) -> bool:
        with _guard(self.path):
            row = self.conn.execute(
                "SELECT max(seq) FILTER (WHERE token <> %s), max(seq) FROM citeview.ops "
                "WHERE project = %s AND seq > %s", (self.token, self.project, self._seen)
            ).fetchone()
        if row is None or row[1] is None:
            return False
        self._seen = int(row[1])
        if row[0] is not None:
            self._ids = self._pos = self._meta = self._sizes = None
            self._cases.clear()
            return True
        return False

    def integrity_check(self) -> str:
        with _guard(self.path):
            self.conn.execute("SELECT 1")
        return "ok"

    def save_as(self, path: str, *, switch: bool = True) -> None:
        """A copy of the project: another project on the same server (``switch``: this session
        continues there), or a session file (this session stays on the server)."""
        if path == self.path:
            return
        if not is_address(path):
            self._save_file(path)
            return
        target = parse_address(path)
        if target.conninfo != self.address.conninfo:
            raise SessionError(f"{path}: Save As copies within one server; export and import "
                               "to move a project to another")
        op = uuid.uuid4()
        with _guard(path), self.conn.transaction():
            if self.conn.execute("SELECT 1 FROM citeview.projects WHERE name = %s",
                                 (target.project,)).fetchone():
                raise SessionError(f"{path}: already exists (choose another name)")
            p, q = self.project, target.project
            self.conn.execute(
                "SELECT citeview.create_project(%s, meta, blind, overlap, lease_seconds, false) "
                "FROM citeview.projects WHERE name = %s", (q, p))
            self.conn.execute("INSERT INTO citeview.members SELECT %s, role, kind FROM "
                              "citeview.members WHERE project = %s ON CONFLICT DO NOTHING",
                              (q, p))
            self.conn.execute("INSERT INTO citeview.cases (project, pos, id, data) SELECT %s, "
                              "pos, id, data FROM citeview.cases WHERE project = %s", (q, p))
            self.conn.execute("INSERT INTO citeview.case_stats SELECT %s, case_id, sizes FROM "
                              "citeview.case_stats WHERE project = %s", (q, p))
            fields = ", ".join(f for f in ANNOTATION_FIELDS[1:]
                               if self._marks or f != "reasons")
            self.conn.execute(
                f"INSERT INTO citeview.annotations (project, case_id, {fields}) "
                f"SELECT %s, case_id, {fields} FROM citeview.annotations WHERE project = %s "
                "ORDER BY rowid", (q, p))
            rfields = ", ".join(REVIEW_FIELDS[1:])
            self.conn.execute(
                f"INSERT INTO citeview.reviews (project, case_id, {rfields}) "
                f"SELECT %s, case_id, {rfields} FROM citeview.reviews WHERE project = %s",
                (q, p))
            if self._marks:
                efields = ", ".join(EVIDENCE_FIELDS)
                self.conn.execute(
                    f"INSERT INTO citeview.evidence (project, {efields}) "
                    f"SELECT %s, {efields} FROM citeview.evidence WHERE project = %s", (q, p))
                self.conn.execute(
                    "INSERT INTO citeview.corrections (project, id, case_id, annotator, "
                    "timestamp, data) SELECT %s, id, case_id, annotator, timestamp, data FROM "
                    "citeview.corrections WHERE project = %s", (q, p))
            self.conn.execute("INSERT INTO citeview.ops (op_id, project, token) VALUES "
                              "(%s, %s, %s)", (op, q, self.token))
        if switch:
            if not self.readonly:
                self.conn.execute("DELETE FROM citeview.writers WHERE project = %s AND "
                                  "token = %s", (self.project, self.token))
            self.address, self.project, self.path = target, target.project, target.text
            self.readonly, self.message = False, None
            self.conn.read_only = False
            self._ids = self._pos = self._meta = self._sizes = None
            self._take_window(False)
            self._seen = self._last_seq()
            self._notify(MetaChanged())

    def _save_file(self, path: str) -> None:
        from citeview.session.records import (
            insert_annotation,
            insert_correction,
            insert_evidence,
            insert_review,
        )
        from citeview.session.store import Session

        meta = dict(self._meta_all())

        def fill(conn: Any) -> None:
            for ann in self.iter_annotations():
                insert_annotation(conn, ann)
            for review in self.reviews():
                insert_review(conn, review)
            for ev in self.evidence():
                insert_evidence(conn, ev)
            for fix in self.corrections():
                insert_correction(conn, fix)

        rows = [(cid, dumps_json(self.case_data(cid))) for cid in self.case_ids()]
        Session.make_file(path, meta, rows, overwrite=False, fill=fill)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._subscribers.subscribe(listener)

    def _notify(self, *changes: Change) -> None:
        self._subscribers.notify(*changes)

    def poll(self, timeout: float = 0.0) -> list[Change]:
        """Changes other clients committed since the last poll (``LISTEN citeview``; the first
        call starts listening and returns nothing), sent to the subscribers too: a lead's
        window sees reviewers' verdicts, a reviewer's window the lead's adjudications, settings
        and new cases. Rows another reviewer may not read arrive as a case's change only (the
        notification names no verdict)."""
        if self._listener is None:
            self._listener = connect(self.address, readonly=True)
            self._listener.execute("LISTEN citeview")
            return []
        found: list[Change] = []
        with _guard(self.path):
            for note in self._listener.notifies(timeout=timeout, stop_after=None):
                change = _change_of(note.payload, self.project, self._pid)
                if change is not None and change not in found:
                    found.append(change)
        if any(isinstance(c, MetaChanged | CasesAdded | CaseChanged) for c in found):
            self._meta = self._ids = self._pos = self._sizes = None
            self._cases.clear()
            self._analyser = None
        if found:
            self._notify(*found)
        return found

    def _write(self) -> None:
        if self.readonly:
            raise ReadOnlySession(f"{self.path}: {self.message or 'opened read-only'}")
        if self.closed:
            raise SessionError(f"{self.path}: session is closed")

    @contextmanager
    def _tx(self, op_id: str | uuid.UUID | None = None) -> Iterator[bool]:
        """One write transaction recorded under ``op_id``; yields False (and writes nothing
        more) when that op was applied before."""
        self._write()
        op = self._op(op_id)
        try:
            with self.conn.transaction():
                row = self.conn.execute(
                    "INSERT INTO citeview.ops (op_id, project, token) VALUES (%s, %s, %s) "
                    "ON CONFLICT (op_id) DO NOTHING RETURNING seq",
                    (op, self.project, self.token)).fetchone()
                yield row is not None
        except psycopg.Error as err:
            raise server_error(self.path, err) from None

    # ------------------------------------------------------------------ meta

    def _meta_all(self) -> dict[str, Any]:
        if self._meta is None:
            with _guard(self.path):
                row = self.conn.execute("SELECT meta, blind FROM citeview.projects WHERE "
                                        "name = %s", (self.project,)).fetchone()
            if row is None:
                raise SessionError(f"{self.path}: the project is gone")
            meta = json.loads(row[0])
            if not isinstance(meta, dict):
                raise damaged(self.path, "its settings are not a JSON object")
            meta["blind"] = bool(row[1])
            self._meta = meta
        return self._meta

    @property
    def name(self) -> str:
        return str(self._meta_all().get("name") or self.project)

    def set_meta(self, key: str, value: Any) -> None:
        meta = dict(self._meta_all())
        meta[key] = json.loads(dumps_json(value))
        with self._tx() as fresh:
            if fresh:
                self.conn.execute("UPDATE citeview.projects SET meta = %s, blind = %s WHERE "
                                  "name = %s", (dumps_json(meta), bool(meta.get("blind")),
                                                self.project))
                if key == "families":
                    self.conn.execute("DELETE FROM citeview.case_stats WHERE project = %s",
                                      (self.project,))
        self._meta = meta
        if key == "families":
            self._sizes, self._pending, self._analyser = {}, {}, None
        self._notify(MetaChanged())

    # ------------------------------------------------------------------ cases

    def case_ids(self) -> list[str]:
        if self._ids is None:
            with _guard(self.path):
                self._ids = [str(r[0]) for r in self.conn.execute(
                    "SELECT id FROM citeview.cases WHERE project = %s ORDER BY pos",
                    (self.project,))]
            self._pos = {cid: i for i, cid in enumerate(self._ids)}
        return self._ids

    def __len__(self) -> int:
        return len(self.case_ids())

    def _positions(self) -> dict[str, int]:
        self.case_ids()
        assert self._pos is not None
        return self._pos

    def index_of(self, case_id: str) -> int:
        try:
            return self._positions()[case_id]
        except KeyError:
            raise KeyError(case_id) from None

    def ids_between(self, start: int, stop: int) -> list[str]:
        return self.case_ids()[max(0, start):max(0, stop)]

    def case_data(self, case_id: str) -> dict[str, Any]:
        with _guard(self.path):
            row = self.conn.execute("SELECT data FROM citeview.cases WHERE project = %s AND "
                                    "id = %s", (self.project, case_id)).fetchone()
        if row is None:
            raise KeyError(case_id)
        data = json.loads(row[0])
        if not isinstance(data, dict):
            raise damaged(self.path, f"case {case_id!r} is not a JSON object")
        return data

    def get_case(self, case_id: str) -> Case:
        found = self._cases.get(case_id)
        if found is None:
            data = self.case_data(case_id)  # a server that cannot be reached says so itself
            try:
                found = Case.from_dict(data, case_id)
            except InputError as err:
                raise SessionError(f"{self.path}: case {case_id!r}: {err}") from None
            self._cases[case_id] = found
        return found

    def adopt_case(self, case: Case) -> None:
        self._cases[case.id] = case

    def adopt_case_ids(self, ids: list[str], positions: dict[str, int]) -> None:
        """Nothing to keep: the server lists its own ids."""

    def ids_starting(self, prefix: str, limit: int) -> list[str]:
        """Go to Case on a big project: ids starting with ``prefix`` in any of its forms (see
        :func:`~citeview.session.model.prefix_forms`), in id order, at most ``limit``."""
        patterns = [form.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                    for form in prefix_forms(prefix)]
        with _guard(self.path):
            rows = self.conn.execute(
                "SELECT id FROM citeview.cases WHERE project = %s AND id LIKE ANY(%s) "
                "ORDER BY id COLLATE \"C\" LIMIT %s", (self.project, patterns, limit)).fetchall()
        return [str(r[0]) for r in rows]

    def case_at(self, index: int) -> Case:
        return self.get_case(self.case_ids()[index])

    def dataset(self) -> SessionDataset:
        return SessionDataset(self)

    def add_cases(self, cases: Iterable[Case]) -> list[str]:
        have = set(self.case_ids())
        new = [c for c in cases if c.id not in have]
        if not new:
            return []
        with self._tx() as fresh:
            if fresh:
                row = self.conn.execute("SELECT coalesce(max(pos) + 1, 0) FROM citeview.cases "
                                        "WHERE project = %s", (self.project,)).fetchone()
                copy_cases(self.conn, self.path, self.project, new, int(row[0]) if row else 0,
                           known=have)
        self._ids = self._pos = None
        self._notify(CasesAdded())
        return [c.id for c in new]

    def update_case(self, case: Case) -> Reattached:
        old = self.get_case(case.id)
        data = dumps_json(case.to_dict())
        if old.answer == case.answer:
            result = Reattached(self.annotations(case.id), [])
            if data != dumps_json(old.to_dict()):
                with self._tx():
                    self._set_case(case.id, data)
        else:
            moved = moved_rows(self, old, case)
            result = moved.annotations
            with self._tx():
                self._set_case(case.id, data)
                for table in ("annotations", "case_stats", "evidence", "corrections"):
                    self.conn.execute(f"DELETE FROM citeview.{table} WHERE project = %s AND "
                                      "case_id = %s", (self.project, case.id))
                for ann in [*result.placed, *result.orphaned]:
                    self._insert_annotation(ann, None)
                for ev in moved.evidence:
                    self._insert_evidence(ev, None)
                for fix in moved.corrections:
                    self._insert_correction(fix, None)
            if self._sizes is not None:
                self._sizes.pop(case.id, None)
            self._pending.pop(case.id, None)
        self._cases[case.id] = case
        self._notify(CaseChanged(case.id))
        return result

    def _set_case(self, case_id: str, data: str) -> None:
        self.conn.execute("UPDATE citeview.cases SET data = %s WHERE project = %s AND id = %s",
                          (data, self.project, case_id))

    def sync_from(self, dataset: Dataset) -> dict[str, Reattached]:
        have = set(self.case_ids())

        def stored(case_id: str) -> str | None:
            if case_id not in have:
                return None
            self._cases.pop(case_id, None)  # compared with the stored case, not one adopted
            return dumps_json(self.case_data(case_id))
        return sync_cases(self, dataset, stored)

    # ------------------------------------------------------------------ analysis, counts


    def sizes(self) -> dict[str, tuple[int, ...]]:
        if self._sizes is None:
            with _guard(self.path):
                self._sizes = {str(cid): tuple(sizes) for cid, sizes in self.conn.execute(
                    "SELECT case_id, sizes FROM citeview.case_stats WHERE project = %s",
                    (self.project,))}
            self._sizes.update(self._pending)
        return self._sizes

    def record_sizes(self, case_id: str, sizes: Sequence[int]) -> None:
        self.record_sizes_many({case_id: tuple(sizes)}, store=False)

    def record_sizes_many(self, sizes: dict[str, tuple[int, ...]], store: bool = True) -> None:
        known = self.sizes()
        ids = self._positions()
        new = {cid: tuple(v) for cid, v in sizes.items()
               if known.get(cid) != tuple(v) and cid in ids}
        known.update(new)
        self._pending.update(new)
        if store:
            self.flush_sizes()
        if new:
            self._notify(*[SizesKnown(cid) for cid in new])

    def flush_sizes(self) -> None:
        """Write the counts kept back (not an op: counts are derived, any client may)."""
        if not self._pending or self.readonly or self._conn.closed:
            return
        pending, self._pending = self._pending, {}
        with _guard(self.path), self.conn.transaction():
            self.conn.cursor().executemany(
                "INSERT INTO citeview.case_stats (project, case_id, sizes) VALUES (%s, %s, %s) "
                "ON CONFLICT (project, case_id) DO UPDATE SET sizes = EXCLUDED.sizes",
                [(self.project, cid, list(v)) for cid, v in pending.items()])

    # ------------------------------------------------------------------ annotations

    def annotation(self, key: AnnotationKey, annotator: str | None = None) -> Annotation | None:
        who = self.annotator if annotator is None else annotator
        with _guard(self.path):
            row = self.conn.execute(
                f"SELECT {self._cols} FROM citeview.annotations a WHERE a.project = %s AND "
                "a.case_id = %s AND a.number = %s AND a.raw = %s AND a.source_id = %s AND "
                "a.annotator = %s AND a.orphaned = 0",
                (self.project, key.case_id, key.number, key.anchor, key.source_id, who)
            ).fetchone()
        return self._parsed(annotation_from_row, row) if row else None

    def iter_annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                         orphaned: bool | None = None,
                         number: int | None = None) -> Iterator[Annotation]:
        where, args = self._where(RowFilter(case_id, annotator, number, orphaned), "a")
        with _guard(self.path):
            rows = self.conn.execute(
                f"SELECT {self._cols} FROM citeview.annotations a JOIN citeview.cases c ON "
                "c.project = a.project AND c.id = a.case_id WHERE " + where
                + " ORDER BY c.pos, a.number, a.source_id, a.annotator, a.rowid",
                args).fetchall()
        for row in rows:
            yield self._parsed(annotation_from_row, row)

    def _where(self, rows: RowFilter, alias: str) -> tuple[str, list[object]]:
        """``rows`` of this project, as a WHERE clause over ``alias`` and its arguments."""
        conds, args = rows.where(alias, "%s")
        return " AND ".join([f"{alias}.project = %s", *conds]), [self.project, *args]

    def review(self, case_id: str, annotator: str | None = None) -> CaseReview:
        who = self.annotator if annotator is None else annotator
        return self._review(case_id, who) or CaseReview(case_id, who)

    def _review(self, case_id: str, who: str) -> CaseReview | None:
        with _guard(self.path):
            row = self.conn.execute(
                f"SELECT {_R} FROM citeview.reviews r WHERE r.project = %s AND r.case_id = %s "
                "AND r.annotator = %s", (self.project, case_id, who)).fetchone()
        return self._parsed(review_from_row, row) if row else None

    def reviews(self, case_id: str | None = None) -> list[CaseReview]:
        where, args = self._where(RowFilter(case_id), "r")
        with _guard(self.path):
            rows = self.conn.execute(
                f"SELECT {_R} FROM citeview.reviews r JOIN citeview.cases c ON "
                f"c.project = r.project AND c.id = r.case_id WHERE {where} "
                "ORDER BY c.pos, r.annotator", args).fetchall()
        return [self._parsed(review_from_row, r) for r in rows]

    def states(self, annotator: str | None = None) -> dict[str, ReviewState]:
        who = self.annotator if annotator is None else annotator
        with _guard(self.path):
            rows = self.conn.execute("SELECT case_id, state FROM citeview.reviews WHERE "
                                     "project = %s AND annotator = %s",
                                     (self.project, who)).fetchall()
        try:
            return {str(cid): ReviewState(state) for cid, state in rows}
        except ValueError as err:
            raise damaged(self.path, str(err)) from None

    def annotator_progress(self) -> dict[str, ReviewTally]:
        """Per annotator whose reviews this role may read (a lead: everyone's): cases done
        and in progress, one grouped query (late reviews counted, as :meth:`reviews` lists
        them)."""
        with _guard(self.path):
            rows = self.conn.execute(
                "SELECT r.annotator, count(*) FILTER (WHERE r.state = %s), "
                "count(*) FILTER (WHERE r.state = %s) FROM citeview.reviews r "
                "JOIN citeview.cases c ON c.project = r.project AND c.id = r.case_id "
                "WHERE r.project = %s AND r.annotator <> '' GROUP BY r.annotator",
                (ReviewState.DONE.value, ReviewState.IN_PROGRESS.value,
                 self.project)).fetchall()
        return {str(who): ReviewTally(int(done), int(started)) for who, done, started in rows}

    def first_not_done(self, annotator: str | None = None) -> int | None:
        return index_not_done(self.case_ids(), self.states(annotator))

    def current_row(self, change: RowChange) -> Row | None:
        if change.kind in ("evidence", "correction") and not self._marks:
            return None
        if change.kind == "evidence":
            with _guard(self.path):
                row = self.conn.execute(
                    f"SELECT {_E} FROM citeview.evidence e WHERE e.project = %s AND "
                    "e.case_id = %s AND e.id = %s",
                    (self.project, change.case_id, change.ident)).fetchone()
            return self._parsed(evidence_from_row, row) if row else None
        if change.kind == "correction":
            with _guard(self.path):
                row = self.conn.execute(
                    f"SELECT {_K} FROM citeview.corrections k WHERE k.project = %s AND "
                    "k.case_id = %s AND k.id = %s",
                    (self.project, change.case_id, change.ident)).fetchone()
            return self._parsed(correction_from_row, row) if row else None
        if change.kind == "annotation":
            return self.annotation_row(change)
        return self._review(change.case_id, change.annotator)

    def applied(self, op_id: str | uuid.UUID) -> bool:
        """Whether the write of ``op_id`` is stored (an outbox asks before it forgets one)."""
        try:
            op = uuid.UUID(str(op_id))
        except ValueError:
            return False  # never accepted, so never stored
        with _guard(self.path):
            return self.conn.execute("SELECT 1 FROM citeview.ops WHERE op_id = %s",
                                     (op,)).fetchone() is not None

    def apply(self, changes: Sequence[RowChange], op_id: str | uuid.UUID | None = None) -> None:
        """:meth:`send` (the protocol's name)."""
        self.send(changes, op_id)

    def send(self, changes: Sequence[RowChange], op_id: str | uuid.UUID | None = None) -> bool:
        """All of ``changes`` in one transaction or none, then notify. ``op_id`` (else the
        first change's, else a new one) makes it idempotent: False when it was stored before
        (nothing written again, nobody notified)."""
        for ch in changes:
            check_row(ch)
        given = op_id if op_id is not None else next(
            (ch.op_id for ch in changes if ch.op_id is not None), None)
        self._write()
        op = self._op(given)
        cases = sorted({ch.case_id for ch in changes})
        # One round trip: pipeline mode, BEGIN to COMMIT sent at once and read at the one
        # sync at the end (psycopg's transaction() syncs on its own too: not used here). So
        # nothing waits for an answer midway: an op id stored before, a missing case and an
        # annotation already there each fail a statement (read below) instead of being asked
        # about first; the server then skips the rest, COMMIT too, and the block is rolled
        # back.
        conn = self.conn
        try:
            try:
                with conn.pipeline():
                    conn.execute("BEGIN")
                    conn.execute("INSERT INTO citeview.ops (op_id, project, token) "
                                 "VALUES (%s, %s, %s)", (op, self.project, self.token))
                    conn.execute(  # 1/0 unless every case of the write is there
                        "SELECT 1 / (count(*) = %s)::int FROM citeview.cases WHERE "
                        "project = %s AND id = ANY(%s)", (len(cases), self.project, cases))
                    for ch in changes:
                        self._apply_one(ch, op)
                    conn.execute("COMMIT")
            except psycopg.Error:
                if conn.info.transaction_status != TransactionStatus.IDLE:
                    with suppress(psycopg.Error):
                        conn.execute("ROLLBACK")
                raise
        except pgerrors.UniqueViolation as err:
            if err.diag.constraint_name == "ops_pkey":
                return False  # stored before: nothing written again, nobody notified
            if err.diag.constraint_name == "annotations_key":
                raise SessionError(f"{self.path}: cannot store the change (the annotation "
                                   "exists)") from None
            raise server_error(self.path, err) from None
        except pgerrors.DivisionByZero:
            raise SessionError(f"{self.path}: cannot store the change (no case "
                               f"{self._missing_case(cases)!r})") from None
        except psycopg.Error as err:
            raise server_error(self.path, err) from None
        self._notify(*[row_event(ch) for ch in changes])
        return True

    def _op(self, op_id: str | uuid.UUID | None) -> uuid.UUID:
        try:
            return uuid.UUID(str(op_id)) if op_id is not None else uuid.uuid4()
        except ValueError:
            raise SessionError(f"{self.path}: op id {op_id!r} is not a UUID") from None

    def _missing_case(self, cases: Sequence[str]) -> str:
        """The first of ``cases`` not in the project (after a write was refused for it)."""
        with _guard(self.path):
            found = {str(r[0]) for r in self.conn.execute(
                "SELECT id FROM citeview.cases WHERE project = %s AND id = ANY(%s)",
                (self.project, list(cases)))}
        return next((c for c in cases if c not in found), cases[0])

    def _apply_one(self, ch: RowChange, op: str | uuid.UUID | None) -> None:
        p = self.project
        if ch.kind in ("evidence", "correction"):
            table = "evidence" if ch.kind == "evidence" else "corrections"
            self.conn.execute(f"DELETE FROM citeview.{table} WHERE project = %s AND "
                              "case_id = %s AND id = %s", (p, ch.case_id, ch.ident))
            if isinstance(ch.new, Evidence):
                self._insert_evidence(ch.new, op)
            elif isinstance(ch.new, Correction):
                self._insert_correction(ch.new, op)
        elif ch.kind == "annotation":
            k = ch.key
            assert k is not None
            self.conn.execute(
                "DELETE FROM citeview.annotations WHERE rowid = (SELECT rowid FROM "
                "citeview.annotations WHERE project = %s AND case_id = %s AND number = %s AND "
                "raw = %s AND source_id = %s AND annotator = %s AND orphaned = %s "
                "ORDER BY rowid LIMIT 1)",
                (p, k.case_id, k.number, k.anchor, k.source_id, ch.annotator, int(ch.orphaned)))
            if isinstance(ch.new, Annotation):
                self._insert_annotation(ch.new, op, strict=True)
        else:
            self.conn.execute("DELETE FROM citeview.reviews WHERE project = %s AND case_id = %s "
                              "AND annotator = %s", (p, ch.case_id, ch.annotator))
            if isinstance(ch.new, CaseReview):
                r = ch.new
                self.conn.execute(
                    f"INSERT INTO citeview.reviews (project, {', '.join(REVIEW_FIELDS)}, op_id) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                    (p, r.case_id, r.annotator, r.state.value, r.verdict, r.note, r.timestamp,
                     dumps_json(r.extra), _uuid(op)))

    def _insert_annotation(self, a: Annotation, op: str | uuid.UUID | None, *,
                           strict: bool = False) -> None:
        """Insert ``a``; when a placed annotation is at its key nothing is written, or with
        ``strict`` the statement fails (``annotations_key``: no answer is waited for)."""
        k = a.key
        self.conn.execute(
            f"INSERT INTO citeview.annotations (project, {', '.join(ANNOTATION_FIELDS)}, op_id) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            + ("" if strict else " ON CONFLICT (project, case_id, number, raw, source_id, "
               "annotator) WHERE orphaned = 0 DO NOTHING"),
            (self.project, k.case_id, k.number, k.anchor, k.source_id, a.annotator, a.verdict,
             a.note, a.timestamp, a.claim, int(a.recovered), int(a.orphaned),
             dumps_json(a.extra), dumps_json(list(a.reasons)), _uuid(op)))

    def _insert_evidence(self, e: Evidence, op: str | uuid.UUID | None) -> None:
        """Insert ``e`` (an id another case's evidence holds is refused by the key)."""
        k = e.key
        self.conn.execute(
            f"INSERT INTO citeview.evidence (project, {', '.join(EVIDENCE_FIELDS)}, op_id) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (self.project, k.case_id, k.number, k.anchor, k.source_id, e.annotator, e.id,
             e.start, e.end, e.first_line, e.last_line, e.text, e.timestamp, _uuid(op)))

    def _insert_correction(self, c: Correction, op: str | uuid.UUID | None) -> None:
        self.conn.execute(
            "INSERT INTO citeview.corrections (project, id, case_id, annotator, timestamp, "
            "data, op_id) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (self.project, c.id, c.case_id, c.annotator, c.timestamp, dumps_json(c.to_dict()),
             _uuid(op)))

    def _parsed(self, parse: Callable[[Sequence[Any]], _Parsed], row: Sequence[Any]) -> _Parsed:
        """A row read as the model's (a row the model cannot read: the project is damaged)."""
        try:
            return parse(row)
        except (ValueError, TypeError) as err:
            raise damaged(self.path, str(err)) from None

    # ------------------------------------------------------------------ evidence, corrections

    def evidence(self, case_id: str | None = None, *, key: AnnotationKey | None = None,
                 annotator: str | None = None) -> list[Evidence]:
        """Evidence spans this role may read (of one citation source with ``key``), in case,
        citation, source and offset order."""
        if not self._marks:
            return []
        where, args = self._where(RowFilter(case_id, annotator, key=key), "e")
        with _guard(self.path):
            rows = self.conn.execute(
                f"SELECT {_E} FROM citeview.evidence e JOIN citeview.cases c ON "
                "c.project = e.project AND c.id = e.case_id WHERE " + where
                + " ORDER BY c.pos, e.number, e.source_id, e.start_offset, e.end_offset, "
                "e.annotator, e.id", args).fetchall()
        return [self._parsed(evidence_from_row, row) for row in rows]

    def corrections(self, case_id: str | None = None, *,
                    annotator: str | None = None) -> list[Correction]:
        """Corrections this role may read, in case order, each case's in the order they
        apply."""
        if not self._marks:
            return []
        where, args = self._where(RowFilter(case_id, annotator), "k")
        with _guard(self.path):
            rows = self.conn.execute(
                f"SELECT {_K}, c.pos FROM citeview.corrections k JOIN citeview.cases c ON "
                "c.project = k.project AND c.id = k.case_id WHERE " + where,
                args).fetchall()
        by_pos: dict[int, list[Correction]] = {}
        for row in rows:
            by_pos.setdefault(int(row[-1]), []).append(self._parsed(correction_from_row, row))
        return [c for pos in sorted(by_pos) for c in ordered(by_pos[pos])]

    def fill_from(self, source: ReviewStore) -> None:
        """Write ``source``'s item counts, annotations, reviews, evidence and corrections as
        they are (a copy made
        by :func:`~citeview.session.pg.projects.copy_session`), in one transaction."""
        with self._tx() as fresh:
            assert fresh  # a new op id
            sizes = source.sizes()
            if sizes:
                self.conn.cursor().executemany(
                    "INSERT INTO citeview.case_stats (project, case_id, sizes) "
                    "VALUES (%s, %s, %s)",
                    [(self.project, cid, list(v)) for cid, v in sizes.items()])
            for ann in source.iter_annotations():
                self._insert_annotation(ann, None)
            for review in source.reviews():
                self._apply_one(RowChange("review", review.case_id, review.annotator, None,
                                          False, review), None)
            for ev in source.evidence():
                self._insert_evidence(ev, None)
            for fix in source.corrections():
                self._insert_correction(fix, None)

    # ------------------------------------------------------------------ routing

    def next_cases(self, ahead: int = 1) -> list[str]:
        """The cases this reviewer holds, topped up to ``ahead`` (handed out by the server,
        each at most once per reviewer, within the project's overlap); every lease renewed.
        First the one where the reviewer stopped (input order)."""
        from citeview.session.pg.routing import next_cases

        return next_cases(self.conn, self.path, self.project, self.annotator, ahead)

    def renew_leases(self) -> int:
        """Keep this reviewer's leases (the window calls it while open); how many."""
        from citeview.session.pg.routing import renew_leases

        return renew_leases(self.conn, self.path, self.project, self.annotator)


    @property
    def overlap(self) -> int | None:
        """Reviewers per case (None: full overlap, every reviewer every case)."""
        from citeview.session.pg.routing import overlap

        return overlap(self.conn, self.path, self.project)

    def own_cases(self) -> list[str]:
        """The cases handed to this reviewer or reviewed by them, in input order."""
        from citeview.session.pg.routing import own_cases

        return own_cases(self.conn, self.path, self.project, self.annotator)

    def reviewer_counts(self) -> dict[str, int]:
        """Per case, its reviewers (holding it or done): what a lead's case list shows."""
        from citeview.session.pg.routing import reviewer_counts

        return reviewer_counts(self.conn, self.path, self.project)


def _uuid(op: str | uuid.UUID | None) -> uuid.UUID | None:
    return None if op is None else uuid.UUID(str(op))


def _change_of(payload: str, project: str, own_pid: int) -> Change | None:
    try:
        note = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(note, dict) or note.get("project") != project or note.get("pid") == own_pid:
        return None
    case_id = str(note.get("case_id"))
    table = note.get("table")
    if table == "annotations":
        return AnnotationChanged(case_id)
    if table == "evidence":
        return EvidenceChanged(case_id)
    if table == "corrections":
        return CorrectionChanged(case_id)
    if table in ("reviews", "assignments"):
        return ReviewChanged(case_id)
    if table == "projects":
        return MetaChanged()
    if table == "cases":
        return CasesAdded() if note.get("case_id") is None else CaseChanged(case_id)
    return None


def _typed(session: PgSession) -> ReviewStore:
    return session  # mypy checks that a PgSession is a ReviewStore


# PgBackend, copy_session and the connection's names are re-exported: callers import them here.
__all__ = ["Conn", "PgBackend", "PgSession", "ServerUnreachable", "connect", "copy_cases",
           "copy_session", "server_error"]

