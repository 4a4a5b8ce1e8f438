"""An answer replayed as a stream, one chunk per step (the window's View > Stream Replay).

:class:`StreamReplay` feeds the answer to an :class:`~citeview.core.streaming.IncrementalScanner`
in chunks cut by a :class:`Chunker` (a fixed size, or random sizes around it) and tells after each
chunk what a streaming view may show: ``answer[:released]`` and the scan of exactly that prefix
(citations, final and provisional diagnostics). An open marker is held back (up to the hold
limit), so a view that renders the released prefix never shows part of a marker. The last chunk
also finishes the scan: the final frame's scan is the whole-text ``scan``.

:class:`RecordedReplay` plays a recorded provider stream (a case read from a stream log keeps
its events in ``extra["stream"]``) as it arrived: one step per event, in the log's order, each
frame the case the response assembled so far makes (provider citations appear when their
annotation or citation event has arrived), and the log's own timing where it has one.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from citeview.core.cases import Case
from citeview.core.diagnostics import Diagnostic
from citeview.core.errors import InputError
from citeview.core.markers import DEFAULT_FAMILIES, Citation, ScanResult
from citeview.core.providers import case_reading
from citeview.core.providers.streams import StreamEvent, read_stream
from citeview.core.streaming import DEFAULT_HOLD_LIMIT, IncrementalScanner
from citeview.core.transcripts import record_to_case


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


# --------------------------------------------------------------------------- recorded streams


def recorded_events(case: Case) -> list[StreamEvent]:
    """The events of the stream ``case`` was read from, in arrival order ([] for a case that
    was not streamed)."""
    stream = case.extra.get("stream")
    if not isinstance(stream, dict) or not isinstance(stream.get("events"), list):
        return []
    out: list[StreamEvent] = []
    for n, ev in enumerate(stream["events"]):
        if isinstance(ev, dict) and isinstance(ev.get("data"), dict):
            t = ev.get("t")
            out.append(StreamEvent(n, str(ev.get("type", "chunk")), ev["data"],
                                   float(t) if isinstance(t, (int, float)) else None))
    return out


@dataclass(slots=True, frozen=True)
class RecordedFrame:
    """What had arrived after ``step`` of ``total`` events: the case the response so far makes
    and its provider citations. An event that changes nothing visible is still a step."""

    step: int
    total: int
    event: StreamEvent | None  # the event of this step (None before the first)
    case: Case
    citations: int  # provider citations of ``case``
    delay: float | None  # seconds between the previous event and this one, when the log has them

    @property
    def finished(self) -> bool:
        return self.step == self.total


class RecordedReplay:
    """A recorded stream played event by event: :meth:`step` takes the next event,
    :meth:`restart` starts over, :meth:`delay` is the log's wait before the next event."""

    __slots__ = ("_cache", "case", "events", "frame", "provider")

    def __init__(self, case: Case) -> None:
        self.case = case
        self.events = recorded_events(case)
        if not self.events:
            raise ValueError(f"case {case.id!r} was not read from a recorded stream")
        self.provider = str(case.extra["stream"].get("provider", "")) or None
        self._cache: dict[int, RecordedFrame] = {}
        self.frame = self.frame_at(0)

    def restart(self) -> None:
        self.frame = self.frame_at(0)

    @property
    def done(self) -> bool:
        return self.frame.finished

    def step(self) -> RecordedFrame:
        """Take the next event; returns (and keeps in :attr:`frame`) what it shows."""
        if not self.done:
            self.frame = self.frame_at(self.frame.step + 1)
        return self.frame

    def frames(self) -> Iterator[RecordedFrame]:
        while not self.done:
            yield self.step()

    def delay(self, factor: float = 1.0) -> float | None:
        """Seconds to wait before the next event as the log timed it (divided by ``factor``:
        2 plays twice as fast), or None when the log has no times."""
        nxt = self.frame.step  # the index of the next event
        if nxt >= len(self.events):
            return None
        if nxt == 0:
            return None if self.events[0].time is None else 0.0
        t0, t1 = self.events[nxt - 1].time, self.events[nxt].time
        if t0 is None or t1 is None:
            return None
        return max(0.0, t1 - t0) / max(factor, 1e-6)

    def frame_at(self, step: int) -> RecordedFrame:
        """The frame after the first ``step`` events: the stream assembled from them as its SDK
        assembles it. A prefix whose response cannot be read yet shows the previous frame's
        case (an annotation whose text has not arrived)."""
        if step in self._cache:
            return self._cache[step]
        prev = self._cache.get(step - 1) if step > 0 else None
        case = Case(self.case.id, "", self.case.question)
        if step > 0:
            reading = read_stream([e.data for e in self.events[:step]], self.provider)
            try:
                case = record_to_case(reading.response, self.case.id)
            except InputError:
                if prev is None:
                    prev = self.frame_at(step - 1)
                case = prev.case
        try:
            found = case_reading(case)
            cites = len(found.citations) if found is not None else 0
        except InputError:
            cites = 0
        delay = None
        if step > 0 and self.events[step - 1].time is not None:
            before = self.events[step - 2].time if step > 1 else self.events[0].time
            delay = (self.events[step - 1].time or 0.0) - (before or 0.0)
        frame = RecordedFrame(step, len(self.events), self.events[step - 1] if step else None,
                              case, cites, delay)
        self._cache[step] = frame
        return frame


__all__ = ["Chunker", "RecordedFrame", "RecordedReplay", "ReplayFrame", "StreamReplay", "chunks",
           "recorded_events"]
