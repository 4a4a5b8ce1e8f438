"""A provider's citations as a case in the guide's format (``citeview convert --to markers``).

The answer gets a marker at the end of each provider claim (where its chip stands), or after
the emphasis, code span or link that the claim ends in and after sentence punctuation right
there (so the case passes the placement rules and no marker hides in a link target); the cited
sources become one tool output of line-labelled material, one ``Citation Marker`` header per
source (its id, title, URL and metadata); a target that cites a span (characters, pages, blocks,
a web excerpt) gets the lines of that span as its locator. Where a span starts or ends inside
a line, the line is split there (at the whitespace there, which becomes the line break; mid-word,
a break is inserted), so the locator cites exactly the span. The case keeps each converted
citation's claim in ``"claims"`` (per marker in reading order, ``[start, end]`` or null for a
marker the case already had), so resolving the converted case gives the same claims, sources
and cited text as the original. Marker characters in source text become U+FFFD.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citeview.core.analysis import AnalysedCase
from citeview.core.markers import DELIMITER, MARKER_CHARS, SOURCE_ID_RE, START, STOP
from citeview.core.material import Source, case_material
from citeview.core.placement import SENTENCE_PUNCTUATION, ChipPlaces, inline_spans

_MARKER_TRANS = str.maketrans({c: "\ufffd" for c in MARKER_CHARS})
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
_BAD_ID_RE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(slots=True)
class _Edited:
    """A source's text with lines split at span boundaries, and the offset map."""

    text: str
    edits: list[tuple[int, int]]  # (start, end) in the old text, each replaced by "\n"
    line_starts: list[int]

    def map(self, offset: int, *, end: bool = False) -> int:
        """The new offset of an old one. A span's start inside (or at) a replaced run goes
        after its break, a span's end inside it before."""
        shift = 0
        for a, b in self.edits:
            if offset < a or (offset == a and end):
                break
            if offset < b or offset == a == b:
                return a + shift + (0 if end else 1)
            shift += 1 - (b - a)
        return offset + shift

    def lines(self, start: int, end: int) -> tuple[int, int]:
        """First and last line label (1-based) of the old span ``start..end``."""
        s = self.map(start)
        e = max(s, self.map(end, end=True) - 1)
        while s < e and self.text[s] == "\n":  # a span starting on a line's break: the next
            s += 1                               # line is its first, not the one that ends
        return bisect_right(self.line_starts, s), bisect_right(self.line_starts, e)


def _split(text: str, spans: Sequence[tuple[int, int]]) -> _Edited:
    cuts: set[int] = set()
    for s, e in spans:
        cuts.update((s, e))
    edits: list[tuple[int, int]] = []
    for b in sorted(cuts):
        if b <= 0 or b >= len(text) or text[b - 1] == "\n" or text[b] == "\n":
            continue  # already a line boundary
        if text[b - 1] in " \t":
            a = b
            while a > 0 and text[a - 1] in " \t":
                a -= 1
            run = (a, b) if a > 0 and text[a - 1] != "\n" else (b, b)
        elif text[b] in " \t":
            z = b
            while z < len(text) and text[z] in " \t":
                z += 1
            run = (b, z) if z < len(text) and text[z] != "\n" else (b, b)
        else:
            run = (b, b)
        if edits and run[0] < edits[-1][1]:
            continue  # the same whitespace run, already a break
        if edits and run == edits[-1]:
            continue
        edits.append(run)
    pieces: list[str] = []
    pos = 0
    for a, b in edits:
        pieces.append(text[pos:a])
        pieces.append("\n")
        pos = b
    pieces.append(text[pos:])
    new = "".join(pieces)
    starts = [0] + [m.end() for m in re.finditer("\n", new)]
    return _Edited(new, edits, starts)


def marker_place(answer: str, places: ChipPlaces, starts: set[int], pos: int) -> int:
    """Where the marker of a claim ending at ``pos`` goes: after the emphasis, code span or
    link that holds ``pos`` (CV301, CV302; a marker in a link target shows no chip), then
    after the sentence punctuation right there (CV304), unless a word goes on after it
    ("3.5") or another claim starts with it (``starts``: it would hold the marker)."""
    pos = places.place(pos)
    end = pos
    while end < len(answer) and answer[end] in SENTENCE_PUNCTUATION and end not in starts:
        end += 1
    if end > pos and (end == len(answer) or not answer[end].isalnum()):
        pos = places.place(end)
    return pos


def _one_line(value: str) -> str:
    return _CONTROL_RE.sub(" ", value).translate(_MARKER_TRANS).strip()


def marker(ids: Sequence[str], locator: str | None = None) -> str:
    parts = [*ids, locator] if locator else list(ids)
    return START + "cite" + DELIMITER + DELIMITER.join(parts) + STOP


def to_marker_case(analysed: AnalysedCase) -> tuple[dict[str, Any], list[str]]:
    """The case in the guide's format (see the module docstring), and warnings about what
    could not be converted (a citation of a source that does not exist)."""
    case = analysed.case
    answer = analysed.answer
    warnings: list[str] = []
    provider = [c for c in analysed.citations if not c.citation.raw]
    own = case_material(case)
    taken = set(own.ids())
    # The provider's sources: the analysis added them after the case's own material.
    sources = analysed.material.sources[len(own.sources):]
    new_id: dict[int, str] = {}
    for s in sources:
        sid = s.id if SOURCE_ID_RE.fullmatch(s.id) else (_BAD_ID_RE.sub("_", s.id) or "source")
        base, n = sid, 1
        while sid in taken:
            n += 1
            sid = f"{base}_{n}"
        taken.add(sid)
        new_id[id(s)] = sid
    spans: dict[int, list[tuple[int, int]]] = {}
    for c in provider:
        for t in c.targets:
            if t.source is not None and t.span is not None and t.unit != "whole" \
                    and id(t.source) in new_id:
                spans.setdefault(id(t.source), []).append(t.span)
    edited = {id(s): _split(s.text, spans.get(id(s), ())) for s in sources}
    # Markers to insert: (position, reading order, text, claim). A claim that ends inside
    # emphasis, a code span or a link gets its marker after it (the placement rules' parse).
    inserts: list[tuple[int, int, str, tuple[int, int]]] = []
    places = ChipPlaces(inline_spans(answer) if provider else [])
    starts = {c.claim[0] for c in provider if c.claim[0] < c.claim[1]}
    for c in provider:
        groups: dict[str | None, list[str]] = {}
        for t in c.targets:
            if t.source is None or id(t.source) not in new_id:
                warnings.append(f"citation {c.number}: {t.source_id} is not a source of the "
                                "response; left out")
                continue
            loc = None
            if t.span is not None and t.unit != "whole":
                first, last = edited[id(t.source)].lines(*t.span)
                loc = f"L{first}" if first == last else f"L{first}-L{last}"
            groups.setdefault(loc, []).append(new_id[id(t.source)])
        for loc, ids in groups.items():
            inserts.append((marker_place(answer, places, starts, c.citation.start), c.number,
                            marker(list(dict.fromkeys(ids)), loc), c.claim))
    inserts.sort(key=lambda x: (x[0], x[1]))
    positions = [p for p, _, _, _ in inserts]
    lengths = [len(m) for _, _, m, _ in inserts]
    cumulative = [0]
    for n in lengths:
        cumulative.append(cumulative[-1] + n)

    def shifted(o: int, *, end: bool) -> int:
        # Markers inserted at o come after a claim ending at o, before one starting there.
        k = (bisect_right(positions, o - 1) if end else bisect_right(positions, o))
        return o + cumulative[k]

    pieces: list[str] = []
    pos = 0
    for p, _, m, _ in inserts:
        pieces.append(answer[pos:p])
        pieces.append(m)
        pos = p
    pieces.append(answer[pos:])
    new_answer = "".join(pieces)
    # Claims per marker in reading order: the case's own markers keep the guide's claims.
    rows: list[tuple[int, int, list[int] | None]] = []
    for c in analysed.citations:
        if c.citation.raw:
            rows.append((shifted(c.citation.start, end=False), 0, None))
    for k, (p, _, _, (cs, ce)) in enumerate(inserts):
        rows.append((p + cumulative[k], 1, [shifted(cs, end=False) if cs < ce else
                                            shifted(cs, end=True), shifted(ce, end=True)]))
    rows.sort(key=lambda r: (r[0], r[1]))
    material = _material(sources, new_id, edited)
    out: dict[str, Any] = {"id": case.id}
    if case.question is not None:
        out["question"] = case.question
    out["tool_outputs"] = [*case.tool_outputs, material] if material else list(case.tool_outputs)
    if case.context is not None:
        out["context"] = case.context
    if case.documents:
        out["documents"] = dict(case.documents)
    out["answer"] = new_answer
    out["claims"] = [claim for _, _, claim in rows]
    out["converted_from"] = str(case.extra.get("format") or "provider")
    return out, warnings


def _material(sources: Sequence[Source], new_id: dict[int, str],
              edited: dict[int, _Edited]) -> str:
    blocks: list[str] = []
    for s in sources:
        head = [f"Citation Marker: {marker([new_id[id(s)]])}"]
        if s.title:
            head.append(f"Title: {_one_line(s.title)}")
        if s.url:
            head.append(f"URL: {_one_line(s.url)}")
        for k, v in s.metadata:
            if k.casefold() not in ("title", "url") and _one_line(v):
                head.append(f"{k}: {_one_line(v)}")
        text = edited[id(s)].text.translate(_MARKER_TRANS)
        lines = text.split("\n") if text else []
        if lines and lines[-1] == "":
            lines.pop()
        body = [f"[L{n}] {line}" if line else f"[L{n}]" for n, line in enumerate(lines, 1)]
        blocks.append("\n".join(head) + "\n\n" + "".join(f"{b}\n" for b in body))
    return "\n".join(blocks)


__all__ = ["marker", "marker_place", "to_marker_case"]
