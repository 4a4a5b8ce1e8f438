"""The session file and its lock, settings, subscriptions and transactions: the base of the
SQLite :class:`~citeview.session.store.Session` (its other jobs are :mod:`.store_cases`,
:mod:`.store_stats` and :mod:`.store_annotations`, each a class built on the one before).

- WAL journal, ``synchronous=FULL`` and foreign keys on; ``PRAGMA user_version`` plus ordered
  migrations (:mod:`citeview.session.migrations`); a session from a newer citeview opens
  read-only with a message.
- Every change is its own transaction, committed at once: there is no unsaved state, so no Save
  prompt. Save As copies with the SQLite backup API.
- A process that opens a session for writing records itself in the ``lock`` row (pid, host); a
  second process finds it alive and is told (:class:`SessionInUse`). A row left by a process
  that died is taken over. How a session file is checked, connected to and replaced, and whether
  a process lives, is :mod:`citeview.session.files`; its rows are :mod:`citeview.session.records`.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Self

from citeview.core.analysis import Analyser
from citeview.core.cases import Case
from citeview.core.datasets import Dataset, JsonlDataset
from citeview.core.markers import DEFAULT_FAMILIES
from citeview.session import copying
from citeview.session.errors import (
    DuplicateCaseIds,
    ReadOnlySession,
    SessionError,
    SessionInUse,
    SessionWriteError,
    damaged,
    one_line,
    reading,
    surrogate,
)
from citeview.session.events import (
    Change,
    Listener,
    MetaChanged,
    Subscribers,
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
    now_iso,
)
from citeview.session.schema import harden
from citeview.session.settings import CASE_COUNT, StoredSettings

# Meta keys with a meaning; any other meta key (e.g. from an imported file) is kept as is.
CASE_BATCH = 2000  # case rows a statement inserts when a session is made
FILL_CACHE_KIB = 64 << 10  # SQLite's page cache while a session is made (the ids' index)
SYNC_SECONDS = 1.0  # how often a fresh session file's pages are synced while it fills
KNOWN_META = ("name", "labels", "blind", "families", "created", "source", "reasons")



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



@contextlib.contextmanager
def _syncing(path: str | None) -> Iterator[None]:
    """While the block runs, a thread syncs the pages of the file ``path`` (None: nothing) to
    disk every :data:`SYNC_SECONDS`, so the sync before a fresh file is moved in has little
    left to write (a million cases left a GB for it). The sync runs without the interpreter
    lock, beside the inserts."""
    if path is None:
        yield
        return
    stop = threading.Event()
    sync = getattr(os, "fdatasync", os.fsync)

    def run() -> None:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return
        try:
            while not stop.wait(SYNC_SECONDS):
                sync(fd)
        except OSError:
            pass  # the sync before the move says what is wrong
        finally:
            os.close(fd)

    thread = threading.Thread(target=run, name="citeview-session-sync", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


class SessionFile(StoredSettings):
    """An open session file: lock, settings, subscriptions, transactions."""

    def __init__(self, conn: sqlite3.Connection, path: str, *, readonly: bool,
                 message: str | None, annotator: str) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self.message = message  # e.g. why it is read-only; for the status bar
        self.annotator = annotator
        self._token = uuid.uuid4().hex
        self._subscribers = Subscribers()
        self._ids: list[str] | None = None
        self._positions: dict[str, int] | None = None
        self._shape: tuple[int, bool] | None = None  # (case count, positions are 1..count)
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
               source: str | None = None, overwrite: bool = False) -> Self:
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
        rows: Iterable[tuple[str, str | bytes]]
        if isinstance(cases, JsonlDataset) and copying.in_process(cases):
            # A big file not read yet: read and written by processes of their own, this thread
            # only waits (issue 26); it stays unindexed here.
            copying.make_in_processes(path, cases, meta, overwrite=overwrite)
            return
        if isinstance(cases, JsonlDataset):
            # A case line is stored as it is (one parse, no build and dump: issue 26).
            rows = ((cid, c if isinstance(c, str) else _dumps(c.to_dict()))
                    for cid, c in cases.iter_case_texts())
        else:
            items: Iterable[Case] = cases.iter_cases() if isinstance(cases, Dataset) else cases
            rows = ((c.id, _dumps(c.to_dict())) for c in items)
        cls.make_file(path, meta, rows, overwrite=overwrite, fresh=True)

    @classmethod
    def create_from_rows(cls, path: str, meta: dict[str, Any],
                         case_rows: Iterable[tuple[str, str]], *, overwrite: bool, annotator: str,
                         fill: Callable[[sqlite3.Connection], None] | None = None) -> Self:
        """A new session at ``path`` from ``meta`` and ``(case id, case JSON)`` rows; ``fill``
        writes more rows (reviews, annotations) in the same transaction (an import)."""
        cls.make_file(path, meta, case_rows, overwrite=overwrite, fill=fill)
        return cls.open(path, annotator=annotator)

    @classmethod
    def make_file(cls, path: str, meta: dict[str, Any],
                  case_rows: Iterable[tuple[str, str | bytes]], *, overwrite: bool,
                  fill: Callable[[sqlite3.Connection], None] | None = None,
                  fresh: bool = False) -> None:
        """The file :meth:`create_from_rows` makes, not opened (no connection is kept). A case's
        JSON may be UTF-8 bytes (stored as text). ``fresh``: filled with no journal at all (each
        page written once, not to the WAL and again into the file), then switched to WAL and
        synced before it is moved into place."""
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
                # A file nobody sees until it is moved in whole: no syncs while it is filled
                # (a crash leaves a temporary file, never a half-made session).
                conn.execute(f"PRAGMA journal_mode = {'OFF' if fresh else 'WAL'}")
                conn.execute("PRAGMA synchronous = OFF")
                conn.execute(f"PRAGMA cache_size = -{FILL_CACHE_KIB}")
                conn.execute("PRAGMA foreign_keys = ON")
                migrate(conn)
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT INTO meta VALUES (?, ?)",
                                 [(k, _dumps(v)) for k, v in meta.items()])
                with _syncing(tmp if fresh else None):
                    try:
                        # In batches: each C call is short (a window's thread keeps the GIL
                        # moving) and memory is one batch, whatever the case count.
                        rows = iter(case_rows)
                        count = 0
                        while batch := list(itertools.islice(rows, CASE_BATCH)):
                            conn.executemany(
                                "INSERT INTO cases (id, data) VALUES (?, CAST(? AS TEXT))",
                                batch)
                            count += len(batch)
                    except sqlite3.IntegrityError:
                        raise DuplicateCaseIds(f"{path}: duplicate case ids in the input") from None
                    # Positions 1..count: the session knows its count when it is opened.
                    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                 (CASE_COUNT, str(count)))
                if fill is not None:
                    fill(conn)
                conn.execute("COMMIT")
                if fresh:
                    conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                conn.close()
            if fresh:  # (no journal: the file's own pages synced before it is moved in)
                fd = os.open(tmp, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)

    @classmethod
    def open(cls, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> Self:
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
        # The lock row is not synced to disk (WAL, synchronous=NORMAL): a power cut that loses
        # it loses only the mark of a process that is gone, and a sync on a busy disk stalled
        # the window's thread as it opened the session it had just made.
        conn.execute("PRAGMA synchronous = NORMAL")
        try:
            self._write_lock_row(force)
        finally:
            conn.execute("PRAGMA synchronous = FULL")

    def _write_lock_row(self, force: bool) -> None:
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

    def __enter__(self) -> Self:
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
        self._shape = None
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
            other = type(self).open(path, annotator=self.annotator)
            subscribers = self._subscribers
            self.close()
            self.conn, self.path, self.readonly = other.conn, other.path, other.readonly
            self._token, self.message, self.closed = other._token, other.message, False
            self._subscribers = subscribers
            self._notify(MetaChanged())

    def flush_sizes(self) -> None:
        """Write what is kept back: the item counts, :class:`~.store_stats.SessionStats`."""

    # ------------------------------------------------------------------ callbacks

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(change)`` after every committed change; returns an unsubscribe."""
        return self._subscribers.subscribe(listener)

    def _notify(self, *changes: Change) -> None:
        self._subscribers.notify(*changes)

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
                conn.execute("DELETE FROM case_rows")
        self._write(run)
        if key == "families":
            self._sizes = None
            self._pending_sizes = {}
            self._analyser = None
        self._meta_all()[key] = json.loads(text)
        self._notify(MetaChanged())

