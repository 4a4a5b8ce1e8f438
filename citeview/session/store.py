"""The session store: one SQLite file (``NAME.citeview``) that never loses a reviewer's work.

- WAL journal, ``synchronous=FULL`` and foreign keys on; ``PRAGMA user_version`` plus ordered
  migrations (:mod:`citeview.session.migrations`); a session from a newer citeview opens
  read-only with a message.
- Cases are copied in (the session survives the dataset moving) and parsed when asked for.
- Every change is its own transaction, committed at once: there is no unsaved state, so no Save
  prompt. Save As copies with the SQLite backup API.
- A process that opens a session for writing records itself in the ``lock`` row (pid, host); a
  second process finds it alive and is told (:class:`SessionInUse`). A row left by a process
  that died is taken over. How a session file is checked, connected to and replaced, and whether
  a process lives, is :mod:`citeview.session.files`; its rows are :mod:`citeview.session.records`.
- Views learn of changes through plain callbacks (:meth:`Session.subscribe`); edits the user can
  undo are :mod:`citeview.session.edits` commands.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeview.core.analysis import AnalysedCase, Analyser
from citeview.core.cases import Case
from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.core.markers import DEFAULT_FAMILIES
from citeview.core.policy import Policy
from citeview.session.errors import (
    DamagedSession,
    ReadOnlySession,
    SessionError,
    SessionInUse,
    SessionWriteError,
    damaged,
    one_line,
    reading,
    reading_by_id,
    surrogate,
)
from citeview.session.files import (
    check_session_file,
    connect,
    process_alive,
    process_ident,
    refuse_if_open_elsewhere,
    replacing,
)
from citeview.session.jsonio import dumps_json as _dumps
from citeview.session.migrations import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    application_id,
    migrate,
    user_version,
)
from citeview.session.model import (
    DEFAULT_LABELS,
    Annotation,
    AnnotationKey,
    CaseReview,
    Reattached,
    ReviewState,
    citation_slots,
    now_iso,
    reattach,
)
from citeview.session.records import (
    ANNOTATION_COLUMNS,
    ANNOTATION_FIELDS,
    REVIEW_FIELDS,
    annotation_from_row,
    columns,
    insert_annotation,
    insert_review,
    review_from_row,
    select_review,
)
from citeview.session.schema import harden

# Meta keys with a meaning; any other meta key (e.g. from an imported file) is kept as is.
KNOWN_META = ("name", "labels", "blind", "families", "created", "source")
DOCUMENT_EXTRA = "_document_extra"  # meta key: unknown top-level keys of an imported document


@dataclass(slots=True, frozen=True)
class Change:
    """What changed: ``kind`` is "annotation", "review", "case", "cases", "meta" or "sizes"
    (a case's item counts became known)."""

    kind: str
    case_id: str | None = None
    key: AnnotationKey | None = None


Listener = Callable[[Change], None]

# One write of an edit: an annotation or review row to set (or delete, when ``new`` is None).
@dataclass(slots=True, frozen=True)
class RowChange:
    kind: str  # "annotation" | "review"
    case_id: str
    annotator: str
    key: AnnotationKey | None
    orphaned: bool
    new: Annotation | CaseReview | None


def _upgraded_copy(conn: sqlite3.Connection) -> sqlite3.Connection:
    """An older session opened read-only: its migrations run on a copy in memory, so it reads
    exactly as it will once upgraded, and the file is not touched."""
    mem = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.backup(mem)
    finally:
        conn.close()
    harden(mem)
    try:
        mem.execute("PRAGMA foreign_keys = ON")
        migrate(mem)
    except BaseException:
        mem.close()
        raise
    return mem


class Session:
    """An open session. Use :meth:`create`, :meth:`open` or :func:`open_for_input`."""

    def __init__(self, conn: sqlite3.Connection, path: str, *, readonly: bool,
                 message: str | None, annotator: str) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self.message = message  # e.g. why it is read-only; for the status bar
        self.annotator = annotator
        self._token = uuid.uuid4().hex
        self._listeners: list[Listener] = []
        self._ids: list[str] | None = None
        self._positions: dict[str, int] | None = None
        self._case_cache: dict[str, Case] = {}
        self._meta: dict[str, Any] | None = None
        # The owner of this session's analyses (numbered under its families); the window's
        # worker asks it too. Made again when the families change.
        self._analyser: Analyser | None = None
        self._sizes: dict[str, tuple[int, ...]] | None = None
        self._pending_sizes: dict[str, tuple[int, ...]] = {}  # counted, not written yet
        self.unclean = False  # the last writer left without closing (its lock row was stale)
        self._data_version: int | None = None
        self.closed = False

    # ------------------------------------------------------------------ opening and closing

    @classmethod
    def create(cls, path: str, cases: Dataset | Iterable[Case], *, annotator: str = "",
               labels: Sequence[str] = DEFAULT_LABELS,
               families: Sequence[str] = DEFAULT_FAMILIES, name: str | None = None,
               source: str | None = None, overwrite: bool = False) -> Session:
        """A new session at ``path`` holding copies of ``cases``. Built in a temporary file and
        renamed into place, so a crash never leaves a half-made session."""
        cls.create_file(path, cases, labels=labels, families=families, name=name, source=source,
                        overwrite=overwrite)
        return cls.open(path, annotator=annotator)

    @classmethod
    def create_file(cls, path: str, cases: Dataset | Iterable[Case], *,
                    labels: Sequence[str] = DEFAULT_LABELS,
                    families: Sequence[str] = DEFAULT_FAMILIES, name: str | None = None,
                    source: str | None = None, overwrite: bool = False) -> None:
        """:meth:`create` without opening the result: safe in another thread (it keeps no
        connection), so a window can make the session of a big input while it shows it."""
        meta: dict[str, Any] = {
            "name": name or Path(path).stem, "labels": list(labels), "blind": False,
            "families": list(families), "created": now_iso(),
        }
        if source is not None:
            meta["source"] = source
        items: Iterable[Case] = cases.iter_cases() if isinstance(cases, Dataset) else cases
        rows = ((c.id, _dumps(c.to_dict())) for c in items)
        cls.make_file(path, meta, rows, overwrite=overwrite)

    @classmethod
    def create_from_rows(cls, path: str, meta: dict[str, Any],
                         case_rows: Iterable[tuple[str, str]], *, overwrite: bool, annotator: str,
                         fill: Callable[[sqlite3.Connection], None] | None = None) -> Session:
        """A new session at ``path`` from ``meta`` and ``(case id, case JSON)`` rows; ``fill``
        writes more rows (reviews, annotations) in the same transaction (an import)."""
        cls.make_file(path, meta, case_rows, overwrite=overwrite, fill=fill)
        return cls.open(path, annotator=annotator)

    @classmethod
    def make_file(cls, path: str, meta: dict[str, Any], case_rows: Iterable[tuple[str, str]], *,
                  overwrite: bool,
                  fill: Callable[[sqlite3.Connection], None] | None = None) -> None:
        """The file :meth:`create_from_rows` makes, not opened (no connection is kept)."""
        if os.path.isdir(path):
            raise SessionError(f"{path}: is a directory, not a file")
        if os.path.exists(path) and not overwrite:
            raise SessionError(f"{path}: already exists (choose another name, or --force to "
                               "replace it)")
        if overwrite:
            refuse_if_open_elsewhere(path)  # before any work, and again before the swap
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise SessionError(f"{path}: folder {parent} does not exist")
        with replacing(path, "create session") as tmp:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA foreign_keys = ON")
                migrate(conn)
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT INTO meta VALUES (?, ?)",
                                 [(k, _dumps(v)) for k, v in meta.items()])
                try:
                    conn.executemany("INSERT INTO cases (id, data) VALUES (?, ?)", case_rows)
                except sqlite3.IntegrityError:
                    raise SessionError(f"{path}: duplicate case ids in the input") from None
                if fill is not None:
                    fill(conn)
                conn.execute("COMMIT")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                conn.close()

    @classmethod
    def open(cls, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> Session:
        """Open a session. Read-only when asked, when the file cannot be written or when a newer
        citeview made it (``message`` says why). :class:`SessionInUse` when another live process
        has it open for writing (``force`` takes it over)."""
        check_session_file(path)
        message = None
        if not readonly and not (os.access(path, os.W_OK)
                                 and os.access(os.path.dirname(os.path.abspath(path)), os.W_OK)):
            readonly, message = True, ("the session file or its folder is read-only: opened "
                                       "read-only (Save As keeps working on a copy)")
        try:
            conn = connect(path, readonly=True)
            try:
                app, version = application_id(conn), user_version(conn)
                if app != APPLICATION_ID:
                    raise SessionError(f"{path}: an SQLite database, but not a citeview session")
                if version < 0:  # the header's version field is damaged
                    raise damaged(path, f"session version {version}")
            finally:
                conn.close()
            if version > SCHEMA_VERSION:
                readonly = True
                message = (f"made by a newer citeview (session version {version}, this one knows "
                           f"up to {SCHEMA_VERSION}): opened read-only")
            conn = connect(path, readonly)
            if readonly and version < SCHEMA_VERSION:
                conn = _upgraded_copy(conn)
            if not readonly:
                try:
                    if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
                        raise SessionError(f"{path}: cannot use the WAL journal here")
                    migrate(conn)  # a step that fails is rolled back: the file is as it was
                except BaseException:
                    conn.close()
                    raise
        except SessionError:  # (an InputError, so a ValueError: said as it is)
            raise
        except (sqlite3.DatabaseError, UnicodeDecodeError) as err:  # a damaged schema's text
            raise damaged(path, one_line(err)) from None
        except (ValueError, TypeError) as err:  # a migration met a row it cannot read
            raise damaged(path, one_line(err)) from None
        session = cls(conn, path, readonly=readonly, message=message, annotator=annotator)
        try:
            session._meta_all()
            if not readonly:
                session._acquire_lock(force)
                if session.unclean:
                    # The last writer did not close it (killed, crashed, power cut): check the
                    # pages before trusting it (quick_check; integrity_check may follow later).
                    found = [str(r[0]) for r in conn.execute("PRAGMA quick_check")]
                    if found != ["ok"]:
                        raise damaged(path, "; ".join(found[:3]))
        except (sqlite3.DatabaseError, UnicodeDecodeError) as err:
            conn.close()
            raise damaged(path, one_line(err)) from None
        except BaseException:
            conn.close()
            raise
        return session

    def _acquire_lock(self, force: bool) -> None:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute(
                "SELECT pid, host, token, since, ident FROM lock WHERE id = 1").fetchone()
            if (row is not None and row[2] != self._token and not force
                    and process_alive(row[0], row[1], row[4])):
                raise SessionInUse(
                    f"{self.path}: already open in another citeview (pid {row[0]} on {row[1]}, "
                    f"since {row[3]}); close it there, or open it read-only")
            self.unclean = row is not None and row[2] != self._token
            conn.execute("INSERT OR REPLACE INTO lock VALUES (1, ?, ?, ?, ?, ?)",
                         (os.getpid(), socket.gethostname(), self._token, now_iso(),
                          process_ident(os.getpid())))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Release the lock and close (the WAL is checkpointed into the file)."""
        if self.closed:
            return
        self.flush_sizes()
        self.closed = True
        try:
            if not self.readonly:
                self.conn.execute("DELETE FROM lock WHERE token = ?", (self._token,))
        except sqlite3.Error as err:  # a full disk: the lock row stays, seen as stale later
            raise SessionWriteError(
                f"{self.path}: could not release the session at close ({one_line(err)}); every "
                "verdict was saved before, and the next opening takes the session over") from None
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def changed_elsewhere(self) -> bool:
        """Whether another connection committed since the last call (``PRAGMA data_version``);
        when it did, what this session keeps in memory is read again on next use. A read-only
        window polls this to follow the writer."""
        try:
            version = int(self.conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error:
            return False
        seen, self._data_version = self._data_version, version
        if seen is None or seen == version:
            return False
        self._meta = None
        self._ids = self._positions = None
        self._case_cache.clear()
        self._sizes = None
        return True

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check``: "ok" for a sound file."""
        return "; ".join(str(r[0]) for r in self.conn.execute("PRAGMA integrity_check"))

    def save_as(self, path: str, *, switch: bool = True) -> None:
        """Copy the session to ``path`` with the SQLite backup API (consistent even while
        written). With ``switch`` the session continues in the copy, like an editor's Save As."""
        if os.path.abspath(path) == os.path.abspath(self.path):
            return
        refuse_if_open_elsewhere(path)
        self.flush_sizes()  # (counts not written yet go into the copy too)
        with replacing(path, "save a copy") as tmp:
            dest = sqlite3.connect(tmp, isolation_level=None)
            try:
                self.conn.backup(dest)
                dest.execute("PRAGMA journal_mode = WAL")
                dest.execute("DELETE FROM lock")
            finally:
                dest.close()
        if switch:
            other = Session.open(path, annotator=self.annotator)
            listeners = self._listeners
            self.close()
            self.conn, self.path, self.readonly = other.conn, other.path, other.readonly
            self._token, self.message, self.closed = other._token, other.message, False
            self._listeners = listeners
            self._notify(Change("meta"))

    # ------------------------------------------------------------------ callbacks

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(change)`` after every committed change; returns an unsubscribe."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
        return unsubscribe

    def _notify(self, *changes: Change) -> None:
        _deliver(iter([(listener, change) for change in changes
                       for listener in list(self._listeners)]))

    # ------------------------------------------------------------------ transactions

    def _write(self, statements: Callable[[sqlite3.Connection], object]) -> None:
        """Run ``statements`` in one immediate transaction, committed before returning."""
        if self.readonly:
            raise ReadOnlySession(f"{self.path}: {self.message or 'opened read-only'}")
        if self.closed:
            raise SessionError(f"{self.path}: session is closed")
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                statements(conn)
                conn.execute("COMMIT")
            except BaseException:
                # SQLite may have rolled back already (disk full): nothing to undo then.
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError as err:
            raise SessionError(f"{self.path}: cannot store the change ({err})") from None
        except UnicodeEncodeError as err:
            raise surrogate(self.path, err, "store the change") from None
        except sqlite3.Error as err:
            raise SessionWriteError(
                f"{self.path}: could not save the change ({one_line(err)}); it was not kept, "
                "everything saved before it is safe") from None

    # ------------------------------------------------------------------ meta

    @reading
    def _meta_all(self) -> dict[str, Any]:
        if self._meta is None:
            self._meta = {k: json.loads(v) for k, v in
                          self.conn.execute("SELECT key, value FROM meta ORDER BY rowid")}
        return self._meta

    @property
    def meta(self) -> dict[str, Any]:
        """Session settings (name, labels, blind, families, created, source, unknown keys)."""
        return {k: v for k, v in self._meta_all().items() if k != DOCUMENT_EXTRA}

    @property
    def document_extra(self) -> dict[str, Any]:
        extra = self._meta_all().get(DOCUMENT_EXTRA, {})
        return dict(extra) if isinstance(extra, dict) else {}

    @property
    def labels(self) -> tuple[str, ...]:
        labels = self._meta_all().get("labels")
        if labels is None:
            return DEFAULT_LABELS
        if (not isinstance(labels, list) or not labels
                or not all(isinstance(x, str) and x for x in labels)):
            raise damaged(self.path, "the labels are not a list of names")
        return tuple(labels)

    @property
    def families(self) -> tuple[str, ...]:
        fams = self._meta_all().get("families")
        if fams is None:
            return DEFAULT_FAMILIES
        if not isinstance(fams, list) or not fams or not all(isinstance(x, str) for x in fams):
            raise damaged(self.path, "the marker families are not a list of names")
        return tuple(fams)

    @property
    def blind(self) -> bool:
        return bool(self._meta_all().get("blind", False))

    @property
    def name(self) -> str:
        return str(self._meta_all().get("name") or Path(self.path).stem)

    def set_meta(self, key: str, value: Any) -> None:
        """Set one setting, in its own transaction. New families renumber every case: the
        stored item counts go with them."""
        text = _dumps(value)

        def run(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, text))
            if key == "families":
                conn.execute("DELETE FROM case_stats")
        self._write(run)
        if key == "families":
            self._sizes = None
            self._pending_sizes = {}
            self._analyser = None
        self._meta_all()[key] = json.loads(text)
        self._notify(Change("meta"))

    def set_blind(self, blind: bool) -> None:
        """Remember that the session is (was) annotated blind."""
        self.set_meta("blind", bool(blind))

    def set_labels(self, labels: Sequence[str]) -> None:
        """Use a rubric of one's own: the verdict labels, in key order (1, 2, ...)."""
        cleaned = [str(label).strip() for label in labels]
        if not cleaned or any(not label for label in cleaned) or len(set(cleaned)) != len(cleaned):
            raise SessionError("labels must be distinct non-empty names")
        self.set_meta("labels", cleaned)

    # ------------------------------------------------------------------ cases

    def case_ids(self) -> list[str]:
        """The case ids in order (a copy of its own for the caller)."""
        return list(self._id_list())

    @reading
    def _id_list(self) -> list[str]:
        """The case ids in order, read once (not copied: 10,000 ids per case switch were)."""
        if self._ids is None:
            self._ids = [r[0] for r in self.conn.execute("SELECT id FROM cases ORDER BY pos")]
            self._positions = {cid: i for i, cid in enumerate(self._ids)}
        return self._ids

    def __len__(self) -> int:
        return len(self._id_list())

    def index_of(self, case_id: str) -> int:
        return self._positions_or_load()[case_id]

    @reading_by_id
    def case_data(self, case_id: str) -> dict[str, Any]:
        """The stored case JSON, as it was copied in or imported."""
        row = self.conn.execute("SELECT data FROM cases WHERE id = ?", (case_id,)).fetchone()
        if row is None:
            if self._positions is not None and case_id in self._positions:  # a damaged index
                raise damaged(self.path, f"case {case_id!r} is listed but cannot be read")
            raise KeyError(case_id)
        data: dict[str, Any] = json.loads(row[0])
        return data

    @reading_by_id
    def get_case(self, case_id: str) -> Case:
        """The case, parsed on first use."""
        case = self._case_cache.get(case_id)
        if case is None:
            try:
                case = Case.from_dict(self.case_data(case_id), case_id)
            except InputError as err:
                raise SessionError(f"{self.path}: case {case_id!r}: {err}") from None
            if len(self._case_cache) > 256:
                self._case_cache.clear()
            self._case_cache[case_id] = case
        return case

    def adopt_case(self, case: Case) -> None:
        """Keep ``case`` as this session's parsed copy of the stored case with its id (the
        caller knows they are equal: the session was just made from it), so that it is not
        read and parsed again."""
        if case.id in self._positions_or_load():
            self._case_cache[case.id] = case

    def _positions_or_load(self) -> dict[str, int]:
        self._id_list()
        assert self._positions is not None
        return self._positions

    def case_at(self, index: int) -> Case:
        return self.get_case(self._id_list()[index])

    def dataset(self) -> SessionDataset:
        return SessionDataset(self)

    # ------------------------------------------------------------------ analysis

    @property
    def analyser(self) -> Analyser:
        """The analyser of this session's cases: its families decide the numbering."""
        if self._analyser is None or self._analyser.families != self.families:
            self._analyser = Analyser(self.families, 64)
        return self._analyser

    @property
    def policy(self) -> Policy:
        """The policy this session numbers citations under (its families)."""
        return self.analyser.policy

    def analysed(self, case: str | Case, policy: Policy | None = None) -> AnalysedCase:
        """The analysed case (numbering, resolution, claims; lint on demand) that every view of
        this session reads. ``policy`` may re-grade lint, but the numbering always follows the
        session's families. The case's item counts are stored the first time."""
        if isinstance(case, str):
            case = self.get_case(case)
        found = self.analyser.analysed(case, policy)
        self.record_sizes(case.id, found.item_counts)
        return found

    @reading
    def sizes(self) -> dict[str, tuple[int, ...]]:
        """Per case analysed so far: the judgements each citation takes (numbering order)."""
        if self._sizes is None:
            got: dict[str, tuple[int, ...]] = {}
            for cid, text in self.conn.execute("SELECT case_id, sizes FROM case_stats"):
                try:
                    value = json.loads(text)
                except ValueError:
                    continue  # unreadable: counted again
                if isinstance(value, list) and all(type(v) is int for v in value):
                    got[cid] = tuple(value)
            self._sizes = got
        return self._sizes

    def record_sizes(self, case_id: str, sizes: Sequence[int]) -> None:
        """Remember a case's item counts: at once in memory, on disk with the next
        :meth:`flush_sizes` (a case shown or judged for the first time costs no write of its
        own: counts can always be worked out again)."""
        self.record_sizes_many({case_id: tuple(sizes)}, store=False)

    def record_sizes_many(self, sizes: dict[str, tuple[int, ...]], store: bool = True) -> None:
        """:meth:`record_sizes` for many cases; ``store`` writes them (and any kept back) now,
        in one transaction (a background count)."""
        known = self.sizes()
        new = {cid: tuple(v) for cid, v in sizes.items() if known.get(cid) != tuple(v)}
        known.update(new)
        if not (self.readonly or self.closed):
            self._pending_sizes.update(new)
            if store:
                self.flush_sizes()
        if new:
            self._notify(*[Change("sizes", cid) for cid in new])

    def flush_sizes(self) -> None:
        """Write the item counts kept back (one transaction; a failure only loses counts)."""
        if not self._pending_sizes or self.readonly or self.closed:
            return
        rows = [(cid, json.dumps(list(v))) for cid, v in self._pending_sizes.items()]
        self._pending_sizes = {}
        with contextlib.suppress(SessionError):  # a full disk, a case gone: counted again
            self._write(lambda c: c.executemany(
                "INSERT OR REPLACE INTO case_stats VALUES (?, ?)", rows))

    def add_cases(self, cases: Iterable[Case]) -> list[str]:
        """Copy in cases whose ids the session does not have yet (one transaction)."""
        have = set(self.case_ids())
        new = [c for c in cases if c.id not in have]
        if not new:
            return []
        rows = [(c.id, _dumps(c.to_dict())) for c in new]
        self._write(lambda conn: conn.executemany("INSERT INTO cases (id, data) VALUES (?, ?)",
                                                  rows))
        self._ids = None
        self._notify(Change("cases"))
        return [c.id for c in new]

    def update_case(self, case: Case) -> Reattached:
        """Replace a case's content (e.g. the input changed). When the answer changed, its
        annotations are re-attached; those that cannot be placed are kept, flagged orphaned."""
        old = self.get_case(case.id)
        data = _dumps(case.to_dict())
        anns = self.annotations(case.id)
        if old.answer == case.answer:
            result = Reattached(anns, [])
            if data != _dumps(old.to_dict()):
                self._write(lambda c: c.execute("UPDATE cases SET data = ? WHERE id = ?",
                                                (data, case.id)))
        else:
            result = reattach(anns, citation_slots(self.analysed(case)))

            def run(conn: sqlite3.Connection) -> None:
                conn.execute("UPDATE cases SET data = ? WHERE id = ?", (data, case.id))
                conn.execute("DELETE FROM annotations WHERE case_id = ?", (case.id,))
                conn.execute("DELETE FROM case_stats WHERE case_id = ?", (case.id,))
                for ann in [*result.placed, *result.orphaned]:
                    insert_annotation(conn, ann)
            self._write(run)
            if self._sizes is not None:
                self._sizes.pop(case.id, None)
            self._pending_sizes.pop(case.id, None)  # counts of the old answer: never written
        self._case_cache.pop(case.id, None)
        self._notify(Change("case", case.id))
        return result

    def sync_from(self, dataset: Dataset) -> dict[str, Reattached]:
        """Bring the session up to date with its input: new cases are copied in, changed ones
        updated (annotations re-attached); cases gone from the input stay. Returns the
        re-attachment of each case whose answer changed."""
        stored = dict(self.conn.execute("SELECT id, data FROM cases"))
        new: list[Case] = []
        changed: dict[str, Reattached] = {}
        for case in dataset.iter_cases():
            data = stored.get(case.id)
            if data is None:
                new.append(case)
            elif _dumps(case.to_dict()) != data:
                answer_changed = self.get_case(case.id).answer != case.answer
                result = self.update_case(case)
                if answer_changed:
                    changed[case.id] = result
        self.add_cases(new)
        return changed

    # ------------------------------------------------------------------ annotations

    @reading
    def annotation(self, key: AnnotationKey, annotator: str | None = None) -> Annotation | None:
        """The (placed) annotation at ``key`` by ``annotator`` (default: this session's)."""
        who = self.annotator if annotator is None else annotator
        row = self.conn.execute(
            f"SELECT {ANNOTATION_COLUMNS} FROM annotations WHERE case_id = ? AND number = ? "
            "AND raw = ? "
            "AND source_id = ? AND annotator = ? AND orphaned = 0",
            (key.case_id, key.number, key.anchor, key.source_id, who)).fetchone()
        return annotation_from_row(row) if row else None

    def annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                    orphaned: bool | None = None) -> list[Annotation]:
        """Annotations (all annotators unless one is named), in case then citation order."""
        return list(self.iter_annotations(case_id, annotator=annotator, orphaned=orphaned))

    @reading
    def iter_annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                         orphaned: bool | None = None,
                         number: int | None = None) -> Iterator[Annotation]:
        """Annotations in case then citation order; ``number``: of that citation only (with a
        ``case_id``)."""
        where: list[str] = []
        args: list[object] = []
        if case_id is not None:
            where.append("a.case_id = ?")
            args.append(case_id)
        if number is not None:
            where.append("a.number = ?")
            args.append(number)
        if annotator is not None:
            where.append("a.annotator = ?")
            args.append(annotator)
        if orphaned is not None:
            where.append("a.orphaned = ?")
            args.append(int(orphaned))
        sql = (f"SELECT {columns(ANNOTATION_FIELDS, 'a')} FROM annotations a "
               "JOIN cases c ON c.id = a.case_id"
               + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY c.pos, a.number, a.source_id, a.annotator, a.rowid")
        # A live cursor: export streams 100,000 rows without holding them all.
        for row in self.conn.execute(sql, args):
            yield annotation_from_row(row)

    def orphans(self, case_id: str | None = None) -> list[Annotation]:
        """Annotations whose citation was not found again after the answer changed."""
        return self.annotations(case_id, orphaned=True)

    def put_annotation(self, ann: Annotation) -> None:
        """Store ``ann`` (replacing the one at its key and annotator), in its own transaction. An
        empty annotation (no verdict, no note) is deleted instead."""
        self.apply([RowChange("annotation", ann.case_id, ann.annotator, ann.key, ann.orphaned,
                              None if ann.empty else ann)])

    @reading
    def review(self, case_id: str, annotator: str | None = None) -> CaseReview:
        """The case review by ``annotator`` (default: this session's); not started if none."""
        who = self.annotator if annotator is None else annotator
        return select_review(self.conn, case_id, who) or CaseReview(case_id, who)

    @reading
    def reviews(self, case_id: str | None = None) -> list[CaseReview]:
        sql = (f"SELECT {columns(REVIEW_FIELDS, 'r')} FROM reviews r "
               "JOIN cases c ON c.id = r.case_id")
        args: tuple[str, ...] = ()
        if case_id is not None:
            sql += " WHERE r.case_id = ?"
            args = (case_id,)
        return [review_from_row(r) for r in self.conn.execute(sql + " ORDER BY c.pos, r.annotator",
                                                      args)]

    def put_review(self, review: CaseReview) -> None:
        """Store a case review in its own transaction (an empty one is deleted)."""
        self.apply([RowChange("review", review.case_id, review.annotator, None, False,
                              None if review.empty else review)])

    @reading
    def states(self, annotator: str | None = None) -> dict[str, ReviewState]:
        """Review state of every case that has one, for ``annotator``."""
        who = self.annotator if annotator is None else annotator
        return {cid: ReviewState(state) for cid, state in self.conn.execute(
            "SELECT case_id, state FROM reviews WHERE annotator = ?", (who,))}

    def first_not_done(self, annotator: str | None = None) -> int | None:
        """Index of the first case not done by ``annotator`` (where to resume)."""
        states = self.states(annotator)
        for i, cid in enumerate(self.case_ids()):
            if states.get(cid) is not ReviewState.DONE:
                return i
        return None

    @reading
    def current_row(self, change: RowChange) -> Annotation | CaseReview | None:
        if change.kind == "annotation":
            assert change.key is not None
            if change.orphaned:
                found = [a for a in self.annotations(change.case_id, annotator=change.annotator,
                                                     orphaned=True) if a.key == change.key]
                return found[0] if found else None
            return self.annotation(change.key, change.annotator)
        return select_review(self.conn, change.case_id, change.annotator)

    def apply(self, changes: Sequence[RowChange]) -> None:
        """Write row changes in ONE transaction, committed before returning; then notify."""
        def run(conn: sqlite3.Connection) -> None:
            for ch in changes:
                if ch.kind == "annotation":
                    assert ch.key is not None
                    k = ch.key
                    conn.execute(
                        "DELETE FROM annotations WHERE rowid IN (SELECT rowid FROM annotations "
                        "WHERE case_id = ? AND number = ? AND raw = ? AND source_id = ? AND "
                        "annotator = ? AND orphaned = ? LIMIT 1)",
                        (k.case_id, k.number, k.anchor, k.source_id, ch.annotator,
                         int(ch.orphaned)))
                    if isinstance(ch.new, Annotation):
                        insert_annotation(conn, ch.new)
                else:
                    conn.execute("DELETE FROM reviews WHERE case_id = ? AND annotator = ?",
                                 (ch.case_id, ch.annotator))
                    if isinstance(ch.new, CaseReview):
                        insert_review(conn, ch.new)
        self._write(run)
        self._notify(*[Change(ch.kind, ch.case_id, ch.key) for ch in changes])


def _deliver(calls: Iterator[tuple[Listener, Change]]) -> None:
    """Make every call; one that raises does not stop the others (one broken view must not
    stop the rest): they are made, then its error propagates (a later error chains onto it)."""
    for listener, change in calls:
        try:
            listener(change)
        except Exception:
            _deliver(calls)
            raise


# ---------------------------------------------------------------------- datasets


class SessionDataset(Dataset):
    """The cases of a session as a :class:`Dataset` (kind "session"); ``.session`` is the
    session itself."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.path = session.path
        self.kind = "session"

    def __len__(self) -> int:
        return len(self.session)

    def case_ids(self) -> list[str]:
        return self.session.case_ids()

    def get(self, index: int) -> Case:
        return self.session.case_at(index)

    def index_of(self, case_id: str) -> int:
        return self.session.index_of(case_id)

    def close(self) -> None:
        self.session.close()


# The exceptions and the row writers are defined in errors.py and records.py; importing them from
# here keeps working.
__all__ = [
    "DOCUMENT_EXTRA", "KNOWN_META", "Change", "DamagedSession", "Listener", "ReadOnlySession",
    "RowChange", "Session", "SessionDataset", "SessionError", "SessionInUse", "SessionWriteError",
    "insert_annotation", "insert_review",
]
