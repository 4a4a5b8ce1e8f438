"""Resolving citations against material: for each cited source id, the source and exact span.

A locator ``Lf-Ll`` cites every line whose label number lies in [f, l], repeats included; it is
out of range when f or l is not a label of the source. A locator on a multi-source citation
applies to each source. Offsets are code points in ``Source.text``.
"""

from __future__ import annotations

import difflib
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from operator import attrgetter
from typing import Any

from citeview.core.locators import Locator, near_miss_locator, parse_locator
from citeview.core.markers import Citation
from citeview.core.material import (
    Material,
    Source,
    SourceKind,
    SourceLine,
    SourceLines,
    one_to,
)
from citeview.core.numbering import number_at


class Status(StrEnum):
    OK = "ok"
    WHOLE_SOURCE = "whole-source"
    UNKNOWN_SOURCE = "unknown-source"
    OUT_OF_RANGE = "line-out-of-range"
    REVERSED = "reversed-range"
    NO_LINES = "line-locator-on-unlined-source"
    # A provider's citation (citeview.core.providers): the cited text could not be checked (a
    # PDF page without a text layer, the request with the documents not in the case); the
    # provider's cited text differs from the document at the location; the location (character,
    # page or block index) is outside the document.
    UNCHECKED = "unchecked"
    MISMATCH = "cited-text-differs"
    BAD_LOCATION = "location-out-of-range"

    @property
    def rank(self) -> int:
        """Higher is worse: what a reviewer must look at first."""
        return _RANK[self]

    @property
    def resolved(self) -> bool:
        """The citation points at text that exists, as written."""
        return self is _OK or self is _WHOLE  # (members are singletons: no __eq__ called)

    @property
    def code(self) -> str | None:
        """The lint rule this status corresponds to, if any."""
        return _CODES.get(self)


_OK, _WHOLE = Status.OK, Status.WHOLE_SOURCE
_RANK = {
    Status.OK: 0, Status.WHOLE_SOURCE: 1, Status.UNCHECKED: 2, Status.NO_LINES: 2,
    Status.MISMATCH: 3, Status.REVERSED: 3, Status.BAD_LOCATION: 4, Status.OUT_OF_RANGE: 4,
    Status.UNKNOWN_SOURCE: 5,
}
_CODES = {
    Status.UNKNOWN_SOURCE: "CV201", Status.OUT_OF_RANGE: "CV202", Status.REVERSED: "CV203",
    Status.NO_LINES: "CV204",
}


@dataclass(slots=True, frozen=True)
class Target:
    """What one source id of a citation points at.

    ``lines`` are the cited lines in text order; ``span`` runs from the first cited line's start
    to the last one's end (the whole text when the source is cited whole), None when nothing
    can be shown. ``out_of_range_end`` says which end of the locator is not a label.

    A provider's citation (no marker) says what its span is in ``unit``: ``chars`` (``span`` is
    exactly the cited characters; ``lines`` the lines they touch), ``pages`` (``pages``: first
    and last page, 1-based), ``blocks`` (``blocks``: first and last content block, 0-based),
    ``url`` (a web result: the URL, and the provider's excerpt when it gave one) or ``whole``;
    ``cited_text`` is the provider's own copy of the cited text, when it gave one. A marker's
    target has no ``unit`` (its lines are what its locator names).
    """

    source_id: str
    source: Source | None
    status: Status
    # A tuple; a whole source's are its lines as they are (a parsed source's SourceLines: no
    # object made per line of a 200,000-line source).
    lines: Sequence[SourceLine] = ()
    span: tuple[int, int] | None = None
    detail: str = ""
    out_of_range_end: str | None = None
    locator: Locator | None = None
    duplicates: int = 0  # other sources defining the same id (not used)
    suggestion: str | None = None  # a known id close to an unknown one
    unit: str | None = None  # provider citations: chars, pages, blocks, url or whole
    pages: tuple[int, int] | None = None
    blocks: tuple[int, int] | None = None
    cited_text: str | None = None

    @property
    def ok(self) -> bool:
        status = self.status
        return status is _OK or status is _WHOLE  # (Status.resolved, one call fewer)

    @property
    def text(self) -> str:
        """The cited text: ``source.text[span]``, or empty."""
        source, span = self.source, self.span
        if source is None or span is None:
            return ""
        return source.text[span[0] : span[1]]

    @property
    def labels(self) -> tuple[int, ...]:
        if isinstance(self.lines, SourceLines):
            return tuple(self.lines.labels)
        return tuple(line.label for line in self.lines)

    @property
    def where(self) -> str:
        """Where a provider's citation points, in its own unit ("page 2", "blocks 0-1",
        "characters 13-58"); empty for a marker's target."""
        if self.pages is not None:
            a, b = self.pages
            return f"page {a}" if a == b else f"pages {a}-{b}"
        if self.blocks is not None:
            a, b = self.blocks
            return f"block {a}" if a == b else f"blocks {a}-{b}"
        if self.unit == "chars" and self.span is not None:
            return f"characters {self.span[0]}-{self.span[1]}"
        if self.unit == "url":
            return "web result"
        if self.unit == "whole":
            return "whole source"
        return ""

    def to_dict(self) -> dict[str, object]:
        src = self.source
        return {
            "source_id": self.source_id,
            "status": self.status.value,
            "detail": self.detail,
            "kind": src.kind.value if src is not None else None,
            "title": src.title if src is not None else None,
            "url": src.url if src is not None else None,
            "label": src.label if src is not None else None,
            "origin": src.origin if src is not None else None,
            "lines": list(self.labels),
            "span": list(self.span) if self.span is not None else None,
            "out_of_range_end": self.out_of_range_end,
            "text": self.text,
            **self._provider_dict(),
        }

    def _provider_dict(self) -> dict[str, object]:
        if self.unit is None:
            return {}
        return {"unit": self.unit, "where": self.where,
                "pages": list(self.pages) if self.pages is not None else None,
                "blocks": list(self.blocks) if self.blocks is not None else None,
                "cited_text": self.cited_text}


@dataclass(slots=True, frozen=True)
class Resolution:
    """One citation resolved: a target per source id, in the citation's order."""

    index: int
    citation: Citation
    targets: tuple[Target, ...]

    @property
    def status(self) -> Status:
        """The worst status of the targets."""
        if not self.targets:
            return Status.OK
        return max((t.status for t in self.targets), key=lambda s: s.rank)

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.targets)

    def to_dict(self) -> dict[str, object]:
        c = self.citation
        return {
            "index": number_at(self.index),
            "raw": c.raw,
            "start": c.start,
            "end": c.end,
            "source_ids": list(c.source_ids),
            "locator": c.locator,
            "recovered": c.recovered.value if c.recovered is not None else None,
            "status": self.status.value,
            "targets": [t.to_dict() for t in self.targets],
        }


# --------------------------------------------------------------------------- common case

# A citation of one line or range of a source labelled L1..Ln, every cited label there, is most
# citations of an export: its target is made in a few steps (no index, no line looked up by
# bisection). So are its resolution and the one or two lines most citations cite, each filled
# in a plain class of the same slots and then made what it is by ``__class__`` assignment (a
# frozen dataclass's __init__ sets each field by object.__setattr__, and even its slots' own
# setters, called one by one, cost four times as much). :func:`_resolve_one` makes every other
# target.
_TARGET_FIELDS = ("source_id", "source", "status", "lines", "span", "detail", "out_of_range_end",
                  "locator", "duplicates", "suggestion", "unit", "pages", "blocks", "cited_text")
if tuple(f.name for f in fields(Target)) != _TARGET_FIELDS:  # pragma: no cover
    raise AssertionError("Target's fields changed: update _ok_target")
if tuple(f.name for f in fields(Resolution)) != ("index", "citation", "targets"):
    raise AssertionError("Resolution's fields changed: update resolve")  # pragma: no cover
if tuple(f.name for f in fields(SourceLine)) != ("label", "start", "end"):  # pragma: no cover
    raise AssertionError("SourceLine's fields changed: update _ok_target")


class _TargetSlots:
    __slots__ = Target.__slots__


class _ResolutionSlots:
    __slots__ = Resolution.__slots__


class _LineSlots:
    __slots__ = SourceLine.__slots__


def _line(label: int, start: int, end: int) -> SourceLine:
    """``SourceLine(label, start, end)``, filled as _ok_target fills one."""
    one: Any = _LineSlots()
    one.label = label
    one.start = start
    one.end = end
    one.__class__ = SourceLine
    return one  # type: ignore[no-any-return]


# (Checked once: the layouts agree, so the assignment is allowed and gives the class's object.)
if _line(1, 2, 3) != SourceLine(1, 2, 3) or type(_line(1, 2, 3)) is not SourceLine:
    raise AssertionError("_LineSlots is not SourceLine's layout")  # pragma: no cover
for _slots, _cls in ((_TargetSlots, Target), (_ResolutionSlots, Resolution)):
    _probe: Any = _slots()
    _probe.__class__ = _cls  # (a TypeError here, at import, if the layouts ever differ)
del _slots, _cls, _probe

_LINES_WORDS = ("0 lines", "1 line", *(f"{n} lines" for n in range(2, 64)))
_ONE_TO_MAX = 4096
_ONE_TO = array("q", range(1, _ONE_TO_MAX + 1))  # labels 1..n as a parsed source holds them


def _one_to_n(lines: Sequence[SourceLine]) -> int:
    """n when ``lines`` are a parsed source's, labelled L1..Ln in order (the tuple the quick
    reading shares, or one C comparison of the label column with 1..n), else -1."""
    if type(lines) is not SourceLines:
        return -1
    labels = lines.labels
    n = len(labels)
    if not 0 < n <= _ONE_TO_MAX or labels[0] != 1 or labels[n - 1] != n:
        return -1
    if type(labels) is tuple:
        return n if labels == one_to(n) else -1  # (the same tuple: one look at each item)
    return n if labels == _ONE_TO[:n] else -1


def _ok_target(source_id: str, locator_raw: str | None, sources: dict[str, list[Source]],
               counts: dict[int, int]) -> Target | None:
    """What :func:`_resolve_one` gives for a citation of one source defined once, whose lines
    are labelled L1..Ln (``counts``: id(source) -> n, or -1 when not), by a locator naming
    L(first) to L(last), first <= last, both labels; None for any other citation."""
    if locator_raw is None:
        return None
    found = sources.get(source_id)
    if found is None or len(found) != 1:
        return None
    loc = parse_locator(locator_raw)
    if loc is None:
        return None
    source = found[0]
    n = counts.get(id(source))
    if n is None:
        n = counts[id(source)] = _one_to_n(source.lines)
    first, last = loc.first, loc.last
    if not 1 <= first <= last <= n:
        return None
    lines: SourceLines = source.lines  # type: ignore[assignment]  # (_one_to_n said so)
    k = last - first + 1
    breaks = lines.breaks
    cited: tuple[SourceLine, ...]
    if breaks is not None:  # (the quick reading's: line i is (breaks[i] + 1, breaks[i + 1]))
        if k == 1:
            start, end = breaks[first - 1] + 1, breaks[first]
            one: Any = _LineSlots()  # SourceLine(first, start, end), as _line makes it
            one.label = first
            one.start = start
            one.end = end
            one.__class__ = SourceLine
            cited = (one,)
        elif k == 2:  # (two SourceLines, filled as _line fills one, inline)
            mid = breaks[first]
            start, end = breaks[first - 1] + 1, breaks[last]
            one = _LineSlots()
            one.label = first
            one.start = start
            one.end = mid
            one.__class__ = SourceLine
            two: Any = _LineSlots()
            two.label = last
            two.start = mid + 1
            two.end = end
            two.__class__ = SourceLine
            cited = (one, two)
        else:
            bounds = breaks[first - 1 : last + 1]
            cited = tuple(map(SourceLine, range(first, last + 1), map(_INC, bounds[:-1]),
                              bounds[1:]))
            start, end = bounds[0] + 1, bounds[-1]
        span = (start, end)
    elif k <= 2:  # (most citations)
        start, end = lines.starts[first - 1], lines.ends[first - 1]
        one = _line(first, start, end)
        if k == 1:
            cited = (one,)
            span = (start, end)
        else:
            start2, end2 = lines.starts[last - 1], lines.ends[last - 1]
            cited = (one, _line(last, start2, end2))
            span = (min(start, start2), max(end, end2))
    else:
        starts, ends = lines.starts[first - 1 : last], lines.ends[first - 1 : last]
        cited = tuple(map(SourceLine, range(first, last + 1), starts, ends))
        span = (min(starts), max(ends))
    t: Any = _TargetSlots()  # Target(source_id, source, _OK, cited, span, detail, locator=loc)
    t.source_id = source_id
    t.source = source
    t.status = _OK
    t.lines = cited
    t.span = span
    t.detail = _LINES_WORDS[k] if k < 64 else _lines_word(k)
    t.out_of_range_end = None
    t.locator = loc
    t.duplicates = 0
    t.suggestion = None
    t.unit = None
    t.pages = None
    t.blocks = None
    t.cited_text = None
    t.__class__ = Target
    return t  # type: ignore[no-any-return]


_INC = (1).__add__


# --------------------------------------------------------------------------- per-source index


@dataclass(slots=True)
class _LineIndex:
    """Labels of one source, for range look-ups in O(log n + k) when labels ascend."""

    source: Source
    labels: list[int] = field(default_factory=list)
    label_set: frozenset[int] = frozenset()
    ascending: bool = True
    lo: int = 0
    hi: int = 0

    @classmethod
    def build(cls, source: Source) -> _LineIndex:
        # C-speed passes: the first phase of a window resolves one citation of a 200,000-line
        # source before its first paint (a parsed source's labels are a column already).
        lines = source.lines
        labels = (list(lines.labels) if isinstance(lines, SourceLines)
                  else list(map(attrgetter("label"), lines)))
        asc = labels == sorted(labels)
        # Ascending labels are looked up by bisection: no set of 200,000 numbers to build.
        label_set = frozenset() if asc else frozenset(labels)
        return cls(source, labels, label_set, asc, labels[0] if asc else min(labels),
                   labels[-1] if asc else max(labels))

    def has(self, label: int) -> bool:
        """Whether ``label`` is a label of the source."""
        if not self.ascending:
            return label in self.label_set
        i = bisect_left(self.labels, label)
        return i < len(self.labels) and self.labels[i] == label

    def between(self, lo: int, hi: int) -> Sequence[SourceLine]:
        """Lines whose label lies in [lo, hi], in text order."""
        lines = self.source.lines
        if self.ascending:
            return lines[bisect_left(self.labels, lo) : bisect_right(self.labels, hi)]
        return [line for line in lines if lo <= line.label <= hi]

    def cited(self, lo: int, hi: int) -> tuple[tuple[SourceLine, ...], tuple[int, int] | None]:
        """The lines :meth:`between` ``lo`` and ``hi`` as a tuple, and their span (:func:`_span`):
        for a parsed source with ascending labels, read off its columns (no line object is
        made to be looked at)."""
        lines = self.source.lines
        if not (self.ascending and isinstance(lines, SourceLines)):
            found = tuple(self.between(lo, hi))
            return found, _span(found)
        a, b = bisect_left(self.labels, lo), bisect_right(self.labels, hi)
        if a >= b:
            return (), None
        starts, ends = lines.starts[a:b], lines.ends[a:b]
        return (tuple(map(SourceLine, lines.labels[a:b], starts, ends)),
                (min(starts), max(ends)))

    def describe_missing(self, n: int) -> str:
        """Why ``Ln`` is not a label: before the first, past the last, or in a gap."""
        if n < self.lo:
            return f"before the first line, L{self.lo}"
        if n > self.hi:
            return f"past the last line, L{self.hi}"
        if self.ascending:
            i = bisect_left(self.labels, n)
            below, above = self.labels[i - 1], self.labels[i]
        else:
            below = max(x for x in self.labels if x < n)
            above = min(x for x in self.labels if x > n)
        return f"not a line label (labels skip from L{below} to L{above})"


def _span(lines: Sequence[SourceLine]) -> tuple[int, int] | None:
    if not lines:
        return None
    return min(line.start for line in lines), max(line.end for line in lines)


def _lines_word(n: int) -> str:
    return f"{n} line{'s' if n != 1 else ''}"


def _kind_word(source: Source) -> str:
    if source.kind is SourceKind.BLOCK:
        return f"block {source.label}" if source.label else "block"
    if source.kind is SourceKind.CONTEXT:
        return f"context unit <{source.tag}>" if source.tag else "context unit"
    return {SourceKind.DOCUMENT: "document", SourceKind.FILE: "file",
            SourceKind.LINE: "source", SourceKind.WEB: "web result"}[source.kind]


def _resolve_one(source_id: str, locator_raw: str | None, sources: dict[str, list[Source]],
                 indexes: dict[int, _LineIndex], known: Collection[str]) -> Target:
    found = sources.get(source_id)
    if not found:
        close = difflib.get_close_matches(source_id, known, n=1, cutoff=0.75) if known else []
        hint = f"; did you mean {close[0]}?" if close else ""
        return Target(source_id, None, Status.UNKNOWN_SOURCE,
                      detail=f"no source {source_id!r} in the material{hint}",
                      suggestion=close[0] if close else None)
    source = found[0]
    dup = len(found) - 1
    dup_note = f" (id defined {dup + 1} times; the first is used)" if dup else ""
    whole = (0, len(source.text))
    if locator_raw is None:
        count = f" ({_lines_word(len(source.lines))})" if source.lines else ""
        return Target(source_id, source, Status.WHOLE_SOURCE, _all_lines(source), whole,
                      f"whole {_kind_word(source)}{count}{dup_note}", duplicates=dup)
    loc = parse_locator(locator_raw) or near_miss_locator(locator_raw)
    if loc is None:
        return Target(source_id, source, Status.WHOLE_SOURCE, _all_lines(source), whole,
                      f"locator {locator_raw!r} not understood; whole source{dup_note}",
                      duplicates=dup)
    if not source.lines:
        return Target(source_id, source, Status.NO_LINES, (), whole,
                      f"{loc.raw} given, but {source_id} is a {_kind_word(source)} without line "
                      f"labels; it is cited whole{dup_note}", locator=loc, duplicates=dup)
    index = indexes.get(id(source))
    if index is None:
        index = indexes[id(source)] = _LineIndex.build(source)
    first, last = loc.first, loc.last
    first_ok = index.has(first)
    last_ok = first_ok if last == first else index.has(last)  # (L8: one look-up)
    lo, hi = (first, last) if first <= last else (last, first)
    lines, span = index.cited(lo, hi)
    end: str | None = None
    missing = ""
    if not (first_ok and last_ok):
        if loc.first == loc.last or (not first_ok and not last_ok):
            end = "both"
            if loc.first == loc.last:
                missing = f"L{loc.first} is {index.describe_missing(loc.first)}"
            else:
                a, b = index.describe_missing(loc.first), index.describe_missing(loc.last)
                missing = (f"{loc.raw} is {a}" if a == b else
                           f"both ends are out of range: L{loc.first} is {a}, L{loc.last} is {b}")
        elif not first_ok:
            end = "first"
            missing = (f"{loc.raw}: its start, L{loc.first}, is "
                       f"{index.describe_missing(loc.first)}")
        else:
            end = "last"
            missing = f"{loc.raw}: its end, L{loc.last}, is {index.describe_missing(loc.last)}"
    if first > last:  # (loc.reversed)
        detail = f"{loc.raw} is reversed (L{loc.first} comes after L{loc.last})"
        if missing:
            detail += f"; {missing}"
        elif lines:
            detail += f"; showing L{lo}-L{hi}"
        return Target(source_id, source, Status.REVERSED, lines, span, detail + dup_note,
                      end, loc, dup)
    if end is not None:
        shown = f"; showing the {_lines_word(len(lines))} that exist" if lines else ""
        return Target(source_id, source, Status.OUT_OF_RANGE, lines, span,
                      missing + shown + dup_note, end, loc, dup)
    detail = _lines_word(len(lines))
    if len(lines) > hi - lo + 1:
        detail += " (a label repeats)"
    return Target(source_id, source, Status.OK, lines, span, detail + dup_note, None, loc, dup)


def _all_lines(source: Source) -> Sequence[SourceLine]:
    """A whole source's lines: a parsed source's as they are, others as a tuple."""
    return source.lines if isinstance(source.lines, SourceLines) else tuple(source.lines)


def resolve(citations: Sequence[Citation], material: Material | Iterable[Source]
            ) -> list[Resolution]:
    """Resolve each citation (in the given order, ``index`` 0-based) against the material."""
    if not isinstance(material, Material):
        material = Material(list(material))
    by_id = material.by_id()
    indexes: dict[int, _LineIndex] = {}
    counts: dict[int, int] = {}  # for _ok_target
    # Targets are frozen and depend only on (id, locator): citations that cite the same lines
    # share one (250,000 citations of a few thousand places hold a few thousand targets).
    # The targets of a citation of one source id, a tuple of one, are shared the same way.
    ones: dict[tuple[str, str | None], tuple[Target]] = {}
    out: list[Resolution] = []
    append = out.append
    for i, c in enumerate(citations):
        ids = c.source_ids
        locator = c.locator
        targets: tuple[Target, ...] | None
        if len(ids) == 1:
            key = (ids[0], locator)
            targets = ones.get(key)  # (inline, as most keys recur)
            if targets is None:  # (what _shared does, inline)
                sid = ids[0]
                targets = ones[key] = (_ok_target(sid, locator, by_id, counts)
                                       or _resolve_one(sid, locator, by_id, indexes,
                                                       by_id.keys()),)
        else:
            targets = tuple([_shared((sid, locator), ones, by_id, counts, indexes)[0]
                             for sid in ids])
        res: Any = _ResolutionSlots()  # Resolution(i, c, targets), as _ok_target makes a target
        res.index = i
        res.citation = c
        res.targets = targets
        res.__class__ = Resolution
        append(res)
    return out


def _shared(key: tuple[str, str | None], ones: dict[tuple[str, str | None], tuple[Target]],
            by_id: dict[str, list[Source]], counts: dict[int, int],
            indexes: dict[int, _LineIndex]) -> tuple[Target]:
    """The target of ``key`` (source id, locator) in a tuple of one, made once per resolve."""
    found = ones.get(key)
    if found is None:
        found = ones[key] = (_ok_target(key[0], key[1], by_id, counts)
                             or _resolve_one(key[0], key[1], by_id, indexes, by_id.keys()),)
    return found
