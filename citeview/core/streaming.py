"""Incremental marker extraction for answers that arrive in chunks (streamed model output).

:class:`IncrementalExtractor` returns, over any chunking of a text, exactly the citations that
:func:`citeview.core.markers.extract_citations` returns for the whole text, each as soon as it
is final.

Why this is exact: every reference match starts at a START and ends at the first STOP after
its family, and families hold no marker character. So the decision at any START before the
last STOP received so far depends only on text already received: the prefix up to that STOP
parses exactly as it does inside the whole text, and nothing before it can change. The text
after the last STOP waits for the next STOP (or for :meth:`finish`, when it can no longer hold a
citation). Each character is searched a bounded number of times: linear in the answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from citeview.core.markers import (
    DEFAULT_FAMILIES,
    MARKER_CHARS,
    STOP,
    Citation,
    extract_citations,
)


class IncrementalExtractor:
    """Feed chunks with :meth:`feed`; each call returns the citations completed by it."""

    __slots__ = ("_base", "_families", "_found", "_pending", "_pending_len")

    def __init__(self, families: Iterable[str] = DEFAULT_FAMILIES) -> None:
        fams = (families,) if isinstance(families, str) else tuple(families)
        if any(ch in f for f in fams for ch in MARKER_CHARS):
            raise ValueError("a citation family cannot contain a marker character")
        self._families = fams
        # Text after the last STOP seen, as a list: appending to one string chunk by chunk
        # would copy it each time (quadratic for a long stretch without a STOP).
        self._pending: list[str] = []
        self._pending_len = 0
        self._base = 0  # offset of the pending text in the whole text
        self._found: list[Citation] = []

    @property
    def citations(self) -> list[Citation]:
        """Every citation returned so far, in reading order."""
        return list(self._found)

    def feed(self, chunk: str) -> list[Citation]:
        """Add the next chunk of the answer; return the citations it completed."""
        if not chunk:
            return []
        last = chunk.rfind(STOP)
        if last < 0:
            self._pending.append(chunk)
            self._pending_len += len(chunk)
            return []
        region = "".join(self._pending) + chunk[: last + 1]
        rest = chunk[last + 1 :]
        self._pending = [rest]
        self._pending_len = len(rest)
        base = self._base
        self._base += len(region)
        new = [
            Citation(c.raw, c.family, c.source_ids, c.locator, c.start + base, c.end + base)
            for c in extract_citations(region, self._families)
        ]
        self._found.extend(new)
        return new

    def finish(self) -> list[Citation]:
        """The answer is complete. Text after the last STOP cannot hold a citation (every
        citation ends with a STOP), so nothing more is returned; the call marks the end."""
        self._base += self._pending_len
        self._pending = []
        self._pending_len = 0
        return []
