"""Claims: the span of answer text each citation supports.

A citation supports the text before it: from the end of the previous citation or the start of
its sentence, whichever is later, up to the marker. Markers separated only by whitespace form
one group and share one claim (``claim.<c1> <c2>`` cites two sources for the same claim).
Spans are trimmed of whitespace and given in code points of the answer.

A sentence starts after a terminator (``. ! ? …`` then whitespace; CJK ``。！？`` need none),
after a blank line, after a heading or code fence line, and at a list item, quote or table row
(the item marker is not part of the claim). A single line break inside a paragraph is not a
boundary: hard-wrapped prose keeps its sentences whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Protocol

_NL = r"(?>\r\n|\n|\r)"  # atomic: CRLF is one line break, never two
_CLOSERS = "\"')]}\u00bb\u201d\u2019\u300d\u300f\uff09"
_C = re.escape(_CLOSERS)
# Public: "sentence" means the same for claims and for recall (metrics.answer_sentences).
SENTENCE_BOUNDARY_RE = re.compile(
    rf"[.!?\u2026]+[{_C}]*\s+"  # end of a sentence, then whitespace
    rf"|[\u3002\uff01\uff1f]+[{_C}]*\s*"  # CJK full stops need no space
    rf"|{_NL}[ \t]*(?:{_NL}[ \t]*)+"  # blank line: a new paragraph
    rf"|^[ \t]*#{{1,6}}[ \t][^\r\n]*{_NL}"  # a heading line ends before the next line
    rf"|^[ \t]*(?:```|~~~)[^\r\n]*{_NL}"  # a code fence line
    rf"|^[ \t]*(?:[-*+>|]|\d{{1,9}}[.)])[ \t]+",  # list item, quote or table row
    re.MULTILINE,
)
# Where a boundary may start: a terminator or a line break (and a line's start, see below).
_BOUNDARY_START_RE = re.compile(r"[.!?\u2026\u3002\uff01\uff1f\r\n]")


def sentence_boundaries(text: str, pos: int, endpos: int) -> Iterator[re.Match[str]]:
    """``SENTENCE_BOUNDARY_RE.finditer(text, pos, endpos)``, the pattern tried only where a
    boundary may start (a terminator, a line break, a line's start) instead of at every
    character (its alternatives give ``re`` no character to search for: a third of a claim's
    cost)."""
    match = SENTENCE_BOUNDARY_RE.match
    cur = pos  # where finditer would search on from
    if pos == 0 or text[pos - 1] == "\n":
        m = match(text, pos, endpos)
        if m is not None:
            cur = m.end()
            yield m
    for hit in _BOUNDARY_START_RE.finditer(text, pos, endpos):
        i = hit.start()
        for p in (i, i + 1) if text[i] == "\n" else (i,):  # after "\n": a line's start
            if p >= cur:
                m = match(text, p, endpos)
                if m is not None:
                    cur = m.end()
                    yield m


# Characters that end a sentence and stay with its claim (back over them before searching).
_TRAILING = set(".!?\u2026\u3002\uff01\uff1f,;:" + _CLOSERS)
_TRAILING_CHARS = "".join(sorted(_TRAILING))


class Spanned(Protocol):
    """Anything with a ``start`` and an ``end`` offset (a citation, a marker span)."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


def claim_spans(answer: str, citations: Sequence[Spanned]) -> list[tuple[int, int]]:
    """One ``(start, end)`` claim span per citation, in the order given (any object with
    ``start`` and ``end`` will do, e.g. :class:`~citeview.core.markers.Citation`)."""
    # Citations are taken by (start, end): a scan's come in that order, and are walked as
    # they come (the general path sorts them first).
    spans: list[tuple[int, int]] = []
    append = spans.append
    prev_end = 0  # end of the last citation before the current group
    last_start = last_end = -1  # of the previous citation; end: of the current group
    span = (0, 0)
    for c in citations:
        start = c.start
        if start <= last_start:
            return _sorted_claim_spans(answer, citations)
        last_start = start
        if 0 <= last_end <= start:
            head = answer[last_end:start]
            if not head or head.isspace():  # (not head.strip(), no string made)
                end = c.end  # only whitespace between: one group, one claim
                if end > last_end:
                    last_end = end
                append(span)
                continue
            if last_end >= prev_end:  # the claim's text is what lies between: cut once
                lo = prev_end = last_end
            else:  # (citations overlapping: an earlier one ends after this one starts)
                lo = prev_end if prev_end <= start else start
                head = answer[lo:start]
        else:
            if last_end > prev_end:
                prev_end = last_end
            lo = prev_end if prev_end <= start else start
            head = answer[lo:start]
        span = _claim_of(answer, lo, head)  # (_claim(answer, prev_end, start))
        last_end = c.end
        append(span)
    return spans


def _sorted_claim_spans(answer: str, citations: Sequence[Spanned]) -> list[tuple[int, int]]:
    """:func:`claim_spans` of citations in any order: walked sorted by (start, end)."""
    order = sorted(range(len(citations)), key=lambda i: (citations[i].start, citations[i].end))
    spans: list[tuple[int, int]] = [(0, 0)] * len(citations)
    prev_end = 0
    last_end = -1
    span = (0, 0)
    for i in order:
        start, end = citations[i].start, citations[i].end
        if 0 <= last_end <= start and not answer[last_end:start].strip():
            last_end = max(last_end, end)
        else:
            prev_end = max(prev_end, last_end)
            span = _claim(answer, prev_end, start)
            last_end = end
        spans[i] = span
    return spans


def claim_span(answer: str, citations: Sequence[Spanned], index: int) -> tuple[int, int]:
    """The claim span of ``citations[index]`` (see :func:`claim_spans`)."""
    return claim_spans(answer, citations)[index]


def claim_texts(answer: str, citations: Sequence[Spanned]) -> list[str]:
    """The text of each citation's claim."""
    return [answer[s:e] for s, e in claim_spans(answer, citations)]


_ENDERS = set(".!?\u2026\u3002\uff01\uff1f" + _CLOSERS)


def sentence_at(answer: str, position: int) -> tuple[int, int]:
    """The sentence that contains ``position`` or ends at it (its final punctuation kept,
    whitespace trimmed): the claim of a citation that marks a single position, such as an
    OpenAI ``file_citation`` (whose index is usually the claim's full stop). Sentences are
    those of :data:`SENTENCE_BOUNDARY_RE`."""
    position = max(0, min(position, len(answer)))
    start, end = 0, len(answer)
    for m in SENTENCE_BOUNDARY_RE.finditer(answer):
        if m.end() <= position:
            start = m.end()
            continue
        end = m.start()
        while end < m.end() and answer[end] in _ENDERS:
            end += 1
        break
    while end > start and answer[end - 1].isspace():
        end -= 1
    while start < end and answer[start].isspace():
        start += 1
    return start, end


# What a list item's marker starts with, besides a decimal digit.
_ITEM_MARKS = frozenset("-*+>|")


def _claim(answer: str, lo: int, marker: int, quick: bool = True) -> tuple[int, int]:
    """The claim of a marker at ``marker``, the previous citation ending at ``lo``: from the
    last sentence boundary in between (or ``lo``) to the marker, whitespace trimmed. ``quick``:
    decide the common case by a cheap check first (False only to test that both agree)."""
    if lo > marker:
        lo = marker
    return _claim_of(answer, lo, answer[lo:marker], quick)


def _claim_of(answer: str, lo: int, head: str, quick: bool = True) -> tuple[int, int]:
    """:func:`_claim` of the marker ending ``head`` (``answer[lo:marker]``, cut already)."""
    # Whitespace before the marker, then closing punctuation, cut by C-speed strips (rstrip()
    # strips what str.isspace calls whitespace).
    head = head.rstrip()
    e = lo + len(head)
    kept = head.rstrip(_TRAILING_CHARS)
    search_end = lo + len(kept)
    # Most claims are one sentence after whitespace (a paragraph's break, a space): when no
    # boundary may start after that whitespace (no character of _BOUNDARY_START_RE, so no line
    # start either, and no list item's marker first), every boundary lies within the
    # whitespace and the claim starts after it.
    body = kept.lstrip()
    if quick and (not body or (
            body[0] not in _ITEM_MARKS and not body[0].isdecimal()
            and "." not in body and "\n" not in body and "!" not in body and "?" not in body
            and "\r" not in body
            and (body.isascii() or ("\u2026" not in body and "\u3002" not in body
                                    and "\uff01" not in body and "\uff1f" not in body)))):
        return (search_end - len(body), e)
    start = lo
    for m in sentence_boundaries(answer, lo, search_end):
        start = m.end()
    start = min(start, e)
    while start < e and answer[start].isspace():
        start += 1
    return (start, e)
