"""Citation markers in an answer: the guide's exact parser, in linear time, plus a diagnosing scan.

A marker is ``START family DELIMITER part [DELIMITER part ...] STOP`` with START = U+E200,
DELIMITER = U+E202 and STOP = U+E201. :func:`extract_citations` and :func:`strip_citations`
return exactly what the guide's Python helper returns, for every input, odd cases included.
:func:`scan` returns the same citations plus what the reference drops or misreads silently
(recovered citations, flagged by :class:`Recovery`) and diagnostics with CV1xx codes.

All offsets are Python code-point indices.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import lru_cache
from operator import attrgetter

from citeview.core.diagnostics import RULES, Diagnostic, make
from citeview.core.locators import LINE_LOCATOR_RE, Locator, near_miss_locator, parse_locator
from citeview.core.nearsearch import finditer_near
from citeview.core.wild import find_wild, may_hold_wild, refine_unknown_family

START = "\ue200"
DELIMITER = "\ue202"
STOP = "\ue201"
MARKER_CHARS = START + DELIMITER + STOP

SOURCE_ID_RE = re.compile(r"^[A-Za-z0-9_-]+$")
# The guide's own id shape: turn number, a kind word, an item number (turn0file1, turn5view0).
TURN_ID_RE = re.compile(r"turn\d+[A-Za-z]+\d+")

DEFAULT_FAMILIES: tuple[str, ...] = ("cite",)


class Recovery(StrEnum):
    """How :func:`scan` recovered a citation that the reference parser does not return."""

    UNTERMINATED = "unterminated"  # START ... with no STOP before the next START or the end
    SWALLOWED = "swallowed"  # a well-formed marker the reference swallows into an unterminated one
    MALFORMED_LOCATOR = "malformed-locator"  # dropped by the reference for a locator like L8-13
    LITERAL_ESCAPE = "literal-escape"  # written as ASCII escapes: \ue200cite\ue202...\ue201
    DEGRADED = "degraded"  # private-use characters lost in copying: citeturn0file0
    MOJIBAKE = "mojibake"  # UTF-8 bytes read as Windows-1252: îˆ€citeîˆ‚turn0search3îˆ


@dataclass(slots=True)
class Citation:
    """One citation marker: its raw text, family, source ids, raw locator and span.

    Not frozen: frozen dataclasses construct several times slower, and answers hold 10,000s.
    """

    raw: str
    family: str
    source_ids: tuple[str, ...]
    locator: str | None
    start: int
    end: int
    recovered: Recovery | None = None

    @property
    def conformant(self) -> bool:
        """True when the guide's reference parser returns this citation too."""
        return self.recovered is None

    @property
    def parsed_locator(self) -> Locator | None:
        return parse_locator(self.locator) if self.locator is not None else None

    def to_dict(self) -> dict[str, object]:
        """The reference helper's dict shape, plus ``recovered`` for recovered citations."""
        d: dict[str, object] = {
            "raw": self.raw,
            "family": self.family,
            "source_ids": list(self.source_ids),
            "locator": self.locator,
            "start": self.start,
            "end": self.end,
        }
        if self.recovered is not None:
            d["recovered"] = self.recovered.value
        return d


@dataclass(slots=True)
class ScanResult:
    """What :func:`scan` found: citations in reading order (conformant and recovered) and
    diagnostics sorted by position."""

    citations: list[Citation] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def conformant(self) -> list[Citation]:
        return [c for c in self.citations if c.recovered is None]


# --------------------------------------------------------------------------- reference parser


@lru_cache(maxsize=64)
def _token_re(families: tuple[str, ...]) -> re.Pattern[str]:
    # The reference uses `(?P<body>.*?)STOP` with DOTALL: the body runs to the first STOP. A
    # possessive `[^STOP]*+` matches the same body and never backtracks; together with an endpos
    # at the last STOP (see extract_citations) no START makes the engine scan to the end of the
    # text in vain, which is what makes the reference quadratic.
    # The usual marker, one source id and perhaps a line locator with no blanks around them,
    # is read by the first branch (no split, strip or second match in Python); anything else
    # by the second, as the reference reads it. Both end at the same STOP.
    family_pattern = "|".join(re.escape(f) for f in families)
    return re.compile(
        f"{START}(?P<family>{family_pattern}){DELIMITER}"
        f"(?:(?P<id>[A-Za-z0-9_-]+)(?:{DELIMITER}(?P<loc>L\\d+(?:-L\\d+)?))?{STOP}"
        f"|(?P<body>[^{STOP}]*+){STOP})"
    )


def _families(families: Iterable[str]) -> tuple[str, ...]:
    return (families,) if isinstance(families, str) else tuple(families)


def extract_citations(
    text: str, families: Iterable[str] = DEFAULT_FAMILIES
) -> list[Citation]:
    """Citations exactly as the guide's ``extract_citations`` returns them, in linear time."""
    return _extract(text, _families(families))


def _extract(text: str, fams: tuple[str, ...]) -> list[Citation]:
    if not fams:
        return []
    last_stop = text.rfind(STOP)
    if last_stop < 0:
        return []
    out: list[Citation] = []
    append = out.append
    locator_match = LINE_LOCATOR_RE.fullmatch
    id_match = SOURCE_ID_RE.fullmatch
    # Ids and locators repeat: one string object each (a 20 MB answer holds 250,000 of them).
    seen: dict[str, str] = {}
    keep = seen.setdefault
    one_id: dict[str, tuple[str]] = {}  # the tuple of a single id, shared too
    for m in _token_re(fams).finditer(text, 0, last_stop + 1):
        family, sid, loc, body = m.groups()
        if sid is not None:
            # A lone part that is a locator leaves no source id: the reference drops it.
            if loc is not None or not locator_match(sid):
                start, end = m.span()
                ids = one_id.get(sid)
                if ids is None:
                    ids = one_id[sid] = (sid,)
                append(Citation(m.group(), keep(family, family), ids,
                                None if loc is None else keep(loc, loc), start, end))
            continue
        raw = m.group()
        parts = [p.strip() for p in body.split(DELIMITER)]
        parts = [p for p in parts if p]
        if not parts:
            continue
        locator = parts.pop() if locator_match(parts[-1]) else None
        if not parts:
            continue
        for p in parts:
            if not id_match(p):
                break
        else:
            start, end = m.span()
            append(Citation(raw, family, tuple(parts), locator, start, end))
    return out


def _span_of(item: object) -> tuple[int, int]:
    if isinstance(item, Mapping):
        return int(item["start"]), int(item["end"])
    return int(item.start), int(item.end)  # type: ignore[attr-defined]


def strip_citations(text: str, citations: Iterable[object]) -> str:
    """``text`` without the given citations (objects or the reference's dicts), in linear time.

    For the non-overlapping citations that :func:`extract_citations` and :func:`scan` return this
    equals the reference's result; overlapping spans are removed as their union.
    """
    items = citations if isinstance(citations, list) else list(citations)
    # Fast path, one pass: Citation objects in text order without overlaps (parser output).
    pieces: list[str] = []
    append = pieces.append
    pos = 0
    for c in items:
        if type(c) is not Citation or c.start < pos:
            break
        append(text[pos : c.start])
        pos = c.end
    else:
        append(text[pos:])
        return "".join(pieces)
    return StrippedText.build(text, (_span_of(c) for c in items)).text


@dataclass(slots=True)
class StrippedText:
    """Text with spans removed, and the map between clean and original offsets."""

    text: str
    original: str
    # For each kept segment: its start in the clean text and in the original text.
    _clean_starts: list[int]
    _orig_starts: list[int]

    @classmethod
    def build(cls, original: str, spans: Iterable[tuple[int, int]]) -> StrippedText:
        pieces: list[str] = []
        clean_starts: list[int] = []
        orig_starts: list[int] = []
        pos = 0
        clean = 0
        for s, e in sorted(spans):
            if e <= pos:
                continue
            if s > pos:
                pieces.append(original[pos:s])
                clean_starts.append(clean)
                orig_starts.append(pos)
                clean += s - pos
            pos = max(pos, e)
        pieces.append(original[pos:])
        clean_starts.append(clean)
        orig_starts.append(pos)
        return cls("".join(pieces), original, clean_starts, orig_starts)

    def to_original(self, offset: int) -> int:
        """Original offset of clean ``offset``; at a removed span, the position after it."""
        i = bisect_right(self._clean_starts, offset) - 1
        return self._orig_starts[i] + offset - self._clean_starts[i]

    def to_clean(self, offset: int) -> int:
        """Clean offset of original ``offset``; inside a removed span, where the span was."""
        i = bisect_right(self._orig_starts, offset) - 1
        if i < 0:
            return 0
        seg_len = (
            self._clean_starts[i + 1] - self._clean_starts[i]
            if i + 1 < len(self._clean_starts)
            else len(self.text) - self._clean_starts[i]
        )
        return self._clean_starts[i] + min(offset - self._orig_starts[i], seg_len)


# --------------------------------------------------------------------------- literal escapes

# \ue200, \uE200, \\ue200 (escaped twice, as in JSON inside JSON), \u{E200} (JS/Ruby).
_ESCAPE_RE = re.compile(r"\\+u(?:\{[eE]20([012])\}|[eE]20([012]))")
_ESCAPED_CHAR = {"0": START, "1": STOP, "2": DELIMITER}


def decode_literal_escapes(text: str) -> str:
    """Replace marker characters written as ASCII escapes (``\\ue200``) by the characters."""
    return _ESCAPE_RE.sub(lambda m: _ESCAPED_CHAR[m.group(1) or m.group(2)], text)


# --------------------------------------------------------------------------- scan


class _Occupied:
    """Sorted, non-overlapping spans already explained by a finding of higher priority."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self._pending: list[tuple[int, int]] = []
        # Passes query in text order: walking on from the last answer keeps each pass linear
        # (a bisect per query would make a pass O(n log n) on marker-dense answers).
        self._i = 0
        self._last = -1

    def overlaps(self, s: int, e: int) -> bool:
        ends = self.ends
        if s >= self._last:
            i = self._i
            n = len(ends)
            while i < n and ends[i] <= s:
                i += 1
        else:
            i = bisect_left(ends, s + 1)
        self._i, self._last = i, s
        # i is the first span ending after s
        return i < len(self.starts) and self.starts[i] < max(e, s + 1)

    def add(self, s: int, e: int) -> None:
        self._pending.append((s, e))

    def outside(self, text: str) -> str:
        """The pieces of ``text`` that no committed span covers, joined. Every occurrence of a
        literal that overlaps no span lies whole in one piece, so a literal absent from the
        result overlaps a span wherever it occurs (joins can only add occurrences)."""
        if not self.starts:
            return text
        return _join_outside(text, zip(self.starts, self.ends, strict=True))

    def take(self, starts: list[int], ends: list[int]) -> None:
        """The first pass's spans, sorted and disjoint (no add/commit needed)."""
        assert not self.starts and not self._pending
        self.starts, self.ends = starts, ends
        self._i, self._last = 0, -1

    def commit(self) -> None:
        """Merge the spans added by one pass (a pass's spans do not overlap each other's).

        Each pass adds its spans in text order, so the sort is linear (timsort on sorted
        data) and so is the merge."""
        if not self._pending:
            return
        pending = sorted(self._pending)
        self._pending = []
        spans = (list(heapq.merge(zip(self.starts, self.ends, strict=True), pending))
                 if self.starts else pending)
        self.starts = [s for s, _ in spans]
        self.ends = [e for _, e in spans]
        self._i, self._last = 0, -1


_MARKER_CHAR_RE = re.compile(f"[{MARKER_CHARS}]")
_STRAY_STOP = "stray STOP character (U+E201) outside a marker"
_STRAY_DELIMITER = "stray DELIMITER character (U+E202) outside a marker"
_LEADING_ID_RE = re.compile(r"[A-Za-z0-9_-]+")
_BRACKET_RE = re.compile(r"【[^【】\n]{1,200}】")
_WORD = r"A-Za-z0-9_-"
# The longest stretch of one line read when recovering an unterminated marker.
_RECOVERY_WINDOW = 300


@dataclass(slots=True)
class _Part:
    text: str  # stripped
    start: int
    end: int


def _parts_with_spans(text: str, body_start: int, body_end: int) -> list[_Part]:
    """Delimited, stripped, non-empty parts of ``text[body_start:body_end]`` with their spans."""
    parts: list[_Part] = []
    pos = body_start
    while pos <= body_end:
        nxt = text.find(DELIMITER, pos, body_end)
        if nxt < 0:
            nxt = body_end
        raw = text[pos:nxt]
        stripped = raw.strip()
        if stripped:
            lead = len(raw) - len(raw.lstrip())
            parts.append(_Part(stripped, pos + lead, pos + lead + len(stripped)))
        pos = nxt + 1
    return parts


def _may_hide_locator(ids: tuple[str, ...]) -> bool:
    """Whether a conformant citation's ids include a locator read as an id (see
    ``_Scanner._locator_hints``): a valid locator anywhere, or a near miss after the first."""
    if len(ids) == 1:  # (most markers)
        return LINE_LOCATOR_RE.fullmatch(ids[0]) is not None
    return any(
        LINE_LOCATOR_RE.fullmatch(i) or (k > 0 and near_miss_locator(i) is not None)
        for k, i in enumerate(ids)
    )


class _Scanner:
    def __init__(self, text: str, families: tuple[str, ...], known_ids: set[str]) -> None:
        self.text = text
        self.families = families
        self.known_ids = known_ids  # (non-empty ids)
        self._eligible: list[str] | None = None
        self.diagnostics: list[Diagnostic] = []
        self.citations: list[Citation] = []
        self.occupied = _Occupied()

    @property
    def eligible_known(self) -> list[str]:
        """:func:`_eligible_known` of the known ids, made when a pass first needs it."""
        if self._eligible is None:
            self._eligible = _eligible_known(self.known_ids)
        return self._eligible

    def diag(self, code: str, message: str, start: int, end: int) -> None:
        self.diagnostics.append(make(code, message, start, end))

    # -- real markers -------------------------------------------------------------------------

    def markers(self, found: list[Citation]) -> None:
        """The pass over real markers; ``found`` is what :func:`extract_citations` returns."""
        text = self.text
        self.citations.extend(found)
        # A conformant marker holds one START (its first character), one STOP (its last) and
        # its DELIMITERs. When they are all the text holds, the pass below meets each marker
        # as closed, in order, and nothing else (most answers): no character need be visited.
        n = len(found)
        if (text.count(START) == n and text.count(STOP) == n
                and text.count(DELIMITER) == sum(c.raw.count(DELIMITER) for c in found)):
            # closed() on each, unrolled: most markers hold one id that is not a locator.
            for c in found:
                ids = c.source_ids
                if (len(ids) > 1 or ids[0][0] == "L") and _may_hide_locator(ids):
                    head_end = self._family_end(c.start, c.end - 1)
                    self._locator_hints(_parts_with_spans(text, head_end + 1, c.end - 1), c)
            self.occupied.take([c.start for c in found], [c.end for c in found])
            return
        conformant = {c.start: c for c in found}
        open_at = -1
        # Stray characters are not marked occupied: no later pass's finding can start on a
        # private-use character, and answers with 100,000s of them stay cheap to scan.
        stray = self.diagnostics.append
        stray_sev = RULES["CV105"].severity
        for m in _MARKER_CHAR_RE.finditer(text):
            ch, i = m.group(), m.start()
            if ch == START:
                if open_at >= 0:
                    self.unterminated(open_at, i)
                open_at = i
            elif ch == STOP:
                if open_at < 0:
                    stray(Diagnostic("CV105", stray_sev, _STRAY_STOP, i, i + 1))
                else:
                    self.closed(open_at, i + 1, conformant.get(open_at))
                    open_at = -1
            elif open_at < 0:
                stray(Diagnostic("CV105", stray_sev, _STRAY_DELIMITER, i, i + 1))
        if open_at >= 0:
            self.unterminated(open_at, len(text))
        self.occupied.commit()

    def _family_end(self, start: int, limit: int) -> int:
        end = self.text.find(DELIMITER, start + 1, limit)
        return limit if end < 0 else end

    def closed(self, s: int, e: int, conformant: Citation | None) -> None:
        """A marker START ... STOP with no other START inside."""
        text = self.text
        self.occupied.add(s, e)
        if conformant is not None:
            # The reference already split this marker; spans are needed only for a hint.
            if _may_hide_locator(conformant.source_ids):
                head_end = self._family_end(s, e - 1)
                self._locator_hints(_parts_with_spans(text, head_end + 1, e - 1), conformant)
            return
        head_end = self._family_end(s, e - 1)
        family = text[s + 1 : head_end]
        parts = _parts_with_spans(text, head_end + 1, e - 1) if head_end < e - 1 else []
        if family not in self.families:
            if family.strip() in self.families:
                msg = f"family {family!r} has whitespace around it; the marker is ignored"
            elif not family:
                msg = "marker has no family before its first DELIMITER; the marker is ignored"
            else:
                msg = f"unknown citation family {family!r}; the marker is ignored"
            self.diag("CV104", msg, s, e)
            return
        if not parts:
            self.diag("CV102", "empty marker: it names no source", s, e)
            return
        locator: Locator | None = None
        loc_raw: str | None = None
        if LINE_LOCATOR_RE.fullmatch(parts[-1].text):
            loc_raw = parts.pop().text
        if not parts:
            self.diag("CV102", f"marker has a locator ({loc_raw}) but no source id", s, e)
            return
        bad = [p for p in parts if not SOURCE_ID_RE.fullmatch(p.text)]
        if not bad:
            # Well formed, yet the reference did not return it: an earlier unterminated START
            # swallowed it.
            self.citations.append(
                Citation(text[s:e], family, tuple(p.text for p in parts), loc_raw, s, e,
                         Recovery.SWALLOWED)
            )
            return
        for p in bad:
            near = near_miss_locator(p.text)
            if near is not None:
                self.diag(
                    "CV110",
                    f"malformed locator {p.text!r}: write {near.raw}; the marker is ignored",
                    p.start, p.end,
                )
            else:
                self.diag("CV103", f"invalid source id {p.text!r}; the marker is ignored",
                          p.start, p.end)
        # A single malformed locator in last place with valid ids before it: recover it.
        if len(bad) == 1 and bad[0] is parts[-1] and loc_raw is None and len(parts) > 1:
            locator = near_miss_locator(bad[0].text)
            if locator is not None:
                self.citations.append(
                    Citation(text[s:e], family, tuple(p.text for p in parts[:-1]), locator.raw,
                             s, e, Recovery.MALFORMED_LOCATOR)
                )

    def _locator_hints(self, parts: list[_Part], cit: Citation) -> None:
        """A conformant citation can still hold a locator the reference read as a source id."""
        n_ids = len(cit.source_ids)
        for idx, p in enumerate(parts[:n_ids]):
            if LINE_LOCATOR_RE.fullmatch(p.text):
                self.diag("CV110", f"locator {p.text} is not in last place; it is read as a "
                          "source id", p.start, p.end)
            elif (near := near_miss_locator(p.text)) is not None and idx > 0:
                self.diag("CV110", f"malformed locator {p.text!r} is read as a source id: "
                          f"write {near.raw}", p.start, p.end)

    def unterminated(self, s: int, limit: int) -> None:
        """A START with no STOP before ``limit`` (the next START or the end of the text)."""
        text = self.text
        line_end = text.find("\n", s, limit)
        window_end = min(limit if line_end < 0 else line_end, s + _RECOVERY_WINDOW)
        head_end = self._family_end(s, window_end)
        family = text[s + 1 : head_end]
        end = head_end
        ids: list[str] = []
        loc_raw: str | None = None
        if family in self.families and head_end < window_end:
            pos = head_end + 1
            while pos < window_end:
                nxt = text.find(DELIMITER, pos, window_end)
                seg_end = window_end if nxt < 0 else nxt
                seg = text[pos:seg_end]
                lead = len(seg) - len(seg.lstrip())
                m = _LEADING_ID_RE.match(seg, lead)
                if not m:
                    break
                token = m.group()
                if LINE_LOCATOR_RE.fullmatch(token) and ids:
                    loc_raw = token
                    end = pos + m.end()
                    break
                ids.append(token)
                end = pos + m.end()
                if m.end() < len(seg.rstrip()) or nxt < 0:
                    break  # prose follows the id: the marker ended here
                pos = nxt + 1
        end = max(end, s + 1)
        self.occupied.add(s, end)
        if ids:
            self.citations.append(
                Citation(text[s:end], family, tuple(ids), loc_raw, s, end, Recovery.UNTERMINATED)
            )
            what = "next marker" if limit < len(text) else "end of the answer"
            self.diag("CV101", f"unterminated marker: no STOP (U+E201) before the {what}; "
                      "recovered", s, end)
        else:
            self.diag("CV101", "unterminated marker: no STOP (U+E201) after it", s, end)

    # -- look-alikes ----------------------------------------------------------------------------

    def literal_escapes(self) -> None:
        """Markers written as ASCII escape text; the same state machine over the escape tokens."""
        text = self.text
        open_at = -1
        open_end = -1
        last_end = -1
        for m in _ESCAPE_RE.finditer(text):
            kind = _ESCAPED_CHAR[m.group(1) or m.group(2)]
            if kind == START:
                if open_at >= 0:
                    self._literal(open_at, last_end, closed=False)
                open_at, open_end = m.start(), m.end()
            elif kind == STOP and open_at >= 0:
                self._literal(open_at, m.end(), closed=True)
                open_at = -1
            elif open_at < 0 and not self.occupied.overlaps(m.start(), m.end()):
                self.diag("CV106", "marker character written as an ASCII escape", m.start(),
                          m.end())
                self.occupied.add(m.start(), m.end())
            last_end = m.end()
        if open_at >= 0:
            self._literal(open_at, max(last_end, open_end), closed=False)
        self.occupied.commit()

    def _literal(self, s: int, e: int, closed: bool) -> None:
        if self.occupied.overlaps(s, e):
            return
        raw = self.text[s:e]
        self.occupied.add(s, e)
        decoded = decode_literal_escapes(raw)
        found = extract_citations(decoded, self.families) if closed else []
        if len(found) == 1 and found[0].start == 0 and found[0].end == len(decoded):
            c = found[0]
            self.citations.append(
                Citation(raw, c.family, c.source_ids, c.locator, s, e, Recovery.LITERAL_ESCAPE)
            )
            shown = decoded.replace(START, "").replace(STOP, "").replace(DELIMITER, "|")
            self.diag("CV106", f"marker written as ASCII escape text ({shown}); decode it to "
                      "the U+E200/U+E202/U+E201 characters", s, e)
        else:
            self.diag("CV106", "marker character escapes written as ASCII text", s, e)

    def wild(self, search: bool = True) -> None:
        """Forms seen in real traffic (:mod:`citeview.core.wild`), and what a marker of a known
        family that is not enabled is. ``search=False``: no form can be found outside the spans
        taken already (:func:`~citeview.core.wild.may_hold_wild`), so none is searched for."""
        text = self.text
        for k, d in enumerate(self.diagnostics):
            if d.code == "CV104" and text.startswith(START, d.start):
                head_end = self._family_end(d.start, d.end - 1)
                refined = refine_unknown_family(text[d.start + 1 : head_end],
                                                text[head_end + 1 : d.end - 1])
                if refined is not None:
                    self.diagnostics[k] = make(refined[0], refined[1], d.start, d.end)
        for f in find_wild(text, self.families) if search else ():
            if self.occupied.overlaps(f.start, f.end):
                continue
            self.occupied.add(f.start, f.end)
            self.diag(f.code, f.message, f.start, f.end)
            if f.recovery is not None:
                self.citations.append(Citation(text[f.start : f.end], f.family, f.ids, f.locator,
                                               f.start, f.end, Recovery(f.recovery)))
        self.occupied.commit()

    def degraded(self) -> None:
        text = self.text
        known = self.eligible_known
        # Every match is a family, maybe after a lost character: tried only there.
        heads = finditer_near(_degraded_head_re(self.families), text,
                              [f for f in self.families if f], 1, _LOST_CHARS)
        for m in heads:
            s = m.start()
            rest = _DEGRADED_REST_RE.match(text, m.end())
            split = _split_degraded(rest.group(), known) if rest else None
            if split is None:
                continue
            ids, loc, used = split
            e = m.end() + used
            if self.occupied.overlaps(s, e):
                continue
            self.occupied.add(s, e)
            raw = text[s:e]
            self.citations.append(
                Citation(raw, m.group("family"), tuple(ids), loc, s, e, Recovery.DEGRADED)
            )
            self.diag("CV107", f"degraded marker {raw!r}: its private-use characters were lost",
                      s, e)
        self.occupied.commit()

    def brackets(self) -> None:
        for m in _BRACKET_RE.finditer(self.text):
            s, e = m.start(), m.end()
            if self.occupied.overlaps(s, e):
                continue
            self.occupied.add(s, e)
            self.diag("CV108", f"bracket reference {m.group(0)} instead of a citation marker",
                      s, e)
        self.occupied.commit()

    def verbatim_ids(self) -> None:
        known = set(self.eligible_known)
        # A word is flagged when it is a known id or a turnNkindM id: it starts with one of
        # them or with "turn", so only such words are read (a few known ids: each is a find).
        starts = ("turn", *(k for k in known if not k.startswith("turn")))  # (found at "turn")
        words = (finditer_near(_ID_CANDIDATE_RE, self.text, starts, 0)
                 if len(starts) <= _NEAR_KNOWN_IDS else _ID_CANDIDATE_RE.finditer(self.text))
        for m in words:
            token = m.group()
            if token not in known and not TURN_ID_RE.fullmatch(token):
                continue
            s, e = m.start(), m.end()
            if self.occupied.overlaps(s, e):
                continue
            self.diag("CV109", f"source id {token!r} written verbatim outside a marker", s, e)


def _any_in(known: set[str], text: str) -> bool:
    """Whether ``text`` may hold one of the ``known`` ids (each a ``str.find``: with many ids,
    True without looking)."""
    return len(known) > _NEAR_KNOWN_IDS or any(k in text for k in known)


def _eligible_known(known_ids: Iterable[str]) -> list[str]:
    """Known ids worth looking for outside markers: a digit and 4+ characters (so words such
    as "intro" or "a1" are not flagged), longest first."""
    return sorted(
        {i for i in known_ids if len(i) >= 4 and any(map(str.isdigit, i))
         and SOURCE_ID_RE.fullmatch(i)},
        key=lambda i: (-len(i), i),
    )


# What lost private-use characters may have become: nothing, U+FFFD, or a question mark.
_LOST = "\ufffd?"
_LOST_CHARS = frozenset(_LOST)
# A whole word that contains a digit: a candidate for a verbatim source id. The ids themselves
# are checked in Python, so no pattern is compiled per case from its ids.
_ID_CANDIDATE_RE = re.compile(f"(?<![{_WORD}])[{_WORD}]*\\d[{_WORD}]*(?![{_WORD}])")
# Up to this many known ids, the words flagged as verbatim ids are found from where each id
# (and "turn") occurs; more, and one pass over every word is cheaper.
_NEAR_KNOWN_IDS = 16
_LOCATOR_AT_RE = re.compile(r"L\d+(?:-L\d+)?")


@lru_cache(maxsize=16)
def _degraded_head_re(families: tuple[str, ...]) -> re.Pattern[str]:
    # Only the family is consumed, so a failed candidate ("cited") never hides a real one
    # glued after it; the ids are read from the run that follows (_DEGRADED_REST_RE).
    fam = "|".join(re.escape(f) for f in families if f)
    return re.compile(f"(?<![{_WORD}])[{_LOST}]?(?P<family>{fam})(?=[{_LOST}{_WORD}])")


_DEGRADED_REST_RE = re.compile(f"[{_LOST}{_WORD}]+")


def _split_degraded(rest: str, known: Sequence[str]) -> tuple[list[str], str | None, int] | None:
    """Read the glued ids (and a locator) after a degraded marker's family: ``(ids, locator,
    characters used)``, or None when ``rest`` does not start with ids (``citeturn0file0L2``
    yes, ``cited`` no). At each place the longest of a known id and a ``turnNkindM`` id wins;
    one lost-character stand-in may separate parts or close the marker."""
    n = len(rest)

    def token_at(i: int) -> str:
        m = TURN_ID_RE.match(rest, i)
        token = m.group() if m else ""
        for k in known:  # longest first: the first that fits is the longest known
            if len(k) <= len(token):
                break
            if rest.startswith(k, i):
                return k
        return token

    def after_stand_in(i: int) -> int:
        return i + 1 if i < n and rest[i] in _LOST else i

    pos = 0
    ids: list[str] = []
    while True:
        token = token_at(pos)
        if not token and (pos == 0 or ids) and after_stand_in(pos) > pos:
            token = token_at(pos + 1)
            if token:
                pos += 1
        if not token:
            break
        ids.append(token)
        pos += len(token)
    if not ids:
        return None
    locator = None
    for at in (pos, after_stand_in(pos)):
        lm = _LOCATOR_AT_RE.match(rest, at)
        if lm and (lm.end() == n or rest[lm.end()] in _LOST):
            locator, pos = lm.group(), lm.end()
            break
    if pos < n and rest[pos] not in _LOST:
        return None  # more word characters follow: prose, not a marker
    if pos < n and (pos + 1 == n or rest[pos + 1] in _LOST):
        pos += 1  # a final stand-in closed the marker
    return ids, locator, pos


def scan(
    text: str,
    families: Iterable[str] = DEFAULT_FAMILIES,
    known_ids: Iterable[str] = (),
) -> ScanResult:
    """Every citation the reference returns, plus recovered ones and CV1xx diagnostics.

    ``known_ids`` (ids the material defines) lets degraded markers and verbatim ids that are not
    of the ``turnNkindM`` shape be recognised. One diagnostic per span, in priority order:
    real markers, then literal escapes (CV106), degraded markers (CV107), bracket references
    (CV108), verbatim ids (CV109).
    """
    fams = _families(families)
    known = set(known_ids)
    known.discard("")
    if len(text) <= _SPLIT_CHARS:  # (most answers)
        split = _split_plain(text, fams, known)
        if split is not None:
            return split
    found = _extract(text, fams)
    if _plain(text, fams, known, found):
        return ScanResult(found, [])
    return _scan_passes(text, fams, known, found)


# Answers up to this long are read by one split (_split_plain) first: its list of pieces is
# five strings a marker, so a long answer is read the general way.
_SPLIT_CHARS = 1 << 16


@lru_cache(maxsize=64)
def _plain_marker_re(fams: tuple[str, ...]) -> re.Pattern[str] | None:
    """The usual marker of one of ``fams`` (one source id that does not start with "L", perhaps
    a line locator; _token_re's first branch), as (raw, family, id, locator); None for families
    it would not read as the reference does (none, or a marker character in one)."""
    if not fams or _marker_char_in(fams):
        return None
    family_pattern = "|".join(re.escape(f) for f in fams)
    return re.compile(
        f"({START}({family_pattern}){DELIMITER}([A-KM-Za-z0-9_-][A-Za-z0-9_-]*)"
        f"(?:{DELIMITER}(L\\d+(?:-L\\d+)?))?{STOP})"
    )


_new = object.__new__
if tuple(f.name for f in fields(Citation)) != (
        "raw", "family", "source_ids", "locator", "start", "end", "recovered"):  # pragma: no cover
    raise AssertionError("Citation's fields changed: update _split_plain")


def _split_plain(text: str, fams: tuple[str, ...], known: set[str]) -> ScanResult | None:
    """:func:`scan`'s result the short way, when every START of ``text`` opens a usual marker
    (:func:`_plain_marker_re`), else None (the general way reads it).

    Then those markers are the reference's citations: at each START the reference's pattern
    meets the one family that a DELIMITER follows (no family holds a marker character, so one
    family that is a prefix of another is followed by a DELIMITER where the other is not) and
    takes its first branch, which is the usual marker's; between the markers no START is left
    to begin another. None of them may hide a locator (their ids do not start with "L"), so
    :func:`_plain` is decided by the text outside them, which is the split's every fifth piece.
    """
    pattern = _plain_marker_re(fams)
    if pattern is None:
        return None
    parts = pattern.split(text)
    outside = "".join(parts[::5]) if len(parts) > 1 else text
    if START in outside:
        return None
    found: list[Citation] = []
    append = found.append
    pos = len(parts[0])
    for k in range(1, len(parts), 5):
        raw = parts[k]
        end = pos + len(raw)
        c = _new(Citation)  # Citation(raw, family, (id,), locator, pos, end), slot by slot
        c.raw = raw
        c.family = parts[k + 1]
        c.source_ids = (parts[k + 2],)
        c.locator = parts[k + 3]
        c.start = pos
        c.end = end
        c.recovered = None
        append(c)
        pos = end + len(parts[k + 4])
    if _quiet_outside(outside, fams, known):
        return ScanResult(found, [])
    return _scan_passes(text, fams, known, found)


def _scan_passes(text: str, fams: tuple[str, ...], known: set[str], found: list[Citation],
                 skip: bool = True) -> ScanResult:
    """:func:`scan`'s passes over ``text``, whose conformant citations are ``found``.

    Each pass after the markers' finds only spans that hold a literal of its own (a wild
    form's, a family, "turn" or a known id) and drops those that overlap a span taken already:
    a pass whose literals all lie inside taken spans would find nothing and is skipped (most
    answers: ids and families are inside markers). ``skip=False`` runs every pass anyway (the
    tests check that skipping changes nothing)."""
    scanner = _Scanner(text, fams, known)
    scanner.markers(found)
    if "\\" in text:
        scanner.literal_escapes()
    outside = scanner.occupied.outside(text)
    scanner.wild(not skip or may_hold_wild(outside))
    if any(f and (not skip or f in outside) for f in fams):
        scanner.degraded()
    if "【" in text:
        scanner.brackets()
    if not skip or "turn" in outside or _any_in(known, outside):
        scanner.verbatim_ids()
    scanner.citations.sort(key=_BY_START)
    scanner.diagnostics.sort(key=_DIAGNOSTIC_ORDER)
    return ScanResult(scanner.citations, scanner.diagnostics)


_BY_START = attrgetter("start")
_SPAN = attrgetter("start", "end")
_DIAGNOSTIC_ORDER = attrgetter("start", "end", "code")


def _join_outside(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """The pieces of ``text`` outside ``spans`` (sorted, disjoint), joined."""
    pieces = []
    pos = 0
    for s, e in spans:
        pieces.append(text[pos:s])
        pos = e
    pieces.append(text[pos:])
    return "".join(pieces)


def _plain(text: str, fams: tuple[str, ...], known: set[str], found: list[Citation]) -> bool:
    """Whether :func:`scan` finds in ``text`` exactly the reference's citations ``found`` and
    no diagnostic (most answers), decided without its passes: the markers pass meets only
    ``found`` (the marker characters are all theirs, as ``_Scanner.markers`` checks), none of
    which may hide a locator, and no literal that a later pass's finding holds (see
    ``_scan_passes``) lies outside them."""
    if _marker_char_in(fams):
        return False  # (a marker of such a family holds two STARTs or STOPs)
    for c in found:
        ids = c.source_ids
        if len(ids) > 1 or ids[0][0] == "L":
            return False  # (may need a locator hint: _may_hide_locator)
    return _quiet_outside(_join_outside(text, map(_SPAN, found)), fams, known)


def _quiet_outside(outside: str, fams: tuple[str, ...], known: set[str]) -> bool:
    """:func:`_plain`'s test of the text ``outside`` the reference's markers (which may hide no
    locator): no pass of :func:`_scan_passes` can find anything there."""
    # No marker character outside found's markers, each of which holds one START and one
    # STOP: _Scanner.markers's check that they are all the text holds.
    if (START in outside or STOP in outside or DELIMITER in outside or "\\" in outside
            or "【" in outside or may_hold_wild(outside) or len(known) > _NEAR_KNOWN_IDS):
        return False
    for f in fams:
        if f and f in outside:
            return False
    return not any(map(outside.__contains__, known))  # ("turn" is one of may_hold_wild's)


@lru_cache(maxsize=64)
def _marker_char_in(fams: tuple[str, ...]) -> bool:
    return any(ch in f for f in fams for ch in MARKER_CHARS)


def strip_all(text: str, result: ScanResult) -> str:
    """``text`` without any citation ``scan`` found (recovered ones too), unterminated marker
    heads, nor any other marker character: what ``citeview strip --all`` prints."""
    spans = [(c.start, c.end) for c in result.citations]
    spans += [(d.start, d.end) for d in result.diagnostics if d.code == "CV101"]
    return StrippedText.build(text, spans).text.translate(_DELETE_MARKER_CHARS)


_DELETE_MARKER_CHARS = {ord(ch): None for ch in MARKER_CHARS}
