"""The read decorators map what a read raises to a one-line DamagedSession: a plain method when
called, a generator while it is iterated."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from citeview.session.errors import (
    DamagedSession,
    SessionError,
    reading,
    reading_by_id,
)


class Reader:
    path = "s.citeview"

    @reading
    def bad_column(self) -> int:
        raise ValueError("a note is int,\n not text")

    @reading
    def rows(self, n: int) -> Iterator[int]:
        yield from range(n)
        raise sqlite3.DatabaseError("database disk image is malformed")

    @reading
    def lookup(self) -> int:
        raise KeyError("x")

    @reading_by_id
    def case(self, case_id: str) -> int:
        raise KeyError(case_id)

    @reading
    def refused(self) -> int:
        raise SessionError("told as it is")


def test_a_plain_read_is_mapped_when_called() -> None:
    with pytest.raises(DamagedSession, match=r"^s\.citeview: damaged session \(a note is int, "
                                             r"not text\)"):
        Reader().bad_column()


def test_a_generator_is_mapped_while_iterated_and_keeps_its_rows() -> None:
    rows = Reader().rows(2)  # nothing runs yet
    assert next(rows) == 0 and next(rows) == 1
    with pytest.raises(DamagedSession, match="database disk image is malformed"):
        next(rows)
    assert Reader.rows.__name__ == "rows"


def test_a_key_error_is_damage_unless_the_read_is_by_id() -> None:
    with pytest.raises(DamagedSession):
        Reader().lookup()
    with pytest.raises(KeyError):
        Reader().case("nope")


def test_a_session_error_passes_unchanged() -> None:
    with pytest.raises(SessionError, match="^told as it is$") as err:
        Reader().refused()
    assert type(err.value) is SessionError
