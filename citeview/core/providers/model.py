"""The common model of a provider's citations, and the helpers its readers share.

Every reader (:mod:`.openai`, :mod:`.anthropic`, :mod:`.gemini`) turns a response (and the
request beside it, when the cited documents are there) into a :class:`ProviderReading`: the
answer text, the sources the citations point into (:class:`~citeview.core.material.Source`
objects, so the window and the session show them like any material), and the citations.

A :class:`ProviderCitation` has a claim span in the answer (code points, converted once from
whatever the provider counts in) and one :class:`~citeview.core.resolution.Target` per cited
source, whose ``unit`` says what its ``span`` is: exact characters (``chars``), pages, content
blocks, a web result (``url``: the provider's excerpt when it gave one) or the whole source.
What the reader found wrong is kept as :class:`Problem` s (CV6xx codes) on the citation; the
analysis numbers the citations and makes them diagnostics.

Provider input is untrusted JSON: :class:`Reader` checks every value it uses and raises an
:class:`~citeview.core.errors.InputError` with a one-line message naming where it is.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from citeview.core.errors import InputError
from citeview.core.material import Source, SourceKind, SourceLine
from citeview.core.resolution import Status, Target
from citeview.core.text import normalize_breaks


@dataclass(slots=True, frozen=True)
class Problem:
    """Something wrong with one citation: a CV6xx rule code and a message."""

    code: str
    message: str


@dataclass(slots=True)
class ProviderCitation:
    """One citation of a provider: its type (``url_citation``, ``char_location``, ...), its
    claim span in the answer (code points) and what it cites. The chip goes at ``position``,
    the claim's end."""

    type: str
    claim: tuple[int, int]
    targets: tuple[Target, ...]
    problems: list[Problem] = field(default_factory=list)
    detail: str = ""  # how the provider located the claim ("bytes 36-67 of part 0")

    @property
    def position(self) -> int:
        return self.claim[1]

    def to_dict(self, answer: str) -> dict[str, object]:
        s, e = self.claim
        return {"type": self.type, "claim": [s, e], "claim_text": answer[s:e],
                "targets": [t.to_dict() for t in self.targets],
                "problems": [{"code": p.code, "message": p.message} for p in self.problems]}


@dataclass(slots=True)
class ProviderReading:
    """A provider's response read into the common model (see the module docstring)."""

    provider: str  # openai-responses, openai-chat, anthropic, gemini
    answer: str
    sources: list[Source] = field(default_factory=list)
    citations: list[ProviderCitation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # about the whole response

    def to_dict(self) -> dict[str, object]:
        return {
            "provider": self.provider,
            "answer": self.answer,
            "sources": [source_dict(s) for s in self.sources],
            "citations": [c.to_dict(self.answer) for c in self.citations],
            "problems": [{"code": p.code, "message": p.message} for p in self.problems],
        }


def source_dict(s: Source) -> dict[str, object]:
    return {"id": s.id, "kind": s.kind.value, "title": s.title, "url": s.url, "text": s.text,
            "metadata": [list(kv) for kv in s.metadata],
            "pages": [list(p) for p in s.pages], "blocks": [list(b) for b in s.blocks]}


# --------------------------------------------------------------------------- reading JSON


def type_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "a list", str: "a string", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


class Reader:
    """Typed access to untrusted JSON: each method returns the value at ``key`` of ``obj`` or
    raises an InputError naming its path (``anthropic response: content[1].citations``)."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def fail(self, where: str, message: str) -> InputError:
        return InputError(f"{self.what}: {where} {message}" if where else f"{self.what}: {message}")

    def obj(self, value: object, where: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"must be an object, not {type_name(value)}")
        return value

    def items(self, obj: Mapping[str, Any], key: str, where: str, *, required: bool = False,
              alt: str | None = None) -> list[Any]:
        value = obj.get(key) if key in obj or alt is None else obj.get(alt)
        if value is None:
            if required:
                raise self.fail(join(where, key), "is missing")
            return []
        if not isinstance(value, list):
            raise self.fail(join(where, key), f"must be a list, not {type_name(value)}")
        return value

    def text(self, obj: Mapping[str, Any], key: str, where: str, *, required: bool = True,
             alt: str | None = None) -> str | None:
        value = obj.get(key) if key in obj or alt is None else obj.get(alt)
        if value is None:
            if required:
                raise self.fail(join(where, key), "is missing")
            return None
        if not isinstance(value, str):
            raise self.fail(join(where, key), f"must be a string, not {type_name(value)}")
        return value

    def number(self, obj: Mapping[str, Any], key: str, where: str, *,
               default: int | None = None, alt: str | None = None) -> int:
        value = obj.get(key) if key in obj or alt is None else obj.get(alt)
        if value is None:
            if default is None:
                raise self.fail(join(where, key), "is missing")
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            # Gemini's JSON may write 64-bit integers as strings ("36").
            if isinstance(value, str) and value.isascii() and value.isdigit():  # not "²"
                return int(value)
            raise self.fail(join(where, key), f"must be a whole number, not {type_name(value)}")
        return value


def join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


# --------------------------------------------------------------------------- text


def norm_ws(text: str) -> str:
    """``text`` with runs of whitespace made one space, ends trimmed (for comparing a
    provider's copy of a text with the text)."""
    return " ".join(text.split())


def lines_of(text: str) -> list[SourceLine]:
    """Physical lines of ``text`` (breaks are ``\\n``), labelled L1..Ln; a final break does not
    start another line."""
    out: list[SourceLine] = []
    pos = 0
    n = 0
    size = len(text)
    while pos < size:
        end = text.find("\n", pos)
        if end < 0:
            end = size
        n += 1
        out.append(SourceLine(n, pos, end))
        pos = end + 1
    return out


class BreakMap:
    """A raw document text with its line breaks made ``\\n`` and the map of raw offsets (code
    points of the raw text, as a provider counts them) to offsets in the shown text."""

    __slots__ = ("_crlf", "raw", "text")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.text = normalize_breaks(raw)
        # Offsets of the "\n" of every "\r\n" (each collapses one character).
        self._crlf: list[int] = []
        if "\r\n" in raw:
            pos = raw.find("\r\n")
            while pos >= 0:
                self._crlf.append(pos + 1)
                pos = raw.find("\r\n", pos + 2)

    def to_text(self, offset: int) -> int:
        return offset - bisect_left(self._crlf, offset + 1) if self._crlf else offset


class Utf8Offsets:
    """UTF-8 byte offsets of a text -> code points; an offset inside a character is found."""

    __slots__ = ("_starts", "size")

    def __init__(self, text: str) -> None:
        starts = [0]
        pos = 0
        if text.isascii():
            self._starts: list[int] | None = None
            self.size = len(text)
            return
        for ch in text:
            o = ord(ch)
            pos += 1 if o < 0x80 else 2 if o < 0x800 else 3 if o < 0x10000 else 4
            starts.append(pos)
        self._starts = starts
        self.size = pos

    def to_code_point(self, offset: int, *, round_up: bool = False) -> tuple[int, bool]:
        """(code point offset, exact): an offset inside a character gives the start of that
        character (or the next one when ``round_up``) and ``exact`` False."""
        if self._starts is None:
            return offset, True
        i = bisect_left(self._starts, offset)
        if i < len(self._starts) and self._starts[i] == offset:
            return i, True
        return (i if round_up else i - 1), False


def clamp_span(start: int, end: int, size: int) -> tuple[int, int, str]:
    """``(start, end)`` made a span of a text of ``size``; the third value says what was wrong
    ("" when nothing)."""
    problems = []
    if start > end:
        problems.append(f"the range {start}-{end} is reversed")
        start, end = end, start
    if start < 0 or end > size:
        problems.append(f"{start}-{end} is outside the text (length {size})")
    s, e = max(0, min(start, size)), max(0, min(end, size))
    return s, e, "; ".join(problems)


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` without whitespace at either end."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


# --------------------------------------------------------------------------- sources


def text_source(sid: str, kind: SourceKind, text: str, *, title: str | None = None,
                url: str | None = None, metadata: Sequence[tuple[str, str]] = (),
                origin: str = "") -> Source:
    """A source whose physical lines are L1..Ln (``text``'s breaks must be ``\\n``)."""
    src = Source(sid, kind, text, lines_of(text), title=title or None, url=url or None,
                 metadata=list(metadata), origin=origin, origin_span=(0, len(text)))
    return src


class Excerpts:
    """The text of a source made of the provider's own excerpts (web results, documents whose
    text is not in the case): each distinct excerpt on its own lines, added as they come."""

    __slots__ = ("_at", "source")

    def __init__(self, source: Source) -> None:
        self.source = source
        self._at: dict[str, tuple[int, int]] = {}

    def add(self, excerpt: str) -> tuple[int, int]:
        excerpt = normalize_breaks(excerpt).strip("\n")
        found = self._at.get(excerpt)
        if found is not None:
            return found
        src = self.source
        start = len(src.text) + (1 if src.text else 0)
        src.text = f"{src.text}\n{excerpt}" if src.text else excerpt
        src.lines = lines_of(src.text)
        src.origin_span = (0, len(src.text))
        span = (start, start + len(excerpt))
        self._at[excerpt] = span
        return span


def whole_target(source: Source, detail: str, *, unit: str = "whole",
                 cited_text: str | None = None, status: Status = Status.WHOLE_SOURCE
                 ) -> Target:
    span = (0, len(source.text)) if source.text else None
    return Target(source.id, source, status, (), span, detail, unit=unit, cited_text=cited_text)


def missing_target(source_id: str, detail: str, *, unit: str = "whole",
                   cited_text: str | None = None) -> Target:
    return Target(source_id, None, Status.UNKNOWN_SOURCE, (), None, detail, unit=unit,
                  cited_text=cited_text)


def clip(text: str, width: int = 60) -> str:
    """A short one-line quote of ``text`` for a message."""
    flat = norm_ws(text)
    return flat if len(flat) <= width else flat[: width - 1] + "\u2026"


def check_overlaps(citations: Sequence[ProviderCitation]) -> None:
    """CV607 on each citation whose claim crosses an earlier one's (neither holds the other),
    or repeats an earlier citation exactly (same claim, same targets)."""
    seen: dict[tuple[object, ...], int] = {}
    order = sorted(range(len(citations)), key=lambda i: citations[i].claim)
    for i in order:
        c = citations[i]
        key = (c.claim, tuple((t.source_id, t.span, t.pages, t.blocks) for t in c.targets))
        if key in seen:
            c.problems.append(Problem("CV607", f"{c.type} repeats an earlier citation: the "
                                      "same claim and the same targets"))
            continue
        seen[key] = i
    spans = sorted((c.claim, i) for i, c in enumerate(citations) if c.claim[1] > c.claim[0])
    for j, k in crossings([claim for claim, _ in spans]).items():
        (s, e), (s2, e2) = spans[k][0], spans[j][0]
        citations[spans[j][1]].problems.append(Problem(
            "CV607", f"the claim ({s2}-{e2}) crosses the claim of another citation ({s}-{e})"))


def crossings(spans: Sequence[tuple[int, int]]) -> dict[int, int]:
    """For ``spans`` sorted (by start, then end), each ``j`` whose span crosses an earlier
    one's (``s < s2 < e < e2``), mapped to the first such ``k`` in that order.

    A sweep by start, O(n log n): the spans started before ``s2`` go into a minimum tree over
    their (ranked) ends; the first crossing one is the least position among those ending
    strictly inside ``(s2, e2)``. Positions go in rising, so a node that holds one keeps it."""
    n = len(spans)
    ends = sorted({e for _, e in spans})
    rank = {e: r for r, e in enumerate(ends)}
    size = 1
    while size < len(ends):
        size *= 2
    none = n  # past every position
    tree = [none] * (2 * size)
    found: dict[int, int] = {}
    k = 0
    while k < n:
        start = spans[k][0]
        group = k
        while group < n and spans[group][0] == start:
            group += 1
        for j in range(k, group):  # queried before any span with the same start goes in
            s2, e2 = spans[j]
            lo, hi = bisect_right(ends, s2) + size, bisect_left(ends, e2) + size
            best = none
            while lo < hi:  # the least position over the ranked ends [lo, hi)
                if lo & 1:
                    if tree[lo] < best:
                        best = tree[lo]
                    lo += 1
                if hi & 1:
                    hi -= 1
                    if tree[hi] < best:
                        best = tree[hi]
                lo >>= 1
                hi >>= 1
            if best != none:
                found[j] = best
        for j in range(k, group):
            node = rank[spans[j][1]] + size
            while node and tree[node] == none:
                tree[node] = j
                node >>= 1
        k = group
    return found


__all__ = ["BreakMap", "Excerpts", "Problem", "ProviderCitation", "ProviderReading", "Reader",
           "Utf8Offsets", "check_overlaps", "clamp_span", "clip", "crossings", "join", "lines_of",
           "missing_target", "norm_ws", "source_dict", "text_source", "trim_span", "type_name",
           "whole_target"]
