"""An answer replayed as a stream, one chunk per step (the window's View > Stream Replay).

:class:`StreamReplay` feeds the answer to an :class:`~citeview.core.streaming.IncrementalScanner`
in chunks cut by a :class:`Chunker` (a fixed size, or random sizes around it) and tells after each
chunk what a streaming view may show: ``answer[:released]`` and the scan of exactly that prefix
(citations, final and provisional diagnostics). An open marker is held back (up to the hold
limit), so a view that renders the released prefix never shows part of a marker. The last chunk
also finishes the scan: the final frame's scan is the whole-text ``scan``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from citeview.core.diagnostics import Diagnostic
from citeview.core.markers import DEFAULT_FAMILIES, Citation, ScanResult
from citeview.core.streaming import DEFAULT_HOLD_LIMIT, IncrementalScanner


class Chunker:
    """Chunk sizes: ``size`` each, or with ``randomised`` a random size from 1 to
    ``2 * size - 1`` (``size`` on average), drawn from a generator seeded with ``seed``.
    ``size`` and ``randomised`` may change between chunks."""

    __slots__ = ("_rng", "randomised", "size")

    def __init__(self, size: int = 8, randomised: bool = False, seed: int | None = 0) -> None:
        if size < 1:
            raise ValueError("a chunk holds at least one character")
        self.size = size
        self.randomised = randomised
        self._rng = random.Random(seed)

    def next_size(self) -> int:
        if self.randomised and self.size > 1:
            return self._rng.randint(1, 2 * self.size - 1)
        return self.size


def chunks(text: str, size: int, *, randomised: bool = False, seed: int | None = 0) -> list[str]:
    """``text`` cut as a :class:`Chunker` cuts it (their concatenation is ``text``)."""
    chunker = Chunker(size, randomised, seed)
    out: list[str] = []
    pos = 0
    while pos < len(text):
        n = chunker.next_size()
        out.append(text[pos:pos + n])
        pos += n
    return out


@dataclass(slots=True)
class ReplayFrame:
    """What a streaming view may show after a step: ``answer[:released]``, whose scan is
    :attr:`scan` (``final_diagnostics`` never change again; ``provisional`` ones may)."""

    chunks: int = 0  # chunks fed so far
    received: int = 0  # characters fed so far
    released: int = 0  # characters that may be shown (an open marker is held back)
    held: bool = False  # an open marker is held back after ``released``
    finished: bool = False  # the whole answer is in and the scan finished
    citations: list[Citation] = field(default_factory=list)
    final_diagnostics: list[Diagnostic] = field(default_factory=list)
    provisional_diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def scan(self) -> ScanResult:
        """The scan of ``answer[:released]`` (equal to ``scan`` of that prefix)."""
        return ScanResult(list(self.citations),
                          [*self.final_diagnostics, *self.provisional_diagnostics])


class StreamReplay:
    """``answer`` streamed chunk by chunk through an incremental scan; :meth:`step` feeds one
    chunk (the last one also finishes), :meth:`restart` starts over."""

    __slots__ = ("_scanner", "answer", "chunker", "families", "frame", "hold_limit",
                 "known_ids")

    def __init__(self, answer: str, families: Iterable[str] = DEFAULT_FAMILIES,
                 known_ids: Iterable[str] = (), *, hold_limit: int = DEFAULT_HOLD_LIMIT,
                 chunker: Chunker | None = None) -> None:
        self.answer = answer
        self.families = (families,) if isinstance(families, str) else tuple(families)
        self.known_ids = tuple(known_ids)
        self.hold_limit = hold_limit
        self.chunker = chunker if chunker is not None else Chunker()
        self.restart()

    def restart(self) -> None:
        """Back to the beginning: nothing received (the chunker keeps its settings)."""
        self._scanner = IncrementalScanner(self.families, self.known_ids, self.hold_limit)
        self.frame = ReplayFrame()

    @property
    def done(self) -> bool:
        return self.frame.finished

    def step(self, size: int | None = None) -> ReplayFrame:
        """Feed the next chunk (``size`` characters, default the chunker's); at the end of the
        answer, finish the scan. Returns (and keeps in :attr:`frame`) what may be shown."""
        old = self.frame
        if old.finished:
            return old
        n = size if size is not None else self.chunker.next_size()
        end = min(len(self.answer), old.received + max(1, n))
        frame = ReplayFrame(old.chunks + (1 if end > old.received else 0), end)
        if end > old.received:
            update = self._scanner.feed(self.answer[old.received:end])
            final = self._scanner.final
            frame.released, frame.held = update.released, update.held
            frame.citations = [*final.citations, *update.provisional.citations]
            frame.final_diagnostics = list(final.diagnostics)
            frame.provisional_diagnostics = list(update.provisional.diagnostics)
        if end == len(self.answer):
            whole = self._scanner.finish()
            frame.released, frame.held, frame.finished = end, False, True
            frame.citations = list(whole.citations)
            frame.final_diagnostics = list(whole.diagnostics)
            frame.provisional_diagnostics = []
        self.frame = frame
        return frame

    def frames(self) -> Iterator[ReplayFrame]:
        """Every remaining step's frame, to the finished one."""
        while not self.done:
            yield self.step()


__all__ = ["Chunker", "ReplayFrame", "StreamReplay", "chunks"]
