"""Export rows and item counts worked out ahead, in the background (issue 26).

A session made from a big input has neither: its first export analyses every case (about a
millisecond each), and the window's progress counts citations case by case. :func:`prefill` does
both in one pass, analysing each case once: its unjudged export rows go to ``case_rows`` (under
the key an export in the session's folder reads them with, :func:`rows.rows_key`) and its item
counts to ``case_stats``, a piece of :data:`PIECE` cases a transaction, through a connection of
its own. Both are caches: a piece the session cannot take (busy, read-only, a full disk) is
skipped, and a case that has both is skipped, so a pass stopped midway (the window closed) goes
on where it stopped the next time.

:class:`BackgroundFill` runs it in a process of its own (at a lower priority): the
window's thread only reads the counts it sends (:meth:`BackgroundFill.poll`), so it never
stalls, and on a 2-core machine the other core stays the window's.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from citeview.core.batchgc import collect_less
from citeview.core.errors import InputError
from citeview.core.policy import Policy
from citeview.core.pool import ordered_map
from citeview.session.errors import SessionError, read_errors
from citeview.session.files import connect
from citeview.session.migrations import SCHEMA_VERSION, user_version
from citeview.session.rows import (
    analysed_once,
    default_jobs,
    iter_case_ids,
    marks_of,
    rows_key,
    stored_cases,
    unchanged,
    unjudged_rows_text,
)
from citeview.session.store import Session

PIECE = 256  # cases a transaction (and a message to the window)
# A session of at least this many cases gets the pass in the background when it is made (the
# window's count, ``citeview import``); a smaller one is worked out as it is read.
BACKGROUND_MIN_CASES = 1000
Sizes = dict[str, tuple[int, ...]]


def session_policy(session: Session) -> Policy:
    """The lint policy an export of ``session`` finds when run in its folder (the window's
    File > Export, ``citeview export`` there), read with the session's families."""
    found = Policy.discover(os.path.dirname(os.path.abspath(session.path)))
    return found.merged(families=session.families)


def _have(conn: sqlite3.Connection, ids: Sequence[str], key: str) -> set[str]:
    """Those of ``ids`` with both current rows and item counts stored."""
    marks = ",".join("?" * len(ids))
    rows = {r[0] for r in conn.execute(
        f"SELECT case_id FROM case_rows WHERE policy = ? AND case_id IN ({marks})", (key, *ids))}
    if not rows:
        return rows
    return rows & {r[0] for r in conn.execute(
        f"SELECT case_id FROM case_stats WHERE case_id IN ({marks})", ids)}


def prefill(path: str, policy: Policy | None = None, *,
            told: Callable[[Sizes, int], None] | None = None, jobs: int | None = 1) -> int:
    """Work out and store the export rows and item counts of every case of the session file
    ``path`` that lacks either (``policy``: default :func:`session_policy`); ``told(sizes,
    done)`` after each piece: the item counts it worked out, and how many cases are done so
    far. With ``jobs`` > 1 (None: :func:`rows.default_jobs`, the CPUs for a big session) the
    pieces are worked out in that many processes and this one stores them, in order. Returns
    how many cases it worked out."""
    collect_less()
    worked = done = 0
    with Session.open(path, readonly=True) as session:
        if policy is None:
            policy = session_policy(session)
        key = rows_key(session, policy)
        if jobs is None:
            jobs = default_jobs(len(session))
        writer = connect(path, readonly=False)
        try:
            writer.execute("PRAGMA busy_timeout = 200")  # never hold the window's writes long
            writer.execute("PRAGMA synchronous = OFF")  # a cache: worked out again if lost
            # Rows and counts go in only for cases unchanged() finds in the same transaction:
            # the foreign keys' look-up of each case would be a second one.
            writer.execute("PRAGMA foreign_keys = OFF")
            if user_version(writer) != SCHEMA_VERSION:
                return 0
            sizes_of: deque[int] = deque()  # each piece's case count, as it is handed out

            def todo() -> Iterator[list[str]]:
                for ids in iter_case_ids(session, PIECE):  # (a page a piece)
                    with read_errors(session.path):
                        have = _have(session.conn, ids, key)
                    sizes_of.append(len(ids))
                    yield [cid for cid in ids if cid not in have]

            if jobs > 1:
                results: Iterator[_Piece] = ordered_map(
                    _work_pieces, todo(), jobs, batch=1, in_flight_per_job=2,
                    initializer=_init_worker, initargs=(path, policy, key))
            else:
                results = (_work_piece(session, ids, policy, key) for ids in todo())
            for rows, sizes, marks in results:
                done += sizes_of.popleft()
                worked += len(sizes)
                if sizes:
                    _store(writer, rows, sizes, marks)
                if told is not None:
                    told(sizes, done)
        finally:
            with contextlib.suppress(sqlite3.Error):
                writer.close()
    return worked


# (export rows to store, item counts, a mark of each case's JSON as it was analysed)
_Piece = tuple[list[tuple[str, str, str]], Sizes, dict[str, int]]


def _work_piece(session: Session, ids: list[str], policy: Policy, key: str) -> _Piece:
    """The rows and item counts of the cases ``ids``, each analysed once."""
    rows: list[tuple[str, str, str]] = []
    sizes: Sizes = {}
    datas = stored_cases(session, ids)  # (one query, not one a case)
    marks = marks_of(session, ids, datas)
    for cid in ids:
        try:
            analysed = analysed_once(session, cid, policy, datas.get(cid))
        except (SessionError, InputError):
            sizes[cid] = ()  # unreadable: nothing to judge (as the window counts)
            continue
        sizes[cid] = analysed.item_counts
        rows.append((cid, key, unjudged_rows_text(analysed, cid)))
    return rows, sizes, marks


_WORKER: dict[str, Any] = {}


def _init_worker(path: str, policy: Policy, key: str) -> None:
    collect_less()
    _WORKER.update(session=Session.open(path, readonly=True), policy=policy, key=key)


def _work_pieces(pieces: list[list[str]]) -> list[_Piece]:
    w = _WORKER
    return [_work_piece(w["session"], ids, w["policy"], w["key"]) for ids in pieces]


def _store(conn: sqlite3.Connection, rows: list[tuple[str, str, str]], sizes: Sizes,
           marks: dict[str, int]) -> None:
    """One piece in one transaction; a session that cannot take it now keeps none of it. A case
    whose JSON changed since it was analysed (the window took in an edited input meanwhile, and
    dropped its rows) keeps none: stored, its old rows would stand for the new case."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            kept = unchanged(conn, {cid: marks.get(cid, -1) for cid in sizes})
            rows = [r for r in rows if r[0] in kept]
            stats = [(cid, json.dumps(list(v))) for cid, v in sizes.items() if cid in kept]
            conn.executemany("INSERT OR REPLACE INTO case_rows VALUES (?, ?, ?)", rows)
            conn.executemany("INSERT OR REPLACE INTO case_stats VALUES (?, ?)", stats)
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
    except sqlite3.Error:
        pass  # busy, a full disk: worked out again next time


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m citeview.session.prefill SESSION``: the background process. One JSON line
    to standard output per piece (``[done, {case id: item counts}]``), ``["end"]`` last."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m citeview.session.prefill SESSION", file=sys.stderr)
        return 2
    with contextlib.suppress(OSError):
        os.nice(10)  # the window's thread (and the reviewer's other work) comes first

    def told(sizes: Sizes, done: int) -> None:
        sys.stdout.write(json.dumps([done, sizes]) + "\n")
        sys.stdout.flush()

    try:
        prefill(args[0], told=told, jobs=None)
    except (SessionError, sqlite3.Error, InputError) as err:
        print(f"citeview: background pass: {err}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0  # the window went away
    sys.stdout.write('["end"]\n')
    return 0


def start_detached(path: str) -> int:
    """Start the pass over the session file ``path`` in a process that outlives the caller
    (``citeview import``: the command returns at once); its process id (0: not started)."""
    # Started by a short-lived launcher, so that it is nobody's child here (never waited for).
    try:
        got = subprocess.run([sys.executable, "-c", _LAUNCH, sys.executable, path], check=True,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True)
        return int(got.stdout.strip())
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0  # not started: each export works the rows out (storing none)


_LAUNCH = """import subprocess, sys
p = subprocess.Popen([sys.argv[1], "-m", "citeview.session.prefill", sys.argv[2]],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)
print(p.pid)
"""


class BackgroundFill:
    """:func:`prefill` of a session file in a process of its own (``python -m
    citeview.session.prefill``: nothing of the caller's program is run again in it);
    :meth:`poll` (never blocking) hands on the item counts it sent."""

    def __init__(self, path: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "citeview.session.prefill", path],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            bufsize=0,  # (a raw pipe: a read gives what is there, None when nothing is)
            start_new_session=os.name == "posix")  # (its workers in its group: stopped with it)
        assert self.process.stdout is not None
        self._out = self.process.stdout
        os.set_blocking(self._out.fileno(), False)
        self._partial = b""
        self.done = 0  # cases gone through so far
        self.finished = False  # the process ended (its work done, or not: ``complete``)
        self.complete = False

    def poll(self) -> Sizes:
        """The item counts sent since the last call (never waits)."""
        found: Sizes = {}
        if self.finished:
            return found
        chunks = [self._partial]
        while True:
            try:
                got = self._out.read(1 << 16)
            except (BlockingIOError, InterruptedError):
                got = None
            if not got:
                ended = got == b""  # end of file: the process closed its output
                break
            chunks.append(got)
        *lines, self._partial = b"".join(chunks).split(b"\n")
        for line in lines:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg == ["end"]:
                self.complete = True
            elif isinstance(msg, list) and len(msg) == 2 and isinstance(msg[1], dict):
                self.done = int(msg[0])
                found.update((str(k), tuple(v)) for k, v in msg[1].items())
        if ended:
            self.finished = True
            self.process.wait()
        return found

    def stop(self) -> None:
        """End the process and its workers (what it stored stays; the rest is worked out next
        time)."""
        self.finished = True
        if os.name == "posix":
            with contextlib.suppress(OSError):
                os.killpg(self.process.pid, signal.SIGTERM)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        with contextlib.suppress(OSError):
            self._out.close()


__all__ = ["BACKGROUND_MIN_CASES", "PIECE", "BackgroundFill", "main", "prefill", "session_policy",
           "start_detached"]


if __name__ == "__main__":
    raise SystemExit(main())
