"""Placement rules CV301-CV308: where citations stand in the Markdown structure of an answer.

The answer is parsed with a CommonMark parser (markdown-it-py) with its markers removed, so that
a marker cannot change the structure it is judged in (a marker glued to a closing fence breaks
the fence in the raw text, yet the reader of the rendered answer sees a closed fence). Positions
are mapped back to the raw answer through :class:`~citeview.core.markers.StrippedText`.

markdown-it-py records line maps for blocks only; inline offsets (emphasis delimiters, code
spans) are recorded here by wrapping each inline rule and noting the source position of the
tokens it pushes.

An answer of plain prose around its markers (most answers) is judged from its lines, without a
parse (:func:`_plain_placement`: what the parse would find follows from them).

A long answer is parsed in parts (about :data:`PART_CHARS` characters each), cut only at a blank
line before a line of prose, where every block but a fence or an HTML block ends (a part in which
one is still open is parsed again with more text): memory follows the part, not the answer, and
the findings are those of the whole answer parsed at once.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from operator import attrgetter
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.common.utils import mdTrim
from markdown_it.token import Token

from citeview.core.diagnostics import Diagnostic, make
from citeview.core.markers import Citation, StrippedText
from citeview.core.text import iter_lines

MultiSource = Literal["one-marker", "per-marker"]

# Punctuation that ends or splits a sentence; a citation belongs after it.
SENTENCE_PUNCTUATION = frozenset(".,;:!?…。，、；：！？")
# What may stay on a line besides citations and still leave it "citations only": blockquote and
# list markers.
_ONLY_PREFIX_RE = re.compile(r"\s*(?:>\s*)*(?:(?:[-*+]|\d{1,9}[.)])\s*)?")
_WORD_RE = re.compile(r"\w+")
_INLINE_MARKUP_RE = re.compile(r"[*_`]")
# A paragraph with fewer words than this ("Sure.", "In short:") is not a claim that needs a source.
MIN_SUBSTANTIVE_WORDS = 4
_PLACEHOLDER = "\ue200"  # inert in Markdown: stands for a citation on an otherwise blank line
_POS = "citeview_pos"
_EMPHASIS_WORDS = (("bold", "bold"), ("italics", "italic"))
#: Characters of the answer parsed at a time, at least (a part ends where it may be cut).
PART_CHARS = 1 << 16

# A line break, a blank line, a line break, then a letter at the left margin: where the answer
# may be cut into parts (see _parts). Atomic groups: CRLF is one line break, never two.
_CUT_RE = re.compile(r"(?>\r\n|\n|\r)[ \t]*(?>\r\n|\n|\r)(?=[^\W\d_])")
# Blocks that a blank line and a line of prose at the left margin do not end.
_OPEN_ENDED = frozenset(("fence", "html_block", "code_block"))
_START = attrgetter("start")
_DIAG_ORDER = attrgetter("start", "end", "code")  # diagnostics by position, then code


# --------------------------------------------------------------------------- the parser


def _track(fn: Callable[[Any, bool], bool]) -> Callable[[Any, bool], bool]:
    """Wrap an inline rule so that the tokens it pushes carry their span in the inline source."""

    def rule(state: Any, silent: bool) -> bool:
        n = len(state.tokens)
        pending = bool(state.pending)
        pos = state.pos
        ok = fn(state, silent)
        if ok and not silent and len(state.tokens) > n:
            new = state.tokens[n:]
            if pending and new[0].type == "text" and _POS not in new[0].meta:
                new = new[1:]  # the pending text flushed by the first push
            end = state.pos
            src = state.src
            if (len(new) == end - pos and new
                    and all(t.type == "text" and t.content == src[pos] for t in new)):
                # A delimiter run (emphasis, strikethrough): one token per character.
                for i, t in enumerate(new):
                    t.meta.setdefault(_POS, (pos + i, pos + i + 1))
            else:
                for t in new:
                    t.meta.setdefault(_POS, (pos, end))
        return bool(ok)

    return rule


@lru_cache(maxsize=1)
def _block_parser() -> MarkdownIt:
    """Block structure only: inline content is parsed separately, where citations stand."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("inline")


@lru_cache(maxsize=1)
def _inline_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    ruler = md.inline.ruler
    for name in ruler.get_all_rules():
        rule = ruler.__rules__[ruler.__find__(name)]
        ruler.at(name, _track(rule.fn))
    return md


# --------------------------------------------------------------------------- layout


@dataclass(slots=True)
class _Inline:
    """An inline token (paragraph, heading or table cell) located in the parsed text: its
    content, and its lines (the token's map: first and end line)."""

    content: str
    first_line: int
    end_line: int
    # For each content line: its start in the content and its start in the parsed text.
    content_starts: list[int]
    text_starts: list[int]
    lengths: list[int]

    def content_offset(self, line: int, pos: int) -> int | None:
        """Offset in the inline content of parsed-text ``pos`` on ``line``, or None."""
        k = line - self.first_line
        if not 0 <= k < len(self.text_starts):
            return None
        col = pos - self.text_starts[k]
        if not 0 <= col <= self.lengths[k]:
            return None
        return self.content_starts[k] + col


@dataclass(slots=True)
class _Paragraph:
    first_line: int
    end_line: int  # exclusive
    start: int  # in the parsed text
    end: int
    words: int
    ends_with_colon: bool


@dataclass(slots=True)
class _Layout:
    text: str  # what was parsed
    line_starts: list[int]
    code: list[tuple[int, int, bool]] = field(default_factory=list)  # lines [a, b), closed
    inlines: list[_Inline] = field(default_factory=list)
    paragraphs: list[_Paragraph] = field(default_factory=list)
    # A fenced code or HTML block (of the kinds a blank line does not end) runs to the end of
    # the text: more text could continue it.
    open_at_end: bool = False

    def line_of(self, pos: int) -> int:
        return bisect_right(self.line_starts, pos) - 1

    def line_text(self, line: int) -> str:
        start = self.line_starts[line]
        end = self.line_starts[line + 1] - 1 if line + 1 < len(self.line_starts) else len(self.text)
        return self.text[start:end]


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def _fence_closed(tok: Token) -> bool:
    assert tok.map is not None
    a, b = tok.map
    content = tok.content
    n = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    return b - a - 1 == n + 1


def _locate_inline(layout: _Layout, tok: Token, in_table: bool,
                   cursors: dict[int, int]) -> _Inline | None:
    if tok.map is None:
        return None
    first = tok.map[0]
    lines = tok.content.split("\n")
    content_starts: list[int] = []
    text_starts: list[int] = []
    lengths: list[int] = []
    cstart = 0
    for k, ck in enumerate(lines):
        line = first + k
        if line >= len(layout.line_starts):
            break
        sk = layout.line_text(line)
        off: int
        if in_table:
            idx = sk.find(ck, cursors.get(line, 0))
            if idx < 0:
                break
            off = idx
            cursors[line] = idx + len(ck)
        elif sk.endswith(ck):
            off = len(sk) - len(ck)
        elif sk.rstrip().endswith(ck):
            off = len(sk.rstrip()) - len(ck)
        else:
            idx = sk.find(ck)
            if idx < 0:
                break
            off = idx
        content_starts.append(cstart)
        text_starts.append(layout.line_starts[line] + off)
        lengths.append(len(ck))
        cstart += len(ck) + 1
    if not text_starts:
        return None
    return _Inline(tok.content, first, tok.map[1], content_starts, text_starts, lengths)


def _plain_paragraphs(text: str) -> list[tuple[int, int, str]] | None:
    """The paragraphs of ``text`` as (first line, end line, inline content) when it is plain
    prose, else None (markdown-it parses it).

    Plain prose: every line that is not blank (spaces and tabs only) starts with a letter, and
    no line break but ``\\n`` nor a NUL is in it. No block rule of CommonMark (nor the table
    extension) starts at a letter, and none continues a paragraph onto its next line, so the
    block parser makes each run of non-blank lines one paragraph, its content the lines joined
    and trimmed: what this gives, for a fraction of the parse's time (most answers are prose).
    """
    if "\r" in text or "\0" in text:
        return None
    lines = text.split("\n")
    found: list[tuple[int, int, str]] = []
    start = -1
    for i, line in enumerate(lines):
        if not line.strip(" \t"):
            if start >= 0:
                found.append((start, i, mdTrim("\n".join(lines[start:i]))))
                start = -1
        elif not line[0].isalpha():
            return None
        elif start < 0:
            start = i
    if start >= 0:
        found.append((start, len(lines), mdTrim("\n".join(lines[start:]))))
    return found


def _layout(text: str) -> _Layout:
    plain = _plain_paragraphs(text)
    if plain is not None:
        return _plain_layout(_Layout(text, _line_starts(text)), plain)
    return _parsed_layout(text)


def _parsed_layout(text: str) -> _Layout:
    """The layout of ``text`` from markdown-it's block tokens."""
    layout = _Layout(text, _line_starts(text))
    tokens = _block_parser().parse(text)
    ends = len(layout.line_starts) - 1 if text.endswith("\n") else len(layout.line_starts)
    layout.open_at_end = any(tok.type in _OPEN_ENDED and tok.map is not None
                             and tok.map[1] >= ends for tok in tokens)
    in_table = False
    cursors: dict[int, int] = {}
    para_open: Token | None = None
    for tok in tokens:
        t = tok.type
        if t in ("fence", "code_block") and tok.map is not None:
            closed = t == "fence" and _fence_closed(tok)
            layout.code.append((tok.map[0], tok.map[1], closed))
        elif t == "table_open":
            in_table = True
        elif t == "table_close":
            in_table = False
        elif t == "paragraph_open":
            para_open = tok
        elif t == "inline":
            located = _locate_inline(layout, tok, in_table, cursors)
            if located is not None:
                layout.inlines.append(located)
            if para_open is not None and para_open.map is not None and located is not None:
                content = tok.content.replace(_PLACEHOLDER, "").strip()
                last = len(located.text_starts) - 1
                layout.paragraphs.append(_Paragraph(
                    para_open.map[0], para_open.map[1], located.text_starts[0],
                    located.text_starts[last] + located.lengths[last],
                    len(_WORD_RE.findall(content)), content.endswith(":"),
                ))
            para_open = None
    return layout


def _plain_layout(layout: _Layout, paragraphs: list[tuple[int, int, str]]) -> _Layout:
    """The layout of plain prose (:func:`_plain_paragraphs`), as :func:`_layout` makes it from
    the block parser's tokens."""
    line_starts = layout.line_starts
    for first, end, content in paragraphs:
        # Each line of a paragraph of plain prose starts with a letter: its content is its
        # lines as they are (the last one trimmed at its end), each where its line starts (what
        # _locate_inline finds on markdown-it's tokens).
        lengths = list(map(len, content.split("\n")))
        content_starts = list(accumulate(map((1).__add__, lengths[:-1]), initial=0))
        text_starts = line_starts[first:end]
        layout.inlines.append(_Inline(content, first, end, content_starts, text_starts,
                                      lengths))
        words = content.replace(_PLACEHOLDER, "").strip()
        layout.paragraphs.append(_Paragraph(
            first, end, text_starts[0], text_starts[-1] + lengths[-1],
            len(_WORD_RE.findall(words)), words.endswith(":"),
        ))
    return layout


# --------------------------------------------------------------------------- inline contexts


def _inline_contexts(content: str, points: Sequence[int]) -> list[set[str]]:
    """For each content offset in ``points`` (sorted), what it stands inside: "bold",
    "italics", "code".

    Inline structure is judged with each citation as one inert character, the way a renderer
    sees the raw marker: removed, ``*claim <marker>*`` would leave ``*claim *``, no emphasis
    at all, while the raw answer renders the marker in italics.
    """
    pieces: list[str] = []
    where: list[int] = []
    prev = 0
    for n, q in enumerate(points):
        pieces.append(content[prev:q])
        pieces.append(_PLACEHOLDER)
        where.append(q + n)
        prev = q
    pieces.append(content[prev:])
    tokens = _inline_parser().parseInline("".join(pieces))
    ranges: list[tuple[int, int, str]] = []  # half-open character ranges
    stack: list[tuple[str, int]] = []
    for child in tokens[0].children or () if tokens else ():
        pos = child.meta.get(_POS) if child.meta else None
        if pos is None:
            continue
        ct = child.type
        if ct in ("em_open", "strong_open"):
            stack.append((ct, pos[1]))
        elif ct in ("em_close", "strong_close"):
            want = ct.replace("_close", "_open")
            for i in range(len(stack) - 1, -1, -1):
                if stack[i][0] == want:
                    kind = "bold" if want == "strong_open" else "italics"
                    ranges.append((stack[i][1], pos[0], kind))
                    del stack[i:]
                    break
        elif ct == "code_inline":
            ranges.append((pos[0] + len(child.markup), pos[1] - len(child.markup), "code"))
    return [{kind for lo, hi, kind in ranges if lo <= x < hi} for x in where]


# --------------------------------------------------------------------------- rules


def _parsed_text(answer: str, citations: Sequence[Citation], spans: _Spans,
                 lines: Sequence[_CitedLine]) -> tuple[StrippedText, str]:
    """The answer with ``spans`` (the citations' and the extra ones) removed, as parsed, and
    its offset map (``lines``: :func:`_cited_lines`).

    A line left blank by the removal keeps one inert placeholder character, so a citation on a
    line of its own does not split its paragraph in two. ``\\r\\n`` and ``\\r`` become ``\\n``
    (markdown-it normalises them; doing it here keeps offsets exact)."""
    placeholders = _first_on_blank_lines(answer, citations, lines)
    keep = set(placeholders)
    cut = [(s + 1, e) if s in keep else (s, e) for s, e in spans.spans]
    if "\r" in answer:
        cut.extend((m.start(), m.start() + 1) for m in re.finditer("\r\n", answer))
    stripped = StrippedText.build(answer, cut)
    text = stripped.text.replace("\r", "\n").replace("\0", "\ufffd")
    if placeholders:
        chars = list(text)
        for s in placeholders:
            at = stripped.to_clean(s)
            # (A citation the caller made may overlap another span that removes its first
            # character: then none stands for it, and its line is as the removal leaves it.)
            if at < len(chars) and stripped.to_original(at) == s:
                chars[at] = _PLACEHOLDER
        text = "".join(chars)
    return stripped, text


@dataclass(slots=True)
class _CitedLine:
    """A line of a part that holds a citation: the indexes (into the part's citations) of those
    starting on it, and the line without any removed span."""

    start: int
    cits: list[int]
    rest: str


def _cited_lines(answer: str, citations: Sequence[Citation], spans: _Spans
                 ) -> list[_CitedLine]:
    """The lines holding a citation, in order: worked out once a part, read by the placeholder
    and the CV305 rule."""
    if "\r" in answer:
        lines = list(iter_lines(answer))
        starts = [ls for ls, _, _ in lines]
        stops = [le for _, le, _ in lines]
    else:  # (each line ends at the next one's start, its "\n" before it)
        starts = _line_starts(answer)
        stops = [s - 1 for s in starts[1:]]
        stops.append(len(answer))
    out: list[_CitedLine] = []
    ends: list[int] = []
    for i, c in enumerate(citations):
        k = bisect_right(starts, c.start) - 1
        if k < 0:
            continue
        ls = starts[k]
        if out and out[-1].start == ls:
            out[-1].cits.append(i)
        else:
            out.append(_CitedLine(ls, [i], ""))
            ends.append(stops[k])
    for line, le in zip(out, ends, strict=True):
        line.rest = spans.remaining(answer, line.start, le)
    return out


class _Spans:
    """Removed spans sorted by start, to find those on one line in O(log n)."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        self.spans = sorted(spans)
        self.starts = [s for s, _ in self.spans]

    def remaining(self, answer: str, ls: int, le: int) -> str:
        """``answer[ls:le]`` without the spans."""
        i = bisect_left(self.starts, ls)
        if i > 0 and self.spans[i - 1][1] > ls:
            i -= 1  # a span running into the line from before it
        pieces = []
        pos = ls
        spans = self.spans
        for j in range(i, len(spans)):
            s, e = spans[j]
            if s >= le:
                break
            if s > pos:
                pieces.append(answer[pos:s])
            pos = max(pos, e)
        if pos < le:
            pieces.append(answer[pos:le])
        return "".join(pieces)


def _citation_only_lines(citations: Sequence[Citation], lines: Sequence[_CitedLine],
                         placed: Sequence[bool]) -> list[tuple[int, int]]:
    """Spans (first marker start, last marker end, of the ``placed`` citations) of lines
    holding nothing but citations (and blockquote or list markers)."""
    out = []
    for line in lines:
        group = [i for i in line.cits if placed[i]]
        if group and _ONLY_PREFIX_RE.fullmatch(line.rest):
            out.append((citations[group[0]].start, citations[group[-1]].end))
    return out


def _first_on_blank_lines(answer: str, citations: Sequence[Citation],
                          lines: Sequence[_CitedLine]) -> list[int]:
    """Start of the first citation of each line that removing the markers leaves blank, of
    those whose first character may stand for them: one that is there (a citation the caller
    made may be empty) and no line break (one may start at the break that ends its line)."""
    out = []
    for line in lines:
        if not line.rest.strip():
            for i in line.cits:
                c = citations[i]
                if c.start < c.end and answer[c.start:c.start + 1] not in ("", "\r", "\n"):
                    out.append(c.start)
                    break
    return out


def _runs(answer: str, citations: Sequence[Citation]) -> list[list[Citation]]:
    """Citations grouped into runs separated by nothing but whitespace."""
    runs: list[list[Citation]] = []
    for c in citations:
        if runs and not answer[runs[-1][-1].end:c.start].strip():
            runs[-1].append(c)
        else:
            runs.append([c])
    return runs


def _locator_key(c: Citation) -> object:
    """Locators that select the same lines are equal (``L8`` and ``L8-L8``)."""
    loc = c.parsed_locator
    if loc is not None:
        return (loc.first, loc.last)
    return c.locator


def check_placement(
    answer: str,
    citations: Sequence[Citation],
    extra_spans: Iterable[tuple[int, int]] = (),
    multi_source: MultiSource | None = None,
    *,
    part_chars: int = PART_CHARS,
) -> list[Diagnostic]:
    """CV301-CV308 for ``citations`` (from :func:`~citeview.core.markers.scan`) in ``answer``.

    ``extra_spans`` are other spans removed before parsing (stray marker characters). Rules get
    their default severities; the caller applies the policy. CV307 runs only when
    ``multi_source`` is given.

    The answer is parsed in parts of about ``part_chars`` characters, cut only where the parts
    parse as the whole answer does (see :func:`_parts`), so memory follows the part, not the
    answer; the findings are the same for every ``part_chars``.
    """
    # (Not copied unless sorted: nothing here changes the caller's sequence.)
    cits = citations if type(citations) is list or type(citations) is tuple \
        else list(citations)
    if not cits:
        return []
    prev = 0
    for c in cits:  # (as scanned: in order, most often)
        if c.start < prev:
            cits = sorted(cits, key=_START)
            break
        prev = c.start
    extra = sorted(extra_spans) if extra_spans else []
    size = max(1, part_chars)
    if not extra and len(answer) <= size:
        plain = _plain_placement(answer, cits, multi_source)
        if plain is not None:  # (most answers)
            return plain
    return _placement(answer, cits, extra, multi_source, size)


def _placement(answer: str, cits: Sequence[Citation], extra: Sequence[tuple[int, int]],
               multi_source: MultiSource | None, size: int) -> list[Diagnostic]:
    """:func:`check_placement` the general way, parsed in parts (``cits`` and ``extra`` sorted,
    ``cits`` not empty)."""
    diags: list[Diagnostic] = []
    placed = 0  # citations outside code, and the first and last of them
    first: Citation | None = None
    last: Citation | None = None
    paragraphs = 0
    cited_lo = cited_hi = -1  # the first and last paragraph holding a placed citation
    all_in_paragraphs = True
    uncited: list[tuple[int, int]] = []  # substantive paragraphs without a citation
    for part in _parts(answer, cits, extra, size):
        found = _judge(part, multi_source)
        lo = part.lo
        diags.extend(found.diags if not lo else
                     [Diagnostic(d.code, d.severity, d.message, d.start + lo, d.end + lo)
                      for d in found.diags])
        if found.placed:
            placed += len(found.placed)
            if first is None:
                first = part.cits[found.placed[0]]
            last = part.cits[found.placed[-1]]
        if found.cited:
            cited_lo = paragraphs + found.cited[0] if cited_lo < 0 else cited_lo
            cited_hi = paragraphs + found.cited[-1]
        all_in_paragraphs = all_in_paragraphs and found.all_in_paragraphs
        paragraphs += found.paragraphs
        uncited.extend((s + lo, e + lo) for s, e in found.uncited)

    # CV306 and CV308 work on the paragraphs of the whole answer.
    if paragraphs >= 2 and placed >= 2 and cited_lo == cited_hi == paragraphs - 1 \
            and all_in_paragraphs:
        assert first is not None and last is not None
        diags.append(make("CV306", f"all {placed} citations stand in the last paragraph: "
                          "cite each claim where it is made", first.start, last.end))
    if placed:
        for start, end in uncited:
            diags.append(make("CV308", "paragraph has no citation while the answer cites "
                              "elsewhere", start, end))
    diags.sort(key=_DIAG_ORDER)
    return diags


# --------------------------------------------------------------------------- plain prose


def _plain_placement(answer: str, cits: Sequence[Citation],
                     multi_source: MultiSource | None) -> list[Diagnostic] | None:
    """:func:`check_placement` without a parse, when the answer is plain prose around its
    citations (most answers), else None (the general way then judges it).

    Plain prose around ``cits`` (sorted, apart, none over a line break nor at a line's start;
    no other span removed; the answer one part): no inline markup nor ``\\r`` nor NUL in the
    answer, every line blank (spaces and tabs) or starting with a letter, every line holding a
    citation not blank. That is what :func:`_plain_paragraphs` takes without markdown-it, and
    then what the general way finds follows from the lines alone: no code, emphasis or
    placeholder (no line is left blank by the removal), no line of citations only (a letter
    starts each), every citation in the paragraph of its line; the paragraphs without a
    citation are as they are in the answer."""
    if "*" in answer or "_" in answer or "`" in answer or "\r" in answer or "\0" in answer:
        return None  # (a few scans for one character each: quicker than a regular expression)
    if cits[-1].start > len(answer):
        return None  # (not a scan's citation: no line to find)
    found = _all_cited(answer, cits, multi_source)
    if found is not None:  # (most answers)
        return found
    lines = answer.split("\n")
    cited_lines: set[int] = set()
    k = start = pos = 0
    end = len(lines[0])  # line k is answer[start:end]
    punctuated = False  # a marker directly before sentence punctuation (CV304 looks further)
    for c in cits:
        s = c.start
        if s < pos or c.end < s:
            return None
        while s > end:
            k += 1
            start = end + 1
            end = start + len(lines[k])
        if s == start or c.end > end:
            return None  # at the start of a line, or over a line break
        cited_lines.add(k)
        pos = c.end
        punctuated = punctuated or answer[pos:pos + 1] in SENTENCE_PUNCTUATION
    # No line starts with a citation: the markers removed, each line starts as it does in the
    # answer, and one starting with a letter is not left blank. Paragraphs: runs of lines that
    # are not blank (_plain_paragraphs), and those holding a citation.
    firsts: list[int] = []
    ends: list[int] = []
    cited: set[int] = set()
    first = -1
    for i, text in enumerate(lines):
        if text[:1].isalpha():
            if first < 0:
                first = i
            if i in cited_lines:
                cited.add(len(firsts))
        elif text.strip(" \t") or i in cited_lines:
            return None  # not a letter first, or a cited line of blanks
        elif first >= 0:
            firsts.append(first)
            ends.append(i)
            first = -1
    if first >= 0:
        firsts.append(first)
        ends.append(len(lines))

    diags: list[Diagnostic] = []
    if punctuated:
        _before_punctuation(answer, cits, diags)
    if multi_source is not None:
        _multi_source(answer, cits, multi_source, diags)
    paragraphs = len(firsts)
    if paragraphs >= 2 and len(cits) >= 2 and len(cited) == 1 and paragraphs - 1 in cited:
        diags.append(make("CV306", f"all {len(cits)} citations stand in the last paragraph: "
                          "cite each claim where it is made", cits[0].start, cits[-1].end))
    if len(cited) < paragraphs:
        starts = _line_starts(answer)
        for j in range(paragraphs):
            if j in cited:
                continue
            content = mdTrim("\n".join(lines[firsts[j]:ends[j]]))
            words = content.replace(_PLACEHOLDER, "").strip()
            if len(_WORD_RE.findall(words)) < MIN_SUBSTANTIVE_WORDS or words.endswith(":"):
                continue
            last = len(content) - content.rfind("\n") - 1  # the last line, trimmed
            diags.append(make("CV308", "paragraph has no citation while the answer cites "
                              "elsewhere", starts[firsts[j]], starts[ends[j] - 1] + last))
    diags.sort(key=_DIAG_ORDER)
    return diags


def _all_cited(answer: str, cits: Sequence[Citation],
               multi_source: MultiSource | None) -> list[Diagnostic] | None:
    """:func:`_plain_placement` of an answer of one-line paragraphs, each starting with a
    letter and holding a citation, one empty line between each two (and perhaps a line break
    at the end; most answers), else None (the line walk judges it).

    Then each paragraph is a line: no citation is at the start of one nor over a line break
    when each starts after its paragraph's start and ends by its end; no paragraph is uncited
    (CV308) nor does one alone hold them all (CV306), and only CV304 and CV307 are left."""
    paras = answer.split("\n\n")
    if len(paras) > len(cits):
        return None  # (a paragraph holds none)
    k = len(cits)
    ci = 0
    last = len(paras) - 1
    start = pos = 0
    punctuated = False
    for j, para in enumerate(paras):
        size = len(para)
        if j == last and para[-1:] == "\n":
            size -= 1  # (the answer's last line break)
        # Each paragraph one line starting with a letter (none empty: no two empty lines in a
        # row, none at the answer's start or end).
        if not size or not para[0].isalpha() or ("\n" in para and para.find("\n") < size):
            return None
        end = start + size
        held = ci
        while ci < k:
            c = cits[ci]
            s = c.start
            if s > end:
                break
            e = c.end
            if s <= start or s < pos or e < s or e > end:
                return None  # at a line's start, out of order, or over a line break
            if e < end and answer[e] in SENTENCE_PUNCTUATION:
                punctuated = True
            pos = e
            ci += 1
        if ci == held:
            return None  # no citation in it
        start = end + 2
    if ci < k:
        return None  # (after the last paragraph: at the start of a line)
    diags: list[Diagnostic] = []
    if punctuated:
        _before_punctuation(answer, cits, diags)
    if multi_source is not None:
        _multi_source(answer, cits, multi_source, diags)
    if len(diags) > 1:
        diags.sort(key=_DIAG_ORDER)
    return diags


# --------------------------------------------------------------------------- parts


@dataclass(slots=True)
class _Part:
    """A part of the answer as parsed: ``text`` is ``answer[lo:hi]``; ``cits`` the citations
    in it (the caller's objects) and ``local`` the same with offsets in ``text``."""

    lo: int
    text: str
    cits: Sequence[Citation]
    local: Sequence[Citation]
    spans: _Spans
    stripped: StrippedText
    layout: _Layout
    lines: list[_CitedLine]


@dataclass(slots=True)
class _Judged:
    """What the rules found in one part (offsets in the part): the findings that need nothing
    outside it, and what CV306 and CV308 need to judge the whole answer."""

    diags: list[Diagnostic]
    placed: list[int]  # citations (indexes into the part's) outside code, in order
    paragraphs: int
    cited: list[int]  # paragraphs holding a placed citation, sorted
    all_in_paragraphs: bool  # every placed citation stands in a paragraph
    uncited: list[tuple[int, int]]  # substantive paragraphs without a citation


def _parts(answer: str, cits: Sequence[Citation], extra: Sequence[tuple[int, int]],
           size: int) -> Iterator[_Part]:
    """``answer`` in parsed parts of at least ``size`` characters (the last may be shorter).

    A part ends only before a line of prose at the left margin (its first character a letter)
    after a blank line, outside every removed span. Every container and leaf block the
    CommonMark block parser knows ends there (paragraph, list, quote, table, indented code,
    HTML of kinds 6 and 7), and the line cannot join what came before, so a part parses as that
    stretch of the whole answer does: the same blocks, inline content and paragraphs. Fenced
    code and HTML blocks of kinds 1 to 5 run on over blank lines: a part in which one reaches
    its end is parsed again with more text (twice as much: the work stays linear)."""
    n = len(answer)
    if n <= size:  # (most answers: one part, where the loop below would cut it)
        yield _parse(answer, 0, n, cits, extra)
        return
    cutter = _Cutter(answer, cits, extra)
    lo = ci = ei = 0
    while lo < n:
        want = lo + size
        while True:
            hi = cutter.next_cut(want)
            # (The last part takes the rest: a span the caller made may start at the end.)
            cj = ci
            while cj < len(cits) and (cits[cj].start < hi or hi >= n):
                cj += 1
            ej = ei
            while ej < len(extra) and (extra[ej][0] < hi or hi >= n):
                ej += 1
            part = _parse(answer, lo, hi, cits[ci:cj], extra[ei:ej])
            if hi >= n or not part.layout.open_at_end:
                break
            want = hi + (hi - lo)
        yield part
        lo, ci, ei = hi, cj, ej


class _Cutter:
    """The places where an answer may be cut (see :func:`_parts`), asked for in order."""

    __slots__ = ("answer", "ci", "cits", "ei", "extra", "last_start", "max_end")

    def __init__(self, answer: str, cits: Sequence[Citation],
                 extra: Sequence[tuple[int, int]]) -> None:
        self.answer = answer
        self.cits = cits
        self.extra = extra
        self.ci = self.ei = 0
        self.last_start = -1  # of the spans before the place asked about
        self.max_end = 0

    def next_cut(self, pos: int) -> int:
        """The first place at or after ``pos`` where the answer may be cut, or its length."""
        cits, extra = self.cits, self.extra
        for m in _CUT_RE.finditer(self.answer, pos):
            cut = m.end()
            while self.ci < len(cits) and cits[self.ci].start < cut:
                c = cits[self.ci]
                self.last_start = max(self.last_start, c.start)
                self.max_end = max(self.max_end, c.end)
                self.ci += 1
            while self.ei < len(extra) and extra[self.ei][0] < cut:
                s, e = extra[self.ei]
                self.last_start = max(self.last_start, s)
                self.max_end = max(self.max_end, e)
                self.ei += 1
            if (self.max_end <= m.start() and self.last_start < m.start()
                    and (self.ci == len(cits) or cits[self.ci].start != cut)
                    and (self.ei == len(extra) or extra[self.ei][0] != cut)):
                return cut
        return len(self.answer)


def _parse(answer: str, lo: int, hi: int, cits: Sequence[Citation],
           extra: Sequence[tuple[int, int]]) -> _Part:
    local: Sequence[Citation]
    if lo == 0 and hi == len(answer):
        text, local = answer, cits
        removed = [(c.start, c.end) for c in cits]
        removed.extend(extra)
    else:
        text = answer[lo:hi]
        local = [Citation(c.raw, c.family, c.source_ids, c.locator, c.start - lo, c.end - lo,
                          c.recovered) for c in cits]
        removed = [(c.start, c.end) for c in local]
        removed.extend((s - lo, e - lo) for s, e in extra)
    spans = _Spans(removed)
    lines = _cited_lines(text, local, spans)
    stripped, parsed = _parsed_text(text, local, spans, lines)
    return _Part(lo, text, cits, local, spans, stripped, _layout(parsed), lines)


def _judge(part: _Part, multi_source: MultiSource | None) -> _Judged:
    """The placement rules over one part (see :func:`check_placement`)."""
    answer, cits, stripped, layout = part.text, part.local, part.stripped, part.layout
    diags: list[Diagnostic] = []
    if not cits:
        return _Judged(diags, [], len(layout.paragraphs), [], True, _uncited(part, set()))

    points = [stripped.to_clean(c.start) for c in cits]
    lines = [layout.line_of(p) for p in points]

    # Code: fenced or indented blocks, then code spans and emphasis in inline content.
    in_code = [False] * len(cits)
    code_starts = [a for a, _, _ in layout.code]
    for i, c in enumerate(cits if code_starts else ()):
        k = bisect_right(code_starts, lines[i]) - 1
        if k < 0 or lines[i] >= layout.code[k][1]:
            continue
        _, b, closed = layout.code[k]
        in_code[i] = True
        if closed and lines[i] == b - 1:
            diags.append(make("CV303", "citation on the closing line of a code fence: in the "
                              "raw answer it breaks the fence and the rest of the answer "
                              "renders as code", c.start, c.end))
        else:
            diags.append(make("CV302", "citation inside a code block", c.start, c.end))
    # Inline content is cut from the parsed text: without a markup character in it, no
    # citation stands in emphasis or a code span (most answers: no inline parse at all).
    if _INLINE_MARKUP_RE.search(layout.text):
        by_line: dict[int, list[_Inline]] = {}
        for inline in layout.inlines:
            for k in range(len(inline.text_starts)):
                by_line.setdefault(inline.first_line + k, []).append(inline)
        pending: dict[int, tuple[_Inline, list[tuple[int, int]]]] = {}
        for i in range(len(cits)):
            if in_code[i]:
                continue
            for inline in by_line.get(lines[i], ()):
                q = inline.content_offset(lines[i], points[i])
                if q is not None:
                    pending.setdefault(id(inline), (inline, []))[1].append((q, i))
                    break
        for inline, hits in pending.values():
            content = inline.content
            if not _INLINE_MARKUP_RE.search(content):
                continue  # no emphasis or code span can stand here
            hits.sort()
            contexts = _inline_contexts(content, [q for q, _ in hits])
            for (_, i), kinds in zip(hits, contexts, strict=True):
                c = cits[i]
                if "code" in kinds:
                    in_code[i] = True
                    diags.append(make("CV302", "citation inside inline code", c.start, c.end))
                elif kinds:
                    what = " and ".join(w for k, w in _EMPHASIS_WORDS if k in kinds)
                    diags.append(make("CV301", f"citation inside {what} text: place it after "
                                      "the emphasis", c.start, c.end))

    placed_at = [i for i in range(len(cits)) if not in_code[i]]
    placed = [cits[i] for i in placed_at]

    _before_punctuation(answer, placed, diags)

    # CV305: lines of nothing but citations.
    for s, e in _citation_only_lines(cits, part.lines, [not x for x in in_code]):
        diags.append(make("CV305", "line holds nothing but citations: put them at the end of "
                          "the sentence they support", s, e))

    # What CV306 and CV308 need: the paragraph of each placed citation.
    paragraphs = layout.paragraphs
    para_starts = [p.first_line for p in paragraphs]
    cited: set[int] = set()
    all_in_paragraphs = True
    for i in placed_at:
        j = bisect_right(para_starts, lines[i]) - 1
        if j >= 0 and lines[i] < paragraphs[j].end_line:
            cited.add(j)
        else:
            all_in_paragraphs = False
    # Paragraphs holding a marker inside inline code count as cited for CV308: CV302 already
    # tells of that marker; "no citation" over the same marker would be a second, wrong one.
    marked = set(cited)
    for i in range(len(cits)):
        j = bisect_right(para_starts, lines[i]) - 1
        if in_code[i] and j >= 0 and lines[i] < paragraphs[j].end_line:
            marked.add(j)

    _multi_source(answer, cits, multi_source, diags)
    return _Judged(diags, placed_at, len(paragraphs), sorted(cited), all_in_paragraphs,
                   _uncited(part, marked))


def _before_punctuation(answer: str, placed: Sequence[Citation], diags: list[Diagnostic]) -> None:
    """CV304: a run of ``placed`` markers directly followed by sentence punctuation."""
    if not any(answer[c.end:c.end + 1] in SENTENCE_PUNCTUATION for c in placed):
        return  # (most answers: no run to look for)
    for run in _runs(answer, placed):
        last = run[-1]
        nxt = answer[last.end:last.end + 1]
        if nxt and nxt in SENTENCE_PUNCTUATION:
            start = run[0].start
            # Only markers glued to each other (no space) share the punctuation.
            for j in range(len(run) - 1, 0, -1):
                if run[j - 1].end != run[j].start:
                    start = run[j].start
                    break
            diags.append(make("CV304", f"citation before {nxt!r}: place citations after "
                              "punctuation", start, last.end))


def _multi_source(answer: str, cits: Sequence[Citation], multi_source: MultiSource | None,
                  diags: list[Diagnostic]) -> None:
    """CV307: multi-source style against the policy."""
    if multi_source == "per-marker":
        for c in cits:
            if len(c.source_ids) > 1:
                diags.append(make("CV307", f"one marker cites {len(c.source_ids)} sources: "
                                  "write one marker per source", c.start, c.end))
    elif multi_source == "one-marker":
        # A locator applies to every id of a marker, so only adjacent markers with the same
        # locator (or none) could be one marker; each such group is one finding.
        for run in _runs(answer, cits):
            groups: dict[object, list[Citation]] = {}
            for c in run:
                groups.setdefault(_locator_key(c), []).append(c)
            for group in groups.values():
                if len(group) < 2:
                    continue
                loc = group[0].locator
                how = f"with the same locator {loc}" if loc is not None else "without locators"
                diags.append(make("CV307", f"{len(group)} adjacent markers {how}: cite these "
                                  "sources in one marker", group[0].start, group[-1].end))


def _uncited(part: _Part, cited: set[int]) -> list[tuple[int, int]]:
    """Spans (in the part) of its substantive paragraphs that hold no placed citation."""
    out = []
    stripped = part.stripped
    for j, para in enumerate(part.layout.paragraphs):
        if j in cited or para.words < MIN_SUBSTANTIVE_WORDS or para.ends_with_colon:
            continue
        start = stripped.to_original(para.start)
        end = stripped.to_original(para.end - 1) + 1 if para.end > para.start else start
        out.append((start, end))
    return out


# --------------------------------------------------------------------------- inline spans

_SPAN_OPEN = {"em_open": "em_close", "strong_open": "strong_close", "s_open": "s_close"}
_SPAN_MARKUP_RE = re.compile(r"[*_`~\[<!]")


def inline_spans(answer: str) -> list[tuple[int, int]]:
    """The spans ``(start, end)`` of ``answer``'s emphasis, strikethrough, code spans, links and
    images, delimiters and link targets included, parsed as the placement rules parse it.

    A citation inside one breaks a rule (CV301, CV302) or is not shown at all (in a link
    target): where a citation must go after a claim, it goes after the span that holds the
    claim's end (``citeview convert``)."""
    out: list[tuple[int, int]] = []
    for part in _parts(answer, [], [], PART_CHARS):
        for inline in part.layout.inlines:
            content = inline.content
            if not _SPAN_MARKUP_RE.search(content):
                continue
            tokens = _inline_parser().parseInline(content)
            ranges: list[tuple[int, int]] = []
            stack: list[tuple[str, int]] = []
            for child in tokens[0].children or () if tokens else ():
                pos = child.meta.get(_POS) if child.meta else None
                if pos is None:
                    continue
                ct = child.type
                # A delimiter token stands for the innermost character of its run: the span
                # takes in its whole markup ("**").
                if ct in _SPAN_OPEN:
                    stack.append((_SPAN_OPEN[ct], pos[1] - len(child.markup)))
                elif ct in _SPAN_OPEN.values():
                    for i in range(len(stack) - 1, -1, -1):
                        if stack[i][0] == ct:
                            ranges.append((stack[i][1], pos[0] + len(child.markup)))
                            del stack[i:]
                            break
                elif ct in ("code_inline", "link_open", "image"):
                    ranges.append(pos)
            for lo, hi in ranges:
                a = _text_offset(inline, lo)
                b = _text_offset(inline, hi)
                out.append((part.lo + part.stripped.to_original(a),
                            part.lo + part.stripped.to_original(b)))
    out.sort()
    return out


def _text_offset(inline: _Inline, q: int) -> int:
    """Parsed-text offset of inline content offset ``q``."""
    k = max(0, bisect_right(inline.content_starts, q) - 1)
    return inline.text_starts[k] + min(q - inline.content_starts[k], inline.lengths[k])


class ChipPlaces:
    """Where a provider citation's chip goes: at its claim's end, or after the emphasis, code
    span, link or image that holds that end strictly inside (in a link target a chip is not
    shown at all; ``citeview convert`` puts the marker there too). ``spans`` (sorted, from
    :func:`inline_spans`) merged where they cross, so each look-up is one bisection."""

    __slots__ = ("_starts", "_ends")

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for s, e in spans:
            if merged and s < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        self._starts = [s for s, _ in merged]
        self._ends = [e for _, e in merged]

    def place(self, pos: int) -> int:
        k = bisect_left(self._starts, pos) - 1
        return self._ends[k] if k >= 0 and pos < self._ends[k] else pos


def after_inline_spans(spans: Sequence[tuple[int, int]], pos: int) -> int:
    """``pos``, or the end of the outermost of ``spans`` (from :func:`inline_spans`) that holds
    it strictly inside (one look-up; build a :class:`ChipPlaces` for many)."""
    return ChipPlaces(spans).place(pos)
