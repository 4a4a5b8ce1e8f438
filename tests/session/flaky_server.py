"""A stand-in for a team project's server that goes away on demand (for the outbox tests).

Memory sessions behind a switch: while ``down`` every call raises :class:`ServerUnreachable`, as
the PostgreSQL store does when its connection is refused or dropped; ``drop_answer`` commits
the next write and then fails (its answer lost on the way). Each op id is stored once, as the
server does (``apply(changes, op_id=...)`` is False when it was stored before).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeview.session.errors import ServerUnreachable
from citeview.session.memory import MemoryBackend, MemorySession
from citeview.session.protocol import RowChange


class Server:
    """Memory sessions behind a switch: ``down`` makes every call fail as a lost server does;
    ``drop_answer`` commits the next write and then fails (the answer lost on the way)."""

    def __init__(self) -> None:
        self.backend = MemoryBackend()
        self.down = False
        self.drop_answer = False
        self.ops: list[str] = []  # op ids stored, in order

    def open(self, path: str, annotator: str) -> FlakyStore:
        if self.down:
            raise ServerUnreachable("connection refused")
        return FlakyStore(self, self.backend.open(path, annotator=annotator, force=True))


class FlakyStore:
    def __init__(self, server: Server, session: MemorySession) -> None:
        self._server = server
        self._session = session

    def __getattr__(self, name: str) -> Any:
        if self._server.down:
            raise ServerUnreachable("server closed the connection unexpectedly")
        return getattr(self._session, name)

    def __len__(self) -> int:
        return len(self.__getattr__("case_ids")())

    def applied(self, op_id: str) -> bool:
        return op_id in self._server.ops

    def apply(self, changes: Sequence[RowChange], op_id: str | None = None) -> bool:
        if self._server.down:
            raise ServerUnreachable("server closed the connection unexpectedly")
        fresh = op_id is None or op_id not in self._server.ops
        if fresh:
            self._session.apply(changes)
            if op_id is not None:
                self._server.ops.append(op_id)
        if self._server.drop_answer:
            self._server.drop_answer = False
            self._server.down = True
            raise ServerUnreachable("server closed the connection unexpectedly")
        return fresh
