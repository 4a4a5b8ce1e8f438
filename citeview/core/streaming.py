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

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from citeview.core.markers import (
    DEFAULT_FAMILIES,
    MARKER_CHARS,
    START,
    STOP,
    Citation,
    ScanResult,
    extract_citations,
    scan,
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


# --------------------------------------------------------------------------- incremental scan

# A marker character written as an ASCII escape (as markers.decode_literal_escapes reads them):
# group 1 or 2 is 0 for START, 1 for STOP.
_ESCAPE_TOKEN_RE = re.compile(r"\\+u(?:\{[eE]20([012])\}|[eE]20([012]))")

#: How far an unterminated marker is held back from the released text.
DEFAULT_HOLD_LIMIT = 4096


def _open_start(text: str, end: int) -> int:
    """The position of the START in ``text[:end]`` that no STOP follows there, or -1."""
    i = text.rfind(START, 0, end)
    return i if i > text.rfind(STOP, 0, end) else -1


def _open_escape(text: str, end: int) -> int:
    """The same for markers written as ASCII escapes (``\\ue200``), or -1."""
    if "\\" not in text:
        return -1
    last_start = last_stop = -1
    for m in _ESCAPE_TOKEN_RE.finditer(text, 0, end):
        kind = m.group(1) or m.group(2)
        if kind == "0":
            last_start = m.start()
        elif kind == "1":
            last_stop = m.start()
    return last_start if last_start > last_stop else -1


def safe_cut(text: str) -> int:
    """The largest cut ``c`` (0: none) after which nothing can change what :func:`scan` finds
    before it: just after a line break, with no marker (nor escaped marker) open there. Every
    other pass of ``scan`` reads within one line, so ``scan(text)`` is ``scan(text[:c])``
    followed by ``scan(text[c:])`` shifted by ``c`` (checked by the property tests)."""
    end = len(text)
    while True:
        nl = text.rfind("\n", 0, end)
        if nl < 0:
            return 0
        cut = nl + 1
        opens = [o for o in (_open_start(text, cut), _open_escape(text, cut)) if o >= 0]
        if not opens:
            return cut
        end = min(opens)


def _shifted(result: ScanResult, base: int) -> ScanResult:
    if base:
        for c in result.citations:
            c.start += base
            c.end += base
        for d in result.diagnostics:
            d.start += base
            d.end += base
    return result


@dataclass(slots=True)
class ScanUpdate:
    """What one :meth:`IncrementalScanner.feed` tells: ``final`` findings (never change again,
    to append), the ``provisional`` findings of the text after them (to replace the previous
    update's), and ``released``: how much of the answer may be shown (an unterminated marker
    is held back, up to the hold limit)."""

    final: ScanResult = field(default_factory=ScanResult)
    provisional: ScanResult = field(default_factory=ScanResult)
    released: int = 0
    held: bool = False


class IncrementalScanner:
    """:func:`citeview.core.markers.scan` over a streamed answer: diagnostics while streaming,
    and after :meth:`finish` exactly the whole-text ``scan`` for every chunking.

    Text up to the last safe cut (:func:`safe_cut`) is scanned once and final. The text after
    it is scanned again at each feed (provisional). A marker opened and not yet closed is held:
    the provisional findings and ``released`` stop before it, until it closes or until it is
    ``hold_limit`` characters long; then it is released as text with its diagnostic (CV101),
    and if it closes later the next update shows the citation instead."""

    __slots__ = ("_base", "_families", "_final", "_hold_limit", "_known", "_pending",
                 "_provisional")

    def __init__(self, families: Iterable[str] = DEFAULT_FAMILIES, known_ids: Iterable[str] = (),
                 hold_limit: int = DEFAULT_HOLD_LIMIT) -> None:
        self._families = (families,) if isinstance(families, str) else tuple(families)
        self._known = tuple(known_ids)
        self._hold_limit = hold_limit
        self._pending = ""  # text after the last safe cut
        self._base = 0  # its offset in the answer
        self._final = ScanResult()
        self._provisional = ScanResult()

    @property
    def text_length(self) -> int:
        return self._base + len(self._pending)

    @property
    def final(self) -> ScanResult:
        """What is final so far (the scanner's own lists: read, do not change)."""
        return self._final

    def result(self) -> ScanResult:
        """Everything found so far: the final findings and the current provisional ones."""
        return ScanResult([*self._final.citations, *self._provisional.citations],
                          [*self._final.diagnostics, *self._provisional.diagnostics])

    def _scan(self, text: str, base: int) -> ScanResult:
        return _shifted(scan(text, self._families, self._known), base)

    def feed(self, chunk: str) -> ScanUpdate:
        """Add the next chunk of the answer."""
        update = ScanUpdate()
        pending = self._pending + chunk
        cut = safe_cut(pending) if "\n" in chunk or START in chunk or STOP in chunk \
            or "\\" in chunk else 0
        if cut:
            update.final = self._scan(pending[:cut], self._base)
            self._final.citations.extend(update.final.citations)
            self._final.diagnostics.extend(update.final.diagnostics)
            self._base += cut
            pending = pending[cut:]
        self._pending = pending
        held_at = _open_start(pending, len(pending))
        if held_at >= 0 and len(pending) - held_at <= self._hold_limit:
            self._provisional = self._scan(pending[:held_at], self._base)
            update.released, update.held = self._base + held_at, True
        else:
            self._provisional = self._scan(pending, self._base)
            update.released = self._base + len(pending)
        update.provisional = self._provisional
        return update

    def finish(self) -> ScanResult:
        """The answer is complete: the whole-text ``scan`` of it."""
        tail = self._scan(self._pending, self._base)
        self._final.citations.extend(tail.citations)
        self._final.diagnostics.extend(tail.diagnostics)
        self._base += len(self._pending)
        self._pending = ""
        self._provisional = ScanResult()
        return ScanResult(list(self._final.citations), list(self._final.diagnostics))


__all__ = ["DEFAULT_HOLD_LIMIT", "IncrementalExtractor", "IncrementalScanner", "ScanUpdate",
           "safe_cut"]
