"""The analysis of a SQLite session's cases and their item counts (``case_stats``): analysed
once by the session's :class:`~citeview.core.analysis.Analyser`, counts remembered in memory at
once and written with the next flush."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Sequence

from citeview.session.analysing import AnalysingStore
from citeview.session.errors import (
    SessionError,
    reading,
)
from citeview.session.events import (
    SizesKnown,
)
from citeview.session.store_cases import SessionCases


class SessionStats(SessionCases, AnalysingStore):
    """Analyses and item counts."""

    # ------------------------------------------------------------------ analysis


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
            self._notify(*[SizesKnown(cid) for cid in new])

    def sizes_stored(self, sizes: dict[str, tuple[int, ...]]) -> None:
        """Item counts another process stored (the background pass, session/prefill.py):
        known at once, never written again here (the window's thread waits on no writer for
        them) and told to no subscriber: the caller takes them into its progress at once (a
        subscriber repaints per change: 2.6 ms a case, a stall for a piece of them)."""
        known = self.sizes()
        for cid, v in sizes.items():
            known[cid] = tuple(v)
            self._pending_sizes.pop(cid, None)

    def flush_sizes(self) -> None:
        """Write the item counts kept back (one transaction; a failure only loses counts)."""
        if not self._pending_sizes or self.readonly or self.closed:
            return
        rows = [(cid, json.dumps(list(v))) for cid, v in self._pending_sizes.items()]
        self._pending_sizes = {}
        # Counts can be worked out again: their commit is not synced to disk (a sync on a busy
        # disk stalled the window's thread for most of a second while it counted in the
        # background); the next verdict's synced commit syncs them too, and a crash before it
        # loses only counts (WAL frames are checksummed: the file stays sound).
        with contextlib.suppress(SessionError, sqlite3.Error):
            self.conn.execute("PRAGMA synchronous = OFF")
        try:
            with contextlib.suppress(SessionError):  # a full disk, a case gone: counted again
                self._write(lambda c: c.executemany(
                    "INSERT OR REPLACE INTO case_stats VALUES (?, ?)", rows))
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("PRAGMA synchronous = FULL")

