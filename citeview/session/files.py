"""Session files on disk: checking a file is a session, connecting to it, and replacing one
without losing another process's work.

- A session is read by name, again and again (SQLite): never from standard input, a pipe or a
  device (:func:`check_session_file`).
- A process that has a session open for writing records itself in its ``lock`` row (pid, host,
  boot id and start time); :func:`process_alive` tells whether it may still run, so a row left by
  a process that died (or before a reboot) is seen as stale.
- A new session file is built beside its place and moved in (:func:`replace_file`), never over
  a session a live process has open (:func:`refuse_if_open_elsewhere`).
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sqlite3
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from citeview.core.files import STDIN, STDIN_NAME, is_regular_file
from citeview.core.inputs import SQLITE_MAGIC
from citeview.session.errors import SessionError, SessionInUse, damaged, one_line, surrogate
from citeview.session.schema import checked


def check_session_file(path: str) -> None:
    """:class:`SessionError` unless ``path`` is a regular file that starts as SQLite does."""
    if path == STDIN:
        raise SessionError(f"{STDIN_NAME}: a citeview session cannot be read from standard "
                           "input; give its file name")
    if not os.path.exists(path):
        raise SessionError(f"{path}: no such file")
    if os.path.isdir(path):
        raise SessionError(f"{path}: is a directory, not a file")
    if not is_regular_file(path):  # SQLite opens the file by name, again and again
        raise SessionError(f"{path}: a citeview session cannot be read from a pipe or a "
                           "device; give its file name")
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError as err:
        raise SessionError(f"{path}: cannot read ({err.strerror or err})") from None
    if not head:
        raise SessionError(f"{path}: file is empty (0 bytes), not a citeview session")
    if head != SQLITE_MAGIC:
        raise SessionError(f"{path}: not a citeview session (not an SQLite database)")


def connect(path: str, readonly: bool) -> sqlite3.Connection:
    """A connection to the session file at ``path`` (autocommit; foreign keys on; a writer's
    commits synchronous=FULL). Read-only connections never write the file. A schema holding
    anything citeview did not create is refused first (:mod:`citeview.session.schema`)."""
    if readonly:
        uri = "file:" + quote(os.path.abspath(path)) + "?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            # A WAL session in a folder we cannot write (no -shm can be made): read the file
            # as it is on disk, promising SQLite nobody changes it meanwhile.
            conn.close()
            conn = sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None)
    else:
        conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    try:  # before any statement of ours runs against the file: it is data, never code
        checked(conn, path)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as err:  # a damaged schema's text
        raise damaged(path, one_line(err)) from None
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        conn.execute("PRAGMA synchronous = FULL")
    return conn


def refuse_if_open_elsewhere(path: str) -> None:
    """Before replacing ``path``: :class:`SessionInUse` when it is a session that a live
    process has open for writing (replacing it would lose that process's work)."""
    if not os.path.isfile(path):
        return
    try:
        with open(path, "rb") as fh:
            if fh.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
                return
        conn = connect(path, readonly=True)
        try:
            row = conn.execute("SELECT pid, host, since, ident FROM lock WHERE id = 1").fetchone()
        finally:
            conn.close()
    except (OSError, sqlite3.Error, UnicodeDecodeError, SessionError):
        return  # not a session we can read: nobody can be writing it through citeview
    if row is not None and process_alive(row[0], row[1], row[3]):
        raise SessionInUse(
            f"{path}: open in another citeview (pid {row[0]} on {row[1]}, since {row[2]}); "
            "close it there first: nothing was replaced")


def replace_file(tmp: str, path: str) -> None:
    """Move a finished session file into place. The old file's ``-wal``/``-shm`` (left by a
    writer that was killed) go first: SQLite would otherwise apply a foreign log to the new
    file and corrupt it."""
    refuse_if_open_elsewhere(path)
    for suffix in ("-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + suffix)
    os.replace(tmp, path)


@contextlib.contextmanager
def replacing(path: str, doing: str) -> Iterator[str]:
    """A temporary file name beside ``path`` to build a session file in: moved into place
    (:func:`replace_file`) when the block ends, removed in any case. An ``sqlite3`` or OS error
    is a :class:`SessionError` saying ``cannot {doing}``."""
    tmp = temp_name(path, os.getpid())
    _remove_db(tmp)
    clean_stale_temps(os.path.dirname(os.path.abspath(path)))
    try:
        _create_like(tmp, path)
        yield tmp
        replace_file(tmp, path)
    except sqlite3.Error as err:
        raise SessionError(f"{path}: cannot {doing} ({err})") from None
    except UnicodeEncodeError as err:
        raise surrogate(path, err, doing) from None
    except OSError as err:
        raise SessionError(f"{path}: cannot {doing} ({err.strerror or err})") from None
    finally:
        _remove_db(tmp)


def temp_name(path: str, pid: int) -> str:
    """The temporary file process ``pid`` builds the session ``path`` in (:func:`replacing`)."""
    return f"{path}.tmp-{pid}"


def remove_temp(path: str, pid: int) -> None:
    """Remove what the process ``pid``, killed while it built the session ``path``, left of it
    (its temporary file and journals): called by whoever started it and saw it end."""
    _remove_db(temp_name(path, pid))


def _create_like(tmp: str, path: str) -> None:
    """When ``path`` exists: ``tmp`` made empty with its mode, before SQLite writes a byte (and
    SQLite gives the ``-wal``/``-shm`` the database's mode), so a 0600 session's copy is never
    readable by others, not even while it is built."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)  # the bits the umask took away, too
    finally:
        os.close(fd)


# NAME.tmp-PID (and its -wal, -shm, -journal): a session being built by process PID.
_TEMP = re.compile(r"(?P<main>.+\.tmp-(?P<pid>\d+))(?:-wal|-shm|-journal)?")
#: Leftovers untouched this long (and whose process is gone) are stale.
STALE_AFTER = 60.0


def clean_stale_temps(folder: str) -> list[str]:
    """Remove what a process killed while it built a session left in ``folder`` (``NAME.tmp-PID``
    and its ``-wal``/``-shm``/``-journal``): only when that process no longer runs here, the
    file is an SQLite database (or empty), and nothing of it changed for :data:`STALE_AFTER`
    seconds (a process on another machine sharing the folder may still be writing). Returns
    the names removed."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    groups: dict[str, list[str]] = {}
    for name in names:
        m = _TEMP.fullmatch(name)
        if m is not None:
            groups.setdefault(m["main"], []).append(name)
    removed: list[str] = []
    now = time.time()
    for main, members in groups.items():
        pid = int(_TEMP.fullmatch(main)["pid"])  # type: ignore[index]
        if (not 0 < pid < 2**31 or pid == os.getpid()
                or process_alive(pid, socket.gethostname(), "")):
            continue
        paths = [os.path.join(folder, n) for n in members]
        try:
            with open(os.path.join(folder, main), "rb") as fh:
                head = fh.read(len(SQLITE_MAGIC))
        except FileNotFoundError:
            head = b""
        except OSError:
            continue
        if head not in (b"", SQLITE_MAGIC):
            continue  # not a session citeview was building
        try:
            if now - max(os.lstat(p).st_mtime for p in paths) < STALE_AFTER:
                continue
        except OSError:
            continue
        for p in paths:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                os.remove(p)
                removed.append(os.path.basename(p))
    return removed


def _remove_db(path: str) -> None:
    """Remove an SQLite file and its ``-wal``, ``-shm`` and ``-journal``, where they exist."""
    for p in (path, path + "-wal", path + "-shm", path + "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(p)


def process_ident(pid: int) -> str:
    """Boot id and start time of process ``pid`` where the system tells them (Linux), so a
    lock row left before a reboot, or by a process whose pid was reused, is seen as stale."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        stat = Path(f"/proc/{pid}/stat").read_text()
        start = stat[stat.rindex(")") + 2:].split()[19]  # field 22, after "pid (comm) "
    except (OSError, ValueError, IndexError):
        return ""
    return f"{boot}:{start}"


def _exited(pid: int) -> bool:
    """A zombie (killed, not yet reaped by its parent) still answers ``kill(pid, 0)`` but
    will never write again (Linux: state Z or X in ``/proc/PID/stat``)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    state = stat[stat.rindex(")") + 2:stat.rindex(")") + 3]
    return state in ("Z", "X")


def process_alive(pid: int, host: str, ident: str) -> bool:
    """Whether the process that wrote a lock row may still run (other hosts: assume so)."""
    if host != socket.gethostname():
        return True
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    except OSError:
        return False
    if _exited(pid):
        return False
    now = process_ident(pid)
    return not (ident and now and now != ident)


__all__ = [
    "check_session_file", "clean_stale_temps", "connect", "process_alive", "process_ident",
    "refuse_if_open_elsewhere", "remove_temp", "replace_file", "replacing", "temp_name",
]
