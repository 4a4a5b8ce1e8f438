"""Corrected citations as data: what a reviewer says a case's citations should have been, and
the corrected answer they give (:func:`apply_corrections`).

A :class:`Correction` is stored beside the case (the session's ``corrections``), never by
changing the original answer. Five kinds:

- ``relocate``: the citation (``number``/``anchor``, as a verdict's key) keeps its sources but
  cites other lines: ``locator`` (``L9-L10``; None: the whole source). For a citation without
  marker text (a provider's) ``target`` is its new span in the source's text instead (code
  points); ``source_id`` limits it to one of its sources ("" = all of them).
- ``change-source``: the citation's source ``old_source_id`` ("" = its first) becomes
  ``source_id``, with ``locator`` (or ``target``) as its lines.
- ``remove``: the citation goes.
- ``add``: a claim that had no citation (``claim``: start and end in the answer, code points)
  gets one: ``source_id`` with ``locator`` (or ``target``). Added citations are also what a
  reviewer found missing (citation recall).
- ``reword``: the answer's prose ``claim`` (start and end in the answer, code points; outside
  every marker) reads ``text`` instead: a claim's wording fixed (a source id named in prose,
  a number the source does not give). A later reword of the same span replaces an earlier
  one; rewords that overlap otherwise are refused.

The corrected answer has every citation it keeps written as a marker in the guide's format
(``U+E200 cite U+E202 id U+E202 L9-L10 U+E201``), placed where the guide puts it (after the
emphasis, code span or link its claim ends in, after sentence punctuation). A provider's case
is given in the converted markers form (``citeview convert --to markers``), corrections and
all. Qt-free and session-free: the session stores these rows, the export writes the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from citeview.core.analysis import AnalysedCase, AnalysedCitation
from citeview.core.errors import InputError
from citeview.core.locators import parse_locator
from citeview.core.markers import Citation, extract_citations
from citeview.core.material import Source, SourceLine
from citeview.core.placement import SENTENCE_PUNCTUATION, ChipPlaces, inline_spans
from citeview.core.providers.convert import marker, marker_place, to_marker_case
from citeview.core.resolution import Resolution, Status, Target, resolve


class CorrectionKind(StrEnum):
    RELOCATE = "relocate"
    CHANGE_SOURCE = "change-source"
    REMOVE = "remove"
    ADD = "add"
    REWORD = "reword"


#: The marker characters (U+E200 start, U+E202 separator, U+E201 end): a reword's text never
#: holds one (it would make a marker of prose).
_MARKER_CHARS = frozenset("\ue200\ue201\ue202")


class CorrectionError(InputError):
    """A correction that does not fit its case (no such citation, a span outside the answer,
    a malformed locator): one line, for the CLI and a dialog."""


@dataclass(slots=True, frozen=True)
class Correction:
    """One correction of one case's citations by one annotator (see the module docstring).

    ``id`` names the row (removed on its own); corrections of a case apply in the order they
    were made (``timestamp``, then ``id``), a later one of the same citation on top of the
    earlier."""

    id: str
    case_id: str
    annotator: str
    kind: CorrectionKind
    number: int = 0  # the citation corrected (0 for add and reword)
    anchor: str = ""  # its anchor, as an annotation key's
    source_id: str = ""  # relocate: which source ("" = all); change-source, add: the new one
    old_source_id: str = ""  # change-source: the source replaced ("" = the citation's first)
    locator: str | None = None  # the new lines, e.g. "L9-L10"; None: the whole source
    target: tuple[int, int] | None = None  # provider citation: new span in the source's text
    claim: tuple[int, int] | None = None  # add, reword: the span in the answer (code points)
    note: str = ""
    timestamp: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=True, hash=False)
    text: str = ""  # reword: the prose that replaces the claim span

    def check(self) -> None:
        """:class:`CorrectionError` unless its fields make sense for its kind (before
        storing: a store refuses a malformed row)."""
        what = f"correction {self.id!r} of case {self.case_id!r}"
        if not self.id:
            raise CorrectionError(f"{what}: no id")
        if self.kind is CorrectionKind.ADD:
            if self.claim is None or not 0 <= self.claim[0] <= self.claim[1]:
                raise CorrectionError(f"{what}: an added citation needs its claim span")
            if not self.source_id:
                raise CorrectionError(f"{what}: an added citation needs a source")
        elif self.kind is CorrectionKind.REWORD:
            if self.claim is None or not 0 <= self.claim[0] < self.claim[1]:
                raise CorrectionError(f"{what}: a reword needs the span of the answer it "
                                      "rewords")
            if _MARKER_CHARS.intersection(self.text):
                raise CorrectionError(f"{what}: a reword's text may not hold citation marker "
                                      "characters (U+E200-U+E202)")
        elif self.number < 1:
            raise CorrectionError(f"{what}: no citation number")
        if self.kind is CorrectionKind.CHANGE_SOURCE and not self.source_id:
            raise CorrectionError(f"{what}: a changed source needs the new source")
        if self.locator is not None and parse_locator(self.locator) is None:
            raise CorrectionError(f"{what}: {self.locator!r} is not a line locator "
                                  "(L9 or L9-L10)")
        if self.target is not None and not 0 <= self.target[0] <= self.target[1]:
            raise CorrectionError(f"{what}: the target span {self.target} is not a span")

    def to_dict(self) -> dict[str, Any]:
        """Its export shape (``citeview export --format json`` and the corrections export)."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind.value,
                               "annotator": self.annotator}
        if self.kind not in (CorrectionKind.ADD, CorrectionKind.REWORD):
            out["number"] = self.number
            out["raw"] = self.anchor
        if self.source_id:
            out["source_id"] = self.source_id
        if self.old_source_id:
            out["old_source_id"] = self.old_source_id
        if self.locator is not None:
            out["locator"] = self.locator
        if self.target is not None:
            out["target"] = list(self.target)
        if self.claim is not None:
            out["claim"] = list(self.claim)
        if self.kind is CorrectionKind.REWORD:
            out["text"] = self.text
        if self.note:
            out["note"] = self.note
        out["timestamp"] = self.timestamp
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out

    @classmethod
    def from_dict(cls, case_id: str, data: dict[str, Any]) -> Correction:
        """The correction of an export row (:meth:`to_dict`); :class:`CorrectionError` when
        malformed (unknown keys are kept in ``extra``)."""
        try:
            kind = CorrectionKind(str(data.get("kind")))
        except ValueError:
            raise CorrectionError(f"case {case_id!r}: unknown correction kind "
                                  f"{str(data.get('kind'))[:40]!r}") from None
        known = ("id", "case_id", "kind", "annotator", "number", "raw", "source_id",
                 "old_source_id", "locator", "target", "claim", "note", "timestamp", "text")
        texts = {k: data.get(k, "") for k in ("id", "annotator", "raw", "source_id",
                                               "old_source_id", "note", "timestamp", "text")}
        number = data.get("number", 0)
        locator = data.get("locator")
        if (any(not isinstance(v, str) for v in texts.values()) or type(number) is not int
                or not (locator is None or isinstance(locator, str))):
            raise CorrectionError(f"case {case_id!r}: malformed correction {str(data)[:80]}")
        made = cls(texts["id"], case_id, texts["annotator"], kind, number, texts["raw"],
                   texts["source_id"], texts["old_source_id"], locator,
                   _span(case_id, data.get("target")), _span(case_id, data.get("claim")),
                   texts["note"], texts["timestamp"],
                   {k: v for k, v in data.items() if k not in known}, texts["text"])
        made.check()
        return made


def _span(case_id: str, value: object) -> tuple[int, int] | None:
    if value is None:
        return None
    if (isinstance(value, list) and len(value) == 2
            and all(type(v) is int and v >= 0 for v in value) and value[0] <= value[1]):
        return (value[0], value[1])
    raise CorrectionError(f"case {case_id!r}: {str(value)[:40]} is not a span [start, end]")


#: ``extra`` key set on an added citation whose claim was not found again when its case's
#: answer changed (:func:`citeview.session.model.reattach_marks`); dropped once it is.
ORPHANED_CLAIM = "orphaned"


def fits(analysed: AnalysedCase, corr: Correction) -> bool:
    """Whether ``corr`` still has its place in the case: the citation it corrects is there
    (number and anchor), or the claim it adds a citation to is in the answer. One that does
    not is kept in the session and exported as an orphaned row, as an orphaned verdict is."""
    if corr.kind is CorrectionKind.ADD:
        return (corr.claim is not None and corr.claim[1] <= len(analysed.answer)
                and not corr.extra.get(ORPHANED_CLAIM))
    if corr.kind is CorrectionKind.REWORD:
        return reword_problem(analysed, corr) is None
    found = analysed.citation(corr.number)
    return found is not None and found.anchor == corr.anchor


def reword_problem(analysed: AnalysedCase, corr: Correction) -> str | None:
    """Why the reword ``corr`` does not fit ``analysed`` (one line), or None when it does: its
    span is in the answer and cuts through no citation's marker (prose only)."""
    if corr.claim is None or corr.extra.get(ORPHANED_CLAIM):
        return "its text is not in the answer any more (the answer changed?)"
    start, end = corr.claim
    if end > len(analysed.answer):
        return "the reworded span runs past the end of the answer"
    for c in analysed.citations:
        if c.citation.raw and c.citation.start < end and start < c.citation.end:
            return (f"the reworded span cuts through the marker of citation {c.number} "
                    "(reword the prose on either side of it)")
    if _MARKER_CHARS.intersection(analysed.answer[start:end]):
        return "the reworded span holds citation marker characters (reword prose only)"
    return None


def _rewords(analysed: AnalysedCase, corrections: Sequence[Correction]) -> list[Correction]:
    """The rewords of ``corrections`` (in the order they apply) that shape the answer, by
    where they stand: a later one of the same span replaces an earlier one; a reword that
    cuts through a marker, or overlaps another span, is a :class:`CorrectionError`."""
    by_span: dict[tuple[int, int], Correction] = {}
    for corr in corrections:
        if corr.kind is not CorrectionKind.REWORD:
            continue
        problem = reword_problem(analysed, corr)
        if problem is not None:
            raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: {problem}")
        assert corr.claim is not None
        by_span[corr.claim] = corr
    spans = sorted(by_span.values(), key=lambda c: c.claim or (0, 0))
    for before, after in zip(spans, spans[1:], strict=False):
        assert before.claim is not None and after.claim is not None
        if after.claim[0] < before.claim[1]:
            raise CorrectionError(f"case {after.case_id!r}: correction {after.id!r}: its "
                                  f"reworded span overlaps that of correction {before.id!r}")
    return spans


@dataclass(slots=True, frozen=True)
class _Rewrite:
    """Prose spans of a text replaced (sorted, apart): the new text, and where an offset of
    the old text is in the new one."""

    spans: tuple[tuple[int, int, str], ...]

    def text(self, old: str) -> str:
        pieces: list[str] = []
        pos = 0
        for start, end, new in self.spans:
            pieces.append(old[pos:start])
            pieces.append(new)
            pos = end
        pieces.append(old[pos:])
        return "".join(pieces)

    def at(self, offset: int, *, end: bool = True) -> int:
        """``offset`` in the new text; one inside a replaced span goes to the end of its new
        text (``end``: a marker after its claim) or to its start."""
        delta = 0
        for start, stop, new in self.spans:
            if offset <= start:
                break
            if offset >= stop:
                delta += len(new) - (stop - start)
                continue
            return start + delta + (len(new) if end else 0)
        return offset + delta


def added_target(analysed: AnalysedCase, corr: Correction) -> Target:
    """What an added citation (``corr``, of kind ``add``) points at in ``analysed``'s
    material, resolved as a citation is (its [L#] lines; a provider case's ``target`` span):
    what the source pane highlights when its chip is clicked."""
    if corr.target is not None:
        return _target(analysed, corr, corr.source_id)
    citation = Citation("", "", (corr.source_id,), corr.locator, 0, 0)
    return resolve([citation], analysed.material)[0].targets[0]


def ordered(corrections: Sequence[Correction]) -> list[Correction]:
    """``corrections`` in the order they apply: as made (timestamp, then id)."""
    return sorted(corrections, key=lambda c: (c.timestamp, c.id))


@dataclass(slots=True, frozen=True)
class CorrectedAnswer:
    """A case's answer before and after its corrections, both with markers in the guide's
    format (a provider's case converted), and the corrected case (for ``parse``/``resolve``).
    ``citations`` are the corrected answer's citations in reading order: (source ids,
    locator)."""

    case_id: str
    original: str
    corrected: str
    case: dict[str, Any]
    citations: tuple[tuple[tuple[str, ...], str | None], ...]
    applied: int  # how many corrections were applied

    @property
    def changed(self) -> bool:
        return self.corrected != self.original


@dataclass(slots=True)
class _Entry:
    """A citation of the corrected answer: where it goes (code points in the answer without
    its markers), its order there, sources and locator."""

    pos: int
    order: tuple[int, int]
    ids: list[str]
    locator: str | None
    number: int = 0
    anchor: str = ""
    keep: bool = True


def _parts(entries: list[_Entry], corr: Correction) -> list[_Entry]:
    """The entries of the citation ``corr`` corrects (a citation whose sources were split
    apart by an earlier correction has several)."""
    found = [e for e in entries if e.number == corr.number and e.anchor == corr.anchor
             and e.keep]
    if not found:
        raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: citation "
                              f"{corr.number} is not in the answer (the answer changed?)")
    return found


def _part_with(parts: list[_Entry], source_id: str, corr: Correction) -> _Entry:
    for e in parts:
        if source_id in e.ids:
            return e
    raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: citation "
                          f"{corr.number} does not cite {source_id}")


def lines_of_span(lines: Sequence[SourceLine], start: int, end: int) -> tuple[int, int]:
    """The [L#] labels of the first and last citable line that the span ``start..end`` of a
    source's text touches ((0, 0) when it touches none): what the GUI stores with evidence
    and turns into a locator (:func:`locator_of`) when a selection relocates a citation."""
    end = max(end, start + 1)
    touched = [ln.label for ln in lines if ln.start < end and start < max(ln.end, ln.start + 1)]
    if not touched:
        return (0, 0)
    return (touched[0], touched[-1])


def locator_of(first: int, last: int) -> str | None:
    """``L9`` or ``L9-L10`` for a line range (None for (0, 0): no lines)."""
    if first <= 0:
        return None
    return f"L{first}" if first == last else f"L{first}-L{last}"


def _locator_of_span(source: Source, span: tuple[int, int]) -> str | None:
    """The lines of ``source`` that ``span`` touches: its [L#] labels, or for a source without
    line labels its lines counted from 1 at line breaks."""
    if source.lines:
        return locator_of(*lines_of_span(source.lines, *span))
    text = source.text
    first = text.count("\n", 0, span[0]) + 1
    last = text.count("\n", 0, max(span[0], span[1] - 1)) + 1
    return locator_of(first, last)


def _strip_markers(answer: str, citations: Sequence[AnalysedCitation]
                   ) -> tuple[str, list[int], list[tuple[int, int]]]:
    """``answer`` without the citations' marker text (and the blanks before a marker that
    stood before punctuation or a line's end), each citation's position in it, and the spans
    of ``answer`` taken out (in order)."""
    pieces: list[str] = []
    positions: list[int] = []
    removed: list[tuple[int, int]] = []
    pos = 0
    length = 0
    for c in citations:
        start, end = c.citation.start, c.citation.end
        if start < pos:  # overlapping recoveries: the later one stands where the first ended
            positions.append(length)
            continue
        kept = answer[pos:start]
        after = answer[end:end + 1]
        if not after or after in SENTENCE_PUNCTUATION or after in "\r\n":
            kept = kept.rstrip(" \t")
        pieces.append(kept)
        length += len(kept)
        positions.append(length)
        removed.append((pos + len(kept), end))
        pos = max(pos, end)
    pieces.append(answer[pos:])
    return "".join(pieces), positions, removed


def _map_claim(stripped_at: list[int], citations: Sequence[AnalysedCitation],
               claim: tuple[int, int]) -> int:
    """Where the end of an answer span (``claim``, raw answer code points) is once markers are
    stripped: markers wholly before it are taken out."""
    end = claim[1]
    removed = 0
    for c, at in zip(citations, stripped_at, strict=True):
        if c.citation.end <= end:
            removed = c.citation.end - at
        else:
            break
    return max(0, end - removed)


def apply_corrections(analysed: AnalysedCase,
                      corrections: Sequence[Correction]) -> CorrectedAnswer:
    """The answer of ``analysed`` with ``corrections`` (of that case) applied (see the module
    docstring); :class:`CorrectionError` when one does not fit. Pure: same input, same text."""
    corrections = ordered([c for c in corrections if c.case_id == analysed.case.id])
    if any(not c.citation.raw for c in analysed.citations):
        return _apply_provider(analysed, corrections)
    answer = analysed.answer
    cits = analysed.citations
    stripped, at, removed = _strip_markers(answer, cits)
    entries = [_Entry(at[i], (i, 0), list(c.source_ids), c.citation.locator, c.number,
                      c.anchor) for i, c in enumerate(cits)]
    rewords = _rewords(analysed, corrections)
    for n, corr in enumerate(corrections, 1):
        if corr.kind is CorrectionKind.REWORD:
            continue
        if corr.kind is CorrectionKind.ADD:
            assert corr.claim is not None
            if corr.claim[1] > len(answer):
                raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: the "
                                      "claim runs past the end of the answer")
            pos = _map_claim(at, cits, corr.claim)
            entries.append(_Entry(pos, (len(cits) + n, 0), [corr.source_id],
                                  _locator(analysed, corr)))
            continue
        parts = _parts(entries, corr)
        if corr.kind is CorrectionKind.REMOVE:
            for part in parts:
                part.keep = False
        elif corr.kind is CorrectionKind.RELOCATE and not corr.source_id:
            own = parts[0].ids[0] if parts[0].ids else ""
            for part in parts:  # every source of it cites the new lines
                part.locator = _locator(analysed, corr, own)
        elif corr.kind is CorrectionKind.RELOCATE:
            part = _part_with(parts, corr.source_id, corr)
            _move(entries, part, corr.source_id, corr.source_id, _locator(analysed, corr), n)
        else:
            old = corr.old_source_id or (parts[0].ids[0] if parts[0].ids else "")
            part = _part_with(parts, old, corr)
            _move(entries, part, old, corr.source_id, _locator(analysed, corr), n)
    # A reword's span in the stripped answer: the markers' spans taken out (an offset inside
    # one goes to where it was).
    taken_out = _Rewrite(tuple((start, end, "") for start, end in removed))
    rewrite = _Rewrite(tuple((taken_out.at(c.claim[0], end=False),
                              taken_out.at(c.claim[1], end=False), c.text)
                             for c in rewords if c.claim is not None))
    stripped = rewrite.text(stripped)
    for e in entries:
        e.pos = rewrite.at(e.pos)
    kept = sorted((e for e in entries if e.keep and e.ids), key=lambda e: (e.pos, e.order))
    places = ChipPlaces(inline_spans(stripped))
    inserts = [(marker_place(stripped, places, set(), e.pos), k, e) for k, e in enumerate(kept)]
    inserts.sort(key=lambda x: (x[0], x[1]))
    pieces: list[str] = []
    pos = 0
    for p, _k, e in inserts:
        pieces.append(stripped[pos:p])
        pieces.append(marker(list(dict.fromkeys(e.ids)), e.locator))
        pos = p
    pieces.append(stripped[pos:])
    corrected = "".join(pieces)
    case = analysed.case.to_dict()
    case["answer"] = corrected
    case.pop("claims", None)  # the claims of the original markers; the corrected ones differ
    return CorrectedAnswer(analysed.case.id, answer, corrected, case,
                           tuple((tuple(dict.fromkeys(e.ids)), e.locator)
                                 for _p, _k, e in inserts), len(corrections))


def _locator(analysed: AnalysedCase, corr: Correction, source_id: str = "") -> str | None:
    """A correction's lines as a locator: its ``locator``, else its ``target`` span's lines in
    the named source's text (``source_id`` when the correction names none: the citation's)."""
    if corr.locator is not None or corr.target is None:
        return corr.locator
    source = _source(analysed, corr.source_id or source_id, corr)
    if corr.target[1] > len(source.text):
        raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: the target span "
                              f"runs past the end of {corr.source_id}")
    return _locator_of_span(source, corr.target)


def _move(entries: list[_Entry], entry: _Entry, old: str, new: str, locator: str | None,
          n: int) -> None:
    """``entry`` cites ``new`` at ``locator`` instead of ``old`` (one of its sources); when it
    has others, ``new`` is split into a marker of its own (one locator serves all of a
    marker's sources), standing where the citation stands."""
    if entry.ids == [old]:
        entry.ids = [new]
        entry.locator = locator
        return
    entry.ids = [i for i in entry.ids if i != old]
    entries.append(_Entry(entry.pos, (entry.order[0], n), [new], locator, entry.number,
                          entry.anchor))


def _source(analysed: AnalysedCase, source_id: str, corr: Correction) -> Source:
    for s in analysed.material.sources:
        if s.id == source_id:
            return s
    raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: no source "
                          f"{source_id!r} in the case")


def _target(analysed: AnalysedCase, corr: Correction, source_id: str) -> Target:
    """A provider citation's new target: ``target`` (or ``locator``'s lines) of the source."""
    source = _source(analysed, source_id, corr)
    span = corr.target
    if span is None and corr.locator is not None:
        loc = parse_locator(corr.locator)
        assert loc is not None
        starts = [0] + [i + 1 for i, ch in enumerate(source.text) if ch == "\n"]
        first = max(1, min(loc.first, len(starts))) - 1
        last = max(first + 1, min(loc.last, len(starts)))
        stop = starts[last] - 1 if last < len(starts) else len(source.text)
        span = (starts[first], max(starts[first], stop))
    if span is not None and span[1] > len(source.text):
        raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: the target span "
                              f"runs past the end of {source_id}")
    if span is not None and not source.text[span[0]:span[1]].strip():
        raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: the target span "
                              f"holds no text of {source_id} (only blanks)")
    if span is None:
        return Target(source_id, source, Status.OK, span=(0, len(source.text)), unit="whole")
    return Target(source_id, source, Status.OK, span=span, unit="chars")


def _apply_provider(analysed: AnalysedCase, corrections: Sequence[Correction]) -> CorrectedAnswer:
    """A provider's case: its citations corrected as the analysis holds them, then written in
    the converted markers form (:func:`~citeview.core.providers.convert.to_marker_case`)."""
    cits = list(analysed.citations)
    rewords = _rewords(analysed, corrections)
    for corr in corrections:
        if corr.kind is CorrectionKind.REWORD:
            continue
        if corr.kind is CorrectionKind.ADD:
            assert corr.claim is not None
            if corr.claim[1] > len(analysed.answer):
                raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: the "
                                      "claim runs past the end of the answer")
            target = _target(analysed, corr, corr.source_id)
            end = corr.claim[1]
            citation = Citation("", "", (corr.source_id,), None, end, end)
            resolution = Resolution(0, citation, (target,))
            cits.append(AnalysedCitation(0, citation, resolution, corr.claim, analysed.answer,
                                         f"added@{end}-{end}"))
            continue
        at = next((i for i, c in enumerate(cits)
                   if c.number == corr.number and c.anchor == corr.anchor), None)
        if at is None:
            raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: citation "
                                  f"{corr.number} is not in the answer (the answer changed?)")
        c = cits[at]
        if corr.kind is CorrectionKind.REMOVE:
            del cits[at]
            continue
        if c.citation.raw:
            raise CorrectionError(f"case {corr.case_id!r}: correction {corr.id!r}: a marker "
                                  "of a provider's case cannot be corrected")
        old = (corr.source_id if corr.kind is CorrectionKind.RELOCATE
               else corr.old_source_id or (c.source_ids[0] if c.source_ids else ""))
        targets = []
        for t in c.targets:
            if not old or t.source_id == old:
                targets.append(_target(analysed, corr, corr.source_id or t.source_id))
            else:
                targets.append(t)
        cits[at] = replace(c, resolution=replace(c.resolution, targets=tuple(targets)))
    cits.sort(key=lambda c: (c.citation.start, c.number == 0))
    cits = [replace(c, number=i) for i, c in enumerate(cits, 1)]
    changed = _with_citations(analysed, tuple(cits))
    if rewords:
        changed = _reworded(changed, _Rewrite(tuple((c.claim[0], c.claim[1], c.text)
                                                    for c in rewords if c.claim is not None)))
    original, _ = to_marker_case(analysed)
    converted, _ = to_marker_case(changed)
    found = extract_citations(str(converted["answer"]))
    return CorrectedAnswer(analysed.case.id, str(original["answer"]),
                           str(converted["answer"]), converted,
                           tuple((tuple(f.source_ids), f.locator) for f in found),
                           len(corrections))


def _reworded(analysed: AnalysedCase, rewrite: _Rewrite) -> AnalysedCase:
    """``analysed`` with its answer rewritten, every citation (marker, claim) moved with it."""
    answer = rewrite.text(analysed.answer)
    cits = []
    for c in analysed.citations:
        # A marker-less citation stands at its claim's end: after the new text.
        moved = replace(c.citation, start=rewrite.at(c.citation.start, end=not c.citation.raw),
                        end=rewrite.at(c.citation.end))
        claim = (rewrite.at(c.claim[0], end=False), rewrite.at(c.claim[1]))
        cits.append(replace(c, citation=moved, claim=claim, answer=answer))
    return AnalysedCase(replace(analysed.case, answer=answer), analysed.policy,
                        analysed.material, analysed.scan_result, tuple(cits),
                        analysed.provider_diagnostics)


def _with_citations(analysed: AnalysedCase,
                    cits: tuple[AnalysedCitation, ...]) -> AnalysedCase:
    return AnalysedCase(analysed.case, analysed.policy, analysed.material, analysed.scan_result,
                        cits, analysed.provider_diagnostics)


__all__ = ["ORPHANED_CLAIM", "CorrectedAnswer", "added_target", "Correction", "CorrectionError",
           "CorrectionKind", "apply_corrections", "fits", "lines_of_span", "locator_of",
           "ordered", "reword_problem"]
