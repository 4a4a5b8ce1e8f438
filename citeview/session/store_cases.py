"""The cases of a SQLite session: copied in (the session survives the dataset moving), listed
in order and parsed when asked for."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any, cast

from citeview.core.cases import Case
from citeview.core.errors import InputError
from citeview.session.errors import (
    SessionError,
    damaged,
    reading,
    reading_by_id,
)
from citeview.session.events import (
    CasesAdded,
)
from citeview.session.jsonio import dumps_json as _dumps
from citeview.session.model import prefix_forms
from citeview.session.settings import CASE_COUNT
from citeview.session.store_file import SessionFile


class SessionCases(SessionFile):
    """The cases of the session."""

    # ------------------------------------------------------------------ cases

    def case_ids(self) -> list[str]:
        """The case ids in order (a copy of its own for the caller)."""
        return list(self._id_list())

    @reading
    def _id_list(self) -> list[str]:
        """The case ids in order, read once (not copied: 10,000 ids per case switch were)."""
        if self._ids is None:
            count, contiguous = self._count_shape()
            if count and contiguous:
                # Positions 1..N (a session made whole): the ids come from their index, which
                # holds each id with its position (tens of MB for a million cases), not from
                # the table, whose rows hold every case's JSON (a GB).
                found: list[str | None] = [None] * count
                for pos, cid in self.conn.execute("SELECT pos, id FROM cases ORDER BY id"):
                    found[pos - 1] = cid
                if None not in found:
                    self._ids = cast("list[str]", found)
                else:  # a case taken out by hand (citeview never does): its stored count lied
                    self._shape = (count - found.count(None), False)
            if self._ids is None:
                self._ids = [r[0] for r in self.conn.execute("SELECT id FROM cases ORDER BY pos")]
            self._positions = {cid: i for i, cid in enumerate(self._ids)}
        return self._ids

    # Reopening a million cases reads none of their ids: the count, a position or a window
    # of ids is a query (positions 1..N, as a session is made: by the primary key), and the
    # whole list is read only by those who ask for it (case_ids).
    @reading
    def _count_shape(self) -> tuple[int, bool]:
        if self._shape is None:
            # Statements apart: min and max alone read one end of the primary key, count(*)
            # alone counts the entries of the smallest index (the ids'); together they were a
            # scan of every case's row (0.4 s per 200,000 cases).
            low = self.conn.execute("SELECT min(pos) FROM cases").fetchone()[0]
            high = self.conn.execute("SELECT max(pos) FROM cases").fetchone()[0]
            stored = self._meta_all().get(CASE_COUNT)
            if type(stored) is int and stored > 0 and (low, high) == (1, stored):
                # The count written with the cases, at positions 1..count still: no count(*)
                # (tens of ms for a million cases, on the window's thread when it opens one).
                self._shape = (stored, True)
            else:  # a session made before the count was stored, or changed by hand
                count = int(self.conn.execute("SELECT count(*) FROM cases").fetchone()[0])
                self._shape = (count, not count or (low, high) == (1, count))
        return self._shape

    def __len__(self) -> int:
        return len(self._ids) if self._ids is not None else self._count_shape()[0]

    def index_of(self, case_id: str) -> int:
        if self._positions is not None:
            return self._positions[case_id]
        found = self._index_by_query(case_id)
        if found is None:
            raise KeyError(case_id)
        return found

    @reading
    def _index_by_query(self, case_id: str) -> int | None:
        row = self.conn.execute("SELECT pos FROM cases WHERE id = ?", (case_id,)).fetchone()
        if row is None:
            return None
        if self._count_shape()[1]:
            return int(row[0]) - 1
        return int(self.conn.execute("SELECT count(*) FROM cases WHERE pos < ?",
                                     row).fetchone()[0])

    @reading
    def ids_between(self, start: int, stop: int) -> list[str]:
        """The ids of the cases at positions ``start`` to ``stop`` (excluded), in order."""
        start, stop = max(0, start), min(stop, len(self))
        if stop <= start:
            return []
        if self._ids is not None:
            return self._ids[start:stop]
        if self._count_shape()[1]:
            return [r[0] for r in self.conn.execute(
                "SELECT id FROM cases WHERE pos > ? AND pos <= ? ORDER BY pos", (start, stop))]
        return [r[0] for r in self.conn.execute(
            "SELECT id FROM cases ORDER BY pos LIMIT ? OFFSET ?", (stop - start, start))]

    @reading
    def ids_starting(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` ids that start with ``prefix`` (as typed, lower case, upper case or
        capitalised), in id order: ranges of the ids' index, never a scan of every case."""
        found: set[str] = set()
        for form in prefix_forms(prefix):
            found.update(r[0] for r in self.conn.execute(
                "SELECT id FROM cases WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
                (form, form + "\U0010ffff", limit)))
        return sorted(found)[:limit]

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
        try:
            self.index_of(case.id)
        except KeyError:
            return
        self._case_cache[case.id] = case

    @reading
    def adopt_case_ids(self, ids: list[str], positions: dict[str, int]) -> None:
        """Keep ``ids`` (and each one's position) as this session's case ids in order: the
        caller made the session from them just now (another thread listed them), so the window
        does not read a million ids back on its own thread. Ignored unless the session holds
        exactly that many cases, numbered from the first."""
        if self._ids is not None or len(ids) != len(positions):
            return
        # min and max apart (each one end of the primary key; together a scan of every row)
        low = self.conn.execute("SELECT min(pos) FROM cases").fetchone()[0]
        high = self.conn.execute("SELECT max(pos) FROM cases").fetchone()[0]
        if ids and (low, high) == (1, len(ids)):
            self._ids, self._positions = ids, positions
            self._shape = (len(ids), True)

    def _positions_or_load(self) -> dict[str, int]:
        self._id_list()
        assert self._positions is not None
        return self._positions

    def case_at(self, index: int) -> Case:
        if index < 0:
            index += len(self)
        found = self.ids_between(index, index + 1) if index >= 0 else []
        if not found:
            raise IndexError(index)
        try:
            return self.get_case(found[0])
        except KeyError:  # listed by position, not found by its id: a damaged index
            raise damaged(self.path, f"case {found[0]!r} is listed but cannot be read") from None

    def add_cases(self, cases: Iterable[Case]) -> list[str]:
        """Copy in cases whose ids the session does not have yet (one transaction)."""
        have = set(self.case_ids())
        new = [c for c in cases if c.id not in have]
        if not new:
            return []
        rows = [(c.id, _dumps(c.to_dict())) for c in new]
        count = str(len(have) + len(new))

        def run(conn: sqlite3.Connection) -> None:
            conn.executemany("INSERT INTO cases (id, data) VALUES (?, ?)", rows)
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (CASE_COUNT, count))
        self._write(run)
        self._ids = self._positions = None
        self._shape = None
        self._meta = None  # (its count)
        self._notify(CasesAdded())
        return [c.id for c in new]

