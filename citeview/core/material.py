"""Citable material: reading tool outputs, injected context and files into sources.

Shapes (see the guide's "Represent citable material" and "Examples"):

* tool output, line level: a ``Citation Marker: <marker>`` header, ``Key: value`` metadata up to
  the first blank or labelled line, then ``[L1] text`` lines (kind ``line``);
* tool output, block level: the same header, then ``[BlockN]`` and the block's text (``block``);
* tool output, document level: the same header, then text without labels (``document``);
* injected context: units in a tag of any name with an ``id`` attribute (``context``);
* a file given directly as a source, whose physical lines are L1..Ln (``file``).

A source's ``text`` is what a reviewer reads: labels are removed (they belong in the gutter) and
every line break is ``\\n``. Line breaks in the material are ``\\n``, ``\\r\\n`` and ``\\r`` only
(:mod:`citeview.core.text`). Parsing is linear in the size of the material. Problems are reported
as diagnostics (CV206, CV501-CV503), never raised: material is untrusted text.
"""

from __future__ import annotations

import operator
import re
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import lru_cache
from itertools import accumulate, repeat
from typing import TYPE_CHECKING, overload

from citeview.core.diagnostics import RULES, Diagnostic, Severity
from citeview.core.markers import (
    SOURCE_ID_RE,
    decode_literal_escapes,
    extract_citations,
    scan,
)
from citeview.core.text import normalize_breaks

if TYPE_CHECKING:
    from citeview.core.cases import Case


class SourceKind(StrEnum):
    LINE = "line"  # tool output with [L#] labelled lines
    BLOCK = "block"  # tool output with a [BlockN] label: cited whole
    CONTEXT = "context"  # a unit of injected context (<tag id="...">)
    DOCUMENT = "document"  # tool output without labels: cited whole
    FILE = "file"  # a file given directly; its physical lines are L1..Ln
    WEB = "web"  # a provider's web result (citeview.core.providers): a URL, maybe excerpts


@dataclass(slots=True, frozen=True)
class SourceLine:
    """A citable line: its label number and its span in ``Source.text`` (no prefix, no break)."""

    label: int
    start: int
    end: int


def _ints(values: list[int]) -> array[int] | list[int]:
    """``values`` as a compact array (no object per number, nothing for the garbage collector
    to walk), or the list itself when a number does not fit 64 bits (a label is any digits)."""
    try:
        return array("q", values)
    except OverflowError:
        return values


class SourceLines(Sequence[SourceLine]):
    """The citable lines of a parsed source, in text order, kept as three columns of numbers
    (label, start, end): a 200,000-line source holds no object per line, a
    :class:`SourceLine` is made when one is read. Equal to any sequence of the same lines.

    ``breaks`` is None, or says where the lines are when they follow one another in the text,
    each after one break: ``breaks[k]`` is where the break before line k is (-1 for the first
    line) and ``breaks[n]`` where the last line ends. The quick reading of a tool output
    (:func:`_simple_tool_output`) gives only that and the labels: the start and end columns
    (``starts[k] == breaks[k] + 1``, ``ends[k] == breaks[k + 1]``) are made when first read,
    and an export, which resolves citations from ``breaks``, never reads them."""

    __slots__ = ("breaks", "ends", "labels", "starts")

    breaks: Sequence[int] | None

    def __init__(self, labels: Iterable[int] = (), starts: Iterable[int] = (),
                 ends: Iterable[int] = ()) -> None:
        self.labels: Sequence[int] = _ints(list(labels))
        self.starts: Sequence[int] = array("q", starts)
        self.ends: Sequence[int] = array("q", ends)
        self.breaks = None
        if not len(self.labels) == len(self.starts) == len(self.ends):
            raise ValueError("SourceLines: labels, starts and ends differ in length")

    @classmethod
    def of(cls, lines: Iterable[SourceLine]) -> SourceLines:
        """The same lines, as columns."""
        rows = list(lines)
        return cls([ln.label for ln in rows], [ln.start for ln in rows], [ln.end for ln in rows])

    if not TYPE_CHECKING:  # (hidden from mypy: it would type any attribute name by it)
        def __getattr__(self, name: str) -> Sequence[int]:
            # Called only for a slot not set: the columns of a SourceLines made from breaks.
            if name == "starts" or name == "ends":
                breaks = self.breaks
                if breaks is not None:
                    self.ends = breaks[1:]
                    self.starts = (tuple(map(_INC, breaks[:-1])) if type(breaks) is tuple
                                   else array("q", map(_INC, breaks[:-1])))
                    return self.starts if name == "starts" else self.ends
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __len__(self) -> int:
        return len(self.labels)

    @overload
    def __getitem__(self, index: int) -> SourceLine: ...

    @overload
    def __getitem__(self, index: slice) -> SourceLines: ...

    def __getitem__(self, index: int | slice) -> SourceLine | SourceLines:
        if isinstance(index, slice):
            return _columns(self.labels[index], self.starts[index], self.ends[index])
        return SourceLine(self.labels[index], self.starts[index], self.ends[index])

    def __iter__(self) -> Iterator[SourceLine]:
        return map(SourceLine, self.labels, self.starts, self.ends)

    def __reversed__(self) -> Iterator[SourceLine]:
        return map(SourceLine, reversed(self.labels), reversed(self.starts),
                   reversed(self.ends))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SourceLines):
            return (len(self) == len(other)
                    and all(map(operator.eq, self.starts, other.starts))
                    and all(map(operator.eq, self.ends, other.ends))
                    and all(map(operator.eq, self.labels, other.labels)))
        if isinstance(other, (list, tuple)):
            return len(self) == len(other) and all(map(operator.eq, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # (like a list: equal to lists, not hashed)

    def __repr__(self) -> str:
        if len(self) <= 8:
            return f"SourceLines({list(self)!r})"
        return f"SourceLines(<{len(self)} lines: {self[0]!r} .. {self[-1]!r}>)"

    def __reduce__(self) -> tuple[object, ...]:
        return (SourceLines, (list(self.labels), self.starts, self.ends))


_INC = (1).__add__


def _columns(labels: Sequence[int], starts: Sequence[int], ends: Sequence[int]) -> SourceLines:
    """A SourceLines of these columns as they are (no copy, no check)."""
    out = _new(SourceLines)
    out.labels, out.starts, out.ends, out.breaks = labels, starts, ends, None
    return out


_new = object.__new__


@dataclass(slots=True)
class Source:
    """One citable source. ``origin`` names the material string it came from and
    ``origin_span`` is its extent there (header to last line)."""

    id: str
    kind: SourceKind
    text: str
    # A parsed source's lines are a SourceLines (made on demand); any sequence will do.
    lines: Sequence[SourceLine] = field(default_factory=list)
    title: str | None = None
    url: str | None = None
    metadata: list[tuple[str, str]] = field(default_factory=list)
    label: str | None = None
    origin: str = ""
    origin_span: tuple[int, int] = (0, 0)
    tag: str | None = None  # the tag name of a context unit
    # A provider's document (citeview.core.providers): the span in ``text`` of each PDF page
    # (page n is pages[n - 1]) and of each content block.
    pages: list[tuple[int, int]] = field(default_factory=list)
    blocks: list[tuple[int, int]] = field(default_factory=list)

    @property
    def updated(self) -> str | None:
        return self.meta("updated")

    def meta(self, key: str) -> str | None:
        """The first metadata value whose key equals ``key`` ignoring case."""
        key = key.casefold()
        for k, v in self.metadata:
            if k.casefold() == key:
                return v
        return None

    @property
    def has_lines(self) -> bool:
        return bool(self.lines)

    def line_text(self, line: SourceLine) -> str:
        return self.text[line.start : line.end]


def about_material(d: Diagnostic) -> bool:
    """Whether ``d`` is about the material (its span is in a material string, not the answer):
    the one test the window, lint and the analysed case use."""
    return isinstance(d, MaterialDiagnostic)


class MaterialDiagnostic(Diagnostic):
    """A diagnostic about material: ``start``/``end`` are offsets in the string named by
    ``origin`` (``tool_outputs[1]``, ``context``, ``documents[...]``), which the message names
    too. A plain subclass, so it works whether or not ``Diagnostic`` is frozen."""

    __slots__ = ("origin",)
    origin: str

    def __init__(self, code: str, severity: Severity, message: str, start: int, end: int,
                 origin: str = "") -> None:
        Diagnostic.__init__(self, code, severity, message, start, end)
        object.__setattr__(self, "origin", origin)

    def __reduce__(self) -> tuple[object, ...]:
        # Pickles (lint --jobs) with the origin, whatever Diagnostic's own pickling does.
        return (MaterialDiagnostic, (self.code, self.severity, self.message, self.start,
                                     self.end, self.origin))

    def __repr__(self) -> str:
        return (f"MaterialDiagnostic({self.code!r}, {self.message!r}, {self.start}, {self.end}, "
                f"origin={self.origin!r})")

    def to_dict(self) -> dict[str, object]:
        d = Diagnostic.to_dict(self)
        d["origin"] = self.origin
        return d


def _diag(code: str, origin: str, message: str, start: int, end: int) -> MaterialDiagnostic:
    return MaterialDiagnostic(code, RULES[code].severity, f"{origin}: {message}", start, end,
                              origin)


@dataclass(slots=True)
class Material:
    """All sources of a case in material order, and what was wrong with the material."""

    sources: list[Source] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Non-blank text that belongs to no source, kept for display: (origin, start, end) in the
    # origin's string (text before the first header, under a header without an id, between
    # context units).
    outside: list[tuple[str, int, int]] = field(default_factory=list)

    def by_id(self) -> dict[str, list[Source]]:
        """Every source under its id; a duplicated id maps to all its definitions, in order."""
        sources = self.sources
        if len(sources) == 1:  # (most cases: one tool output of one source)
            return {sources[0].id: [sources[0]]}
        out: dict[str, list[Source]] = {}
        for s in sources:
            out.setdefault(s.id, []).append(s)
        return out

    def ids(self) -> list[str]:
        """Distinct source ids in material order."""
        sources = self.sources
        if len(sources) == 1:  # (most cases: one tool output of one source)
            return [sources[0].id]
        return list(dict.fromkeys(s.id for s in sources))

    def get(self, source_id: str) -> Source | None:
        """The first source with this id (the one citations resolve to), or None."""
        for s in self.sources:
            if s.id == source_id:
                return s
        return None

    def extend(self, other: Material) -> None:
        self.sources.extend(other.sources)
        self.diagnostics.extend(other.diagnostics)
        self.outside.extend(other.outside)


# --------------------------------------------------------------------------- shared helpers

# Public: what the parser reads as structure at a line start (HEADER_LINE_RE, LABEL_RE,
# BLOCK_RE) is also what citeview.core.prepare escapes in the text it labels.
# A byte-order mark left at the start of the material (a file read as text) is not content.
HEADER_LINE_RE = re.compile(
    r"(?<![^\r\n])\ufeff?[ \t]*citation marker[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE
)
# A line break and a header line after it (find_headers; the header ends on that line).
_AFTER_LF_RE = re.compile(r"\n\ufeff?[ \t]*citation marker[ \t]*:", re.IGNORECASE)
_AFTER_CR_RE = re.compile(r"\r\ufeff?[ \t]*citation marker[ \t]*:", re.IGNORECASE)
_LABEL_LINE_RE = re.compile(r"(?<![^\r\n])\ufeff?[ \t]*\[L\d+\]")
LABEL_RE = re.compile(r"[ \t]*\[L(\d+)\]")
# On text whose breaks are all "\n", so `^` with MULTILINE is exactly a line start.
_PREFIX_RE = re.compile(r"^[ \t]*\[L(\d+)\][ \t]?", re.MULTILINE)
_LABELLED_RE = re.compile(r"^[ \t]*\[L(\d+)\][ \t]?([^\n]*)", re.MULTILINE)
BLOCK_RE = re.compile(r"[ \t]*\[(Block[ \t]*\d+)\][ \t]?", re.IGNORECASE)
_META_RE = re.compile(r"([A-Za-z][A-Za-z0-9 _/().-]{0,60}?)[ \t]*:[ \t]*(.*)")
# 【turn0file0】 and the browsing tool's 【turn0search0†title†url】.
_BRACKET_ID_RE = re.compile(r"【\s*([A-Za-z0-9_-]+)\s*(?:†[^】]*)?】")
_BREAK_RE = re.compile(r"[\r\n]")
_NONBLANK_RE = re.compile(r"[^ \t\r\n]")
_CRLF_RE = re.compile(r"\r\n")


def _is_blank(line: str) -> bool:
    # Only spaces and tabs: str.strip() would also eat U+2028, form feed and the like.
    return not line.strip(" \t")


def _line_end(text: str, pos: int, limit: int) -> int:
    m = _BREAK_RE.search(text, pos, limit)
    return limit if m is None else m.start()


def _after_break(text: str, end: int) -> int:
    if text.startswith("\r\n", end):
        return end + 2
    if end < len(text) and text[end] in "\r\n":
        return end + 1
    return end


def _trim_blank_lines(text: str, s: int, e: int) -> tuple[int, int]:
    """``[s, e)`` without whole blank lines (spaces and tabs only) at either end."""
    m = _NONBLANK_RE.search(text, s, e)
    if m is None:
        return s, s
    p = m.start()
    start = max(text.rfind("\n", s, p), text.rfind("\r", s, p), s - 1) + 1
    last = e  # no copy of the (possibly huge) range: walk back over the trailing blanks
    while text[last - 1] in " \t\r\n":
        last -= 1
    return start, _line_end(text, last, e)


@dataclass(slots=True)
class _Body:
    text: str
    lines: Sequence[SourceLine]
    start: int  # the body's extent in the material (after trimming blank lines)
    end: int
    repeats: list[tuple[int, int, int]]  # (label, start, end) in the material of repeated labels


def _read_body(material: str, start: int, end: int, labelled: bool = True) -> _Body:
    """Display text of ``material[start:end]``: blank lines at both ends dropped, line breaks
    made ``\\n``, ``[L#]`` prefixes removed (their lines become citable when ``labelled``)."""
    s, e = _trim_blank_lines(material, start, end)
    raw = material[s:e]
    norm = normalize_breaks(raw)
    lines: Sequence[SourceLine] = []
    repeats_norm: list[tuple[int, int, int]] = []
    text = norm
    if labelled and "[" in norm:
        stripped, found = _strip_labels(norm)
        if found:
            text, lines = stripped, found
            if len(set(found.labels)) != len(found):
                repeats_norm = _repeated(norm, found)
            # Kept as arrays: no object per number for the garbage collector to walk.
            found.labels = _ints(list(found.labels))
            found.starts, found.ends = array("q", found.starts), array("q", found.ends)
    repeats: list[tuple[int, int, int]] = []
    if repeats_norm:
        # Normalised offset -> material offset: each collapsed "\r\n" before it adds one.
        collapsed = [m.start() - k for k, m in enumerate(_CRLF_RE.finditer(raw))]
        for label, a, b in repeats_norm:
            repeats.append((label, s + a + bisect_right(collapsed, a - 1),
                            s + b + bisect_right(collapsed, b - 1)))
    return _Body(text, lines, s, e, repeats)


# Labelled text is read in pieces of about this many characters, cut after line breaks: each
# regex call holds the GIL for milliseconds, not for the whole material (the window's worker
# parses material while the GUI thread paints).
_PIECE = 1 << 20
_NL_PREFIX_RE = re.compile(r"(\n)([ \t]*\[L(\d+)\][ \t]?)")


def _strip_labels(norm: str) -> tuple[str, SourceLines]:
    """``norm`` (breaks all ``\\n``) without the ``[L#]`` prefixes at its line starts, and its
    labelled lines, with C-speed passes only (a regex split per piece, ``map`` and
    ``accumulate`` into arrays): 200,000 lines must not cost a Python loop, nor an object,
    each."""
    out: list[str] = []
    labels: list[int] = []
    starts: list[int] = []  # (lists made arrays at the end: extending an array is slower)
    ends: list[int] = []
    pos = 0
    out_len = 0
    n = len(norm)
    while pos < n:
        cut = norm.find("\n", pos + _PIECE) if n - pos > _PIECE else -1
        cut = n if cut < 0 else cut + 1
        # "\n" + piece: a prefix is "\n" and the label (a pattern starting with a literal is
        # searched at C speed); the piece's first line gets a "\n" of its own, dropped below.
        parts = _NL_PREFIX_RE.split("\n" + norm[pos:cut])
        # [text before the first prefix, then per prefix: "\n", prefix, label, text after it]
        texts = parts[0::4]
        rests = texts[1:]
        piece = "\n".join(texts)  # the piece without its prefixes, after its extra "\n"
        # Where each labelled line's text starts in the text made: after the texts and breaks
        # before it.
        cum = list(accumulate(map((1).__add__, map(len, texts)), initial=0))
        rest_starts = list(map((out_len - 1).__add__, cum[1:-1]))
        # Breaks inside the rests (each rest runs to the next prefix): none, or only the
        # piece's last break, when every rest is one line.
        inner = piece.count("\n") - len(rests) - texts[0].count("\n")
        if inner == 0 or (inner == 1 and rests and rests[-1].endswith("\n")):
            line_lens = list(map(len, rests))
            if inner:
                line_lens[-1] -= 1
        else:
            line_lens = [len(r) if ll < 0 else ll for ll, r in
                         zip(map(str.find, rests, repeat("\n")), rests, strict=True)]
        starts.extend(rest_starts)
        ends.extend(map(operator.add, rest_starts, line_lens))
        labels.extend(map(int, parts[3::4]))
        out.append(piece[1:])
        out_len += len(piece) - 1
        pos = cut
    return "".join(out), _columns(labels, starts, ends)


def _repeated(norm: str, found: SourceLines) -> list[tuple[int, int, int]]:
    """(label, start, end) in ``norm`` of each labelled line whose label came before: the
    prefix and the line (rare: a Python loop over the labels is fine here)."""
    seen: set[int] = set()
    again: set[int] = set()
    for k, label in enumerate(found.labels):
        if label in seen:
            again.add(k)
        else:
            seen.add(label)
    out: list[tuple[int, int, int]] = []
    # The same matches as the pieces' splits: a prefix lies within one line, pieces are cut
    # after breaks.
    for k, m in enumerate(_NL_PREFIX_RE.finditer("\n" + norm)):
        if k in again:
            a = m.start(2) - 1
            out.append((found.labels[k], a,
                        a + len(m.group(2)) + found.ends[k] - found.starts[k]))
    return out


# --------------------------------------------------------------------------- tool output


def _header_id(
    rest: str, origin: str, start: int, end: int, diags: list[Diagnostic]
) -> str | None:
    """The source id a header names, or None. ``rest`` is the text after ``Citation Marker:``."""
    found = extract_citations(rest)
    if not found and "\\" in rest:
        found = extract_citations(decode_literal_escapes(rest))
        if found:
            diags.append(_diag("CV503", origin, "header marker written as ASCII escapes "
                               "(\\ue200...); read as the marker it spells", start, end))
    if found:
        c = found[0]
        note = ""
        if len(found) > 1 or len(c.source_ids) > 1:
            note = "header names more than one source id; the first is used"
        elif c.locator is not None:
            note = f"header marker has a locator ({c.locator}); it is ignored"
        if note:
            diags.append(_diag("CV502", origin, note, start, end))
        return c.source_ids[0]
    m = _BRACKET_ID_RE.search(rest)
    if m:
        return m.group(1)
    # Before the bare-id reading: "citeturn0file0" is a marker that lost its characters.
    recovered = [c for c in scan(rest).citations if c.source_ids]
    if recovered:
        c = recovered[0]
        how = c.recovered.value if c.recovered else "malformed"
        diags.append(_diag("CV502", origin, f"header marker is {how}; read as id "
                           f"{c.source_ids[0]!r}", start, end))
        return c.source_ids[0]
    stripped = rest.strip(" \t")
    if stripped and SOURCE_ID_RE.fullmatch(stripped):
        diags.append(_diag("CV502", origin, f"header gives the bare id {stripped!r}, not a "
                           "citation marker", start, end))
        return stripped
    diags.append(_diag("CV502", origin, "header names no source id; the text under it is not "
                       "citable", start, end))
    return None


def find_headers(text: str) -> list[re.Match[str]]:
    """The ``Citation Marker:`` header lines of ``text`` (``HEADER_LINE_RE`` matches, in order).

    ``HEADER_LINE_RE``'s look-behind makes one pass slow (a quarter second for 15 MB, holding
    the GIL; a fifth of a small tool output's parse): the text is searched for a ``\\n`` or
    ``\\r`` followed by a header (a pattern starting with a literal is searched at C speed), and
    each header found is matched again where it starts."""
    starts = {0}
    for rx in (_AFTER_LF_RE, _AFTER_CR_RE):
        if rx is _AFTER_CR_RE and "\r" not in text:
            continue
        starts.update(c.start() + 1 for c in rx.finditer(text))
    found: list[re.Match[str]] = []
    for start in sorted(starts):
        m = HEADER_LINE_RE.match(text, start)
        if m is not None and (not found or m.start() >= found[-1].end()):
            found.append(m)
    return found


# The usual tool output (see _simple_tool_output), split at its labelled lines' prefixes (the
# break before each included): [head, then per line its label and the rest of the line].
_SIMPLE_SPLIT_RE = re.compile(r"\n[ \t]*\[L(\d+)\][ \t]?")  # (_NL_PREFIX_RE, fewer groups)
# The head: a header whose marker names one id that is not a locator (the reference drops a
# lone locator), metadata lines none of which is another header (the look-ahead: a header
# needs a line start, and the split leaves none after the head), and perhaps a blank line.
# The first two metadata lines are read here too, key and value as _META_LINES_RE reads them
# (each line in an atomic group: its first reading, the same, and no backtracking into it),
# the others ("more") by _META_LINES_RE.
_NOT_HEADER = r"(?!(?i:citation marker)[ \t]*:)"
_META_PAIR = r"(?>([A-Za-z][A-Za-z0-9 _/().-]{0,60}?)[ \t]*:[ \t]*((?:[^\n]*[^ \t\n])?)[ \t]*)"
_SIMPLE_HEAD_RE = re.compile(
    r"(?i:citation marker)[ \t]*:[ \t]*\ue200cite\ue202(?!L\d+(?:-L\d+)?\ue201)"
    r"([A-Za-z0-9_-]+)\ue201"
    rf"(?:\n{_NOT_HEADER}{_META_PAIR}(?:\n{_NOT_HEADER}{_META_PAIR}"
    rf"((?:\n{_NOT_HEADER}(?>[A-Za-z][A-Za-z0-9 _/().-]{{0,60}}?[ \t]*:[^\n]*))*))?)?"
    r"(?:\n[ \t]*)?"
)
# The usual head exactly (the guide's header, "Title: " and "URL: " lines whose values start and
# end with a non-blank character): half the time of the head above, which reads it the same.
_USUAL_HEAD_RE = re.compile(
    r"Citation Marker: \ue200cite\ue202(?!L\d+(?:-L\d+)?\ue201)([A-Za-z0-9_-]+)\ue201"
    r"\nTitle: ([^ \t\n](?:[^\n]*[^ \t\n])?)\nURL: ([^ \t\n](?:[^\n]*[^ \t\n])?)(?:\n[ \t]*)?"
)
# _META_RE over the metadata lines at once; the value without the blanks that end it (as
# rstrip(" \t") leaves it; no lazy `.*?` before them: quadratic on a long run of blanks).
_META_LINES_RE = re.compile(
    r"^([A-Za-z][A-Za-z0-9 _/().-]{0,60}?)[ \t]*:[ \t]*((?:.*[^ \t\n])?)[ \t]*$", re.MULTILINE)


# The labels of most tool outputs, L1 to Ln in order: compared as the strings split out, and
# copied as the array a source keeps, with no int() per label nor check for repeats. A source
# of at most _SMALL lines, as most are, shares the tuple (1, ..., n) (immutable) instead, and
# gives its lines' places as breaks (see SourceLines).
_ONE_TO_DIGITS = [str(n) for n in range(1, 1001)]
_ONE_TO_ARRAY = array("q", range(1, 1001))
_SMALL = 128
_ONE_TO_TUPLES = tuple(tuple(range(1, n + 1)) for n in range(_SMALL + 1))


def one_to(n: int) -> tuple[int, ...]:
    """The labels 1..n as a tuple: for n <= 128 the one a source read by the quick reading
    shares (resolution compares a source's labels with it: equal item by item, each item the
    same object, so the comparison is quick)."""
    return _ONE_TO_TUPLES[n] if 0 <= n <= _SMALL else tuple(range(1, n + 1))


if (tuple(f.name for f in fields(Source)) != (
        "id", "kind", "text", "lines", "title", "url", "metadata", "label", "origin",
        "origin_span", "tag", "pages", "blocks")
        or tuple(f.name for f in fields(Material)) != ("sources", "diagnostics", "outside")
        ):  # pragma: no cover
    raise AssertionError("Source's or Material's fields changed: update _simple_tool_output")


def _simple_tool_output(text: str, origin: str) -> Material | None:
    """:func:`parse_tool_output` of the usual tool output in a few C-speed calls, or None when
    ``text`` is not of that shape (then the general reading applies).

    The shape: no ``\\r``; a ``Citation Marker:`` header at the start whose marker is the one
    conformant ``cite`` marker of an id that is not a locator; metadata lines (``_META_RE``),
    none a header; at most one blank line; then only lines that start with an ``[L#]`` label,
    numbers distinct, and at most one line break after the last. Of such a text the general
    reading makes one line-level source, no diagnostic and nothing outside sources: what is
    built here (its objects filled slot by slot: no keyword arguments, defaults nor
    factories)."""
    if "\r" in text or len(text) > _PIECE:
        return None
    parts = _SIMPLE_SPLIT_RE.split(text)
    if len(parts) == 1:
        return None
    usual = _USUAL_HEAD_RE.fullmatch(parts[0])
    m = _SIMPLE_HEAD_RE.fullmatch(parts[0]) if usual is None else usual
    if m is None:
        return None
    rests = parts[2::2]
    end = len(text)
    if text[-1] == "\n":
        rests[-1] = rests[-1][:-1]
        end -= 1
    body = "\n".join(rests)
    n = len(rests)
    if body.count("\n") != n - 1:
        return None  # a line that is not labelled
    numbers = parts[1::2]
    lines = _new(SourceLines)
    if n <= _SMALL and numbers == _ONE_TO_DIGITS[:n]:  # (the usual: L1, L2, ... in order)
        # Where each line's break is, then where the last line ends: each line starts after
        # the lines before it and their breaks. The columns are made from these if read.
        lines.labels = _ONE_TO_TUPLES[n]
        lines.breaks = tuple(accumulate(map(_INC, map(len, rests)), initial=-1))
    else:
        if numbers == _ONE_TO_DIGITS[:n]:
            labels: array[int] | list[int] = _ONE_TO_ARRAY[:n]
        else:
            labels = _ints(list(map(int, numbers)))
            if len(set(labels)) != n:
                return None  # repeated labels: CV501
        # (Columns made straight from the sums: no list of them made first.)
        steps = list(map(_INC, map(len, rests)))
        starts = array("q", accumulate(steps, initial=0))
        starts.pop()
        ends = array("q", accumulate(steps, initial=-1))
        del ends[0]
        lines.labels, lines.starts, lines.ends, lines.breaks = labels, starts, ends, None
    if usual is not None:
        sid, title, url = usual.groups()
        meta: list[tuple[str, str]] = [("Title", title), ("URL", url)]
    else:
        sid, key1, value1, key2, value2, more = m.groups()
        if key1 is None:
            meta = []
        elif key2 is None:
            meta = [(key1, value1)]
        else:
            meta = [(key1, value1), (key2, value2)]
            if more:
                meta += _META_LINES_RE.findall(more)
        title = url = None
        for key, value in meta:  # (Source.meta("title") and Source.meta("url") in one loop)
            key = key.casefold()
            if key == "title":
                title = value if title is None else title
            elif key == "url":
                url = value if url is None else url
    src = _new(Source)  # Source(sid, SourceKind.LINE, body, lines, title, url, meta,
    src.id = sid        #        origin=origin, origin_span=(0, end))
    src.kind = SourceKind.LINE
    src.text = body
    src.lines = lines
    src.title = title
    src.url = url
    src.metadata = meta
    src.label = None
    src.origin = origin
    src.origin_span = (0, end)
    src.tag = None
    src.pages = []
    src.blocks = []
    material = _new(Material)  # Material([src], [], [])
    material.sources = [src]
    material.diagnostics = []
    material.outside = []
    return material


def parse_tool_output(text: str, origin: str = "tool_outputs[0]") -> Material:
    """The sources of one tool output (one tool invocation), in order.

    Each ``Citation Marker:`` line opens a source that runs to the next one. Linear: headers are
    found in one regex pass, and each source's labelled lines in another.
    """
    simple = _simple_tool_output(text, origin)
    if simple is not None:
        return simple
    return _parse_tool_output(text, origin)


def _parse_tool_output(text: str, origin: str) -> Material:
    """:func:`parse_tool_output`'s general reading, for any text."""
    sources: list[Source] = []
    diags: list[Diagnostic] = []
    outside: list[tuple[str, int, int]] = []
    headers = find_headers(text)
    first = headers[0].start() if headers else len(text)
    if _NONBLANK_RE.search(text, 0, first):
        outside.append((origin, *_trim_blank_lines(text, 0, first)))
        orphan = _LABEL_LINE_RE.search(text, 0, first)
        if orphan is not None:
            diags.append(_diag("CV502", origin, "labelled lines before any Citation Marker "
                               "header are not citable", orphan.start(),
                               _line_end(text, orphan.start(), first)))
    n = len(text)
    for k, h in enumerate(headers):
        region_end = headers[k + 1].start() if k + 1 < len(headers) else n
        sid = _header_id(h.group(1), origin, h.start(), h.end(), diags)
        pos = _after_break(text, h.end())
        if sid is None:
            if _NONBLANK_RE.search(text, pos, region_end):
                outside.append((origin, *_trim_blank_lines(text, pos, region_end)))
            continue
        meta: list[tuple[str, str]] = []
        last = h.end()
        while pos < region_end:
            le = _line_end(text, pos, region_end)
            line = text[pos:le]
            if _is_blank(line):
                pos = _after_break(text, le)
                break
            mm = None if line.lstrip(" \t").startswith("[") else _META_RE.fullmatch(line)
            if mm is None:
                break
            meta.append((mm.group(1), mm.group(2).rstrip(" \t")))
            last = le
            pos = _after_break(text, le)
        block_label: str | None = None
        first_line = _NONBLANK_RE.search(text, pos, region_end)
        if first_line is not None:
            ls = max(text.rfind("\n", pos, first_line.start()),
                     text.rfind("\r", pos, first_line.start()), pos - 1) + 1
            bm = BLOCK_RE.match(text, ls, region_end)
            if bm is not None and LABEL_RE.match(text, ls, region_end) is None:
                block_label = re.sub(r"[ \t]+", "", bm.group(1))
                last = max(last, bm.end())
                pos = bm.end()
                rest_end = _line_end(text, pos, region_end)
                if _is_blank(text[pos:rest_end]):
                    pos = _after_break(text, rest_end)
        body = _read_body(text, pos, region_end)
        for label, a, b in body.repeats:
            diags.append(_diag("CV501", origin, f"line label L{label} repeats in source {sid!r}",
                               a, b))
        if body.lines:
            kind = SourceKind.LINE
        elif block_label is not None:
            kind = SourceKind.BLOCK
        else:
            kind = SourceKind.DOCUMENT
        end = body.end if body.end > body.start else last
        src = Source(id=sid, kind=kind, text=body.text, lines=body.lines, metadata=meta,
                     label=block_label, origin=origin, origin_span=(h.start(), end))
        src.title = src.meta("title")
        src.url = src.meta("url")
        sources.append(src)
    _report_duplicates(sources, diags)
    diags.sort(key=lambda d: (d.start, d.end))
    return Material(sources, diags, outside)


def _report_duplicates(sources: list[Source], diags: list[Diagnostic],
                       first_seen: dict[str, Source] | None = None) -> None:
    seen: dict[str, Source] = {} if first_seen is None else first_seen
    for s in sources:
        first = seen.get(s.id)
        if first is None:
            seen[s.id] = s
            continue
        where = "" if first.origin == s.origin else f" (first in {first.origin})"
        diags.append(_diag("CV206", s.origin, f"source id {s.id!r} is defined again{where}; "
                           "citations resolve to the first definition", *s.origin_span))


# --------------------------------------------------------------------------- injected context

# A tag: <name attrs>, </name>, <name attrs/>. `[^<>]*` stops at the next `<`, so a tag without
# its `>` costs no more than the text up to the next tag: linear overall.
_TAG_RE = re.compile(r"<(/?)([A-Za-z][\w:.-]*)([^<>]*)(>)?")
_ATTR_RE = re.compile(
    r"""\s*([A-Za-z_:][\w:.-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?"""
)
_ID_ATTR_RE = re.compile(r"(?:^|\s)id\s*=", re.IGNORECASE)


@lru_cache(maxsize=256)
def _same_name_re(name: str) -> re.Pattern[str]:
    """Tags of one name only: inside a unit, other markup is skipped at regex speed."""
    return re.compile(rf"<(/?){re.escape(name)}(?=[\s/>])([^<>]*)(>)?")


def _parse_attrs(raw: str) -> tuple[list[tuple[str, str]], bool]:
    """Attributes in order, and whether the whole attribute text was understood."""
    attrs: list[tuple[str, str]] = []
    pos = 0
    body = raw.rstrip()
    if body.endswith("/"):
        body = body[:-1]
    n = len(body)
    while pos < n:
        m = _ATTR_RE.match(body, pos)
        if m is None or m.end() == pos:
            return attrs, body[pos:].strip() == ""
        value = next((g for g in m.groups()[1:] if g is not None), "")
        attrs.append((m.group(1), value))
        pos = m.end()
    return attrs, True


def _unit_source(text: str, origin: str, name: str, attrs: list[tuple[str, str]], sid: str,
                 tag_start: int, content: tuple[int, int], tag_end: int,
                 diags: list[Diagnostic]) -> Source:
    s, e = content
    # Spaces and tabs between a tag and text on its own line are layout.
    while s < e and text[s] in " \t":
        s += 1
    while e > s and text[e - 1] in " \t":
        e -= 1
    body = _read_body(text, s, e)
    for label, a, b in body.repeats:
        diags.append(_diag("CV501", origin, f"line label L{label} repeats in unit {sid!r}", a, b))
    meta = [(k, v) for k, v in attrs if k.casefold() != "id"]
    src = Source(id=sid, kind=SourceKind.CONTEXT, text=body.text, lines=body.lines,
                 metadata=meta, label=sid, origin=origin, origin_span=(tag_start, tag_end),
                 tag=name)
    src.title = src.meta("title")
    src.url = src.meta("url") or src.meta("href")
    return src


def parse_context(text: str, origin: str = "context") -> Material:
    """Units of injected context: ``<anytag id="x" other="attr">...</anytag>``.

    Other attributes become metadata (``title`` is the title). Text outside units is not
    citable. A unit's lines written as ``[L#] text`` are citable lines; otherwise the unit is
    cited whole. If the context holds no unit but has ``Citation Marker:`` headers, it is read as
    a tool output. Malformed tags give CV502 diagnostics, never exceptions.
    """
    sources: list[Source] = []
    diags: list[Diagnostic] = []
    outside: list[tuple[str, int, int]] = []
    unit_names: set[str] = set()
    stray_closes: list[tuple[str, int, int]] = []
    n = len(text)
    pos = 0
    gap_start = 0  # start of the text since the last unit

    def note_gap(end: int) -> None:
        if _NONBLANK_RE.search(text, gap_start, end):
            outside.append((origin, *_trim_blank_lines(text, gap_start, end)))

    while pos < n:
        m = _TAG_RE.search(text, pos)
        if m is None:
            break
        pos = m.end()
        is_close, name, raw_attrs, gt = m.group(1) == "/", m.group(2), m.group(3), m.group(4)
        if is_close:
            if gt is not None:
                stray_closes.append((name, m.start(), m.end()))
            continue
        if not _ID_ATTR_RE.search(raw_attrs):
            continue
        if gt is None:
            diags.append(_diag("CV502", origin, f"tag <{name}> has no closing '>'; its unit is "
                               "not read", m.start(), m.end()))
            continue
        attrs, ok = _parse_attrs(raw_attrs)
        ids = [v for k, v in attrs if k.casefold() == "id"]
        if not ok:
            diags.append(_diag("CV502", origin, f"tag <{name}> has attributes that could not be "
                               "read", m.start(), m.end()))
        if not ids or not ids[0].strip():
            diags.append(_diag("CV502", origin, f"tag <{name}> has an empty id; not a unit",
                               m.start(), m.end()))
            continue
        sid = ids[0]
        unit_names.add(name)
        note_gap(m.start())
        if raw_attrs.rstrip().endswith("/"):
            sources.append(_unit_source(text, origin, name, attrs, sid, m.start(),
                                        (m.end(), m.end()), m.end(), diags))
            gap_start = m.end()
            continue
        # Inside the unit: only tags of the same name matter (nesting depth, close, next unit).
        same = _same_name_re(name)
        depth = 1
        content_start = m.end()
        end_tag: tuple[int, int] | None = None
        while True:
            t = same.search(text, pos)
            if t is None:
                break
            if t.group(1) == "/":
                pos = t.end()
                if t.group(3) is None:
                    continue
                depth -= 1
                if depth == 0:
                    end_tag = (t.start(), t.end())
                    break
                continue
            if _ID_ATTR_RE.search(t.group(2)):
                diags.append(_diag("CV502", origin, f"unit {sid!r} is not closed before the "
                                   f"next <{name}> opens", m.start(), t.start()))
                end_tag = (t.start(), t.start())
                pos = t.start()  # the outer loop reads this tag as the next unit
                break
            pos = t.end()
            if t.group(3) is not None and not t.group(2).rstrip().endswith("/"):
                depth += 1
        if end_tag is None:
            diags.append(_diag("CV502", origin, f"unit {sid!r} (<{name}>) has no closing "
                               f"</{name}>; it runs to the end", m.start(), m.end()))
            end_tag = (n, n)
            pos = n
        sources.append(_unit_source(text, origin, name, attrs, sid, m.start(),
                                    (content_start, end_tag[0]), end_tag[1], diags))
        gap_start = end_tag[1]
    note_gap(n)
    for name, s, e in stray_closes:
        if name in unit_names:
            diags.append(_diag("CV502", origin, f"closing </{name}> without an opening tag",
                               s, e))
    if not sources and HEADER_LINE_RE.search(text) is not None:
        return parse_tool_output(text, origin)
    _report_duplicates(sources, diags)
    diags.sort(key=lambda d: (d.start, d.end))
    return Material(sources, diags, outside)


# --------------------------------------------------------------------------- files


def file_source(source_id: str, text: str, origin: str = "documents") -> Source:
    """A file given directly as a source: its physical lines are L1..Ln (a final line break
    does not start another line). A Markdown file whose first line is a ``# heading`` takes it
    as title."""
    norm = normalize_breaks(text)
    pieces = norm.split("\n") if norm else []  # breaks are only "\n" now: not splitlines()
    if pieces and pieces[-1] == "":
        pieces.pop()
    # C-speed passes into columns: no Python loop, nor object, per line.
    lens = list(map(len, pieces))
    starts = list(accumulate(map((1).__add__, lens), initial=0))[:-1]
    lines = _columns(array("q", range(1, len(pieces) + 1)), array("q", starts),
                     array("q", map(operator.add, starts, lens)))
    src = Source(id=source_id, kind=SourceKind.FILE, text="\n".join(pieces), lines=lines,
                 origin=origin, origin_span=(0, len(text)))
    if pieces and pieces[0].startswith("# "):
        src.title = pieces[0][2:].strip() or None
    return src


# --------------------------------------------------------------------------- cases


def iter_case_material(case: Case) -> Iterator[Material]:
    for i, out in enumerate(case.tool_outputs):
        yield parse_tool_output(out, f"tool_outputs[{i}]")
    if case.context is not None:
        yield parse_context(case.context, "context")
    for sid, text in case.documents.items():
        yield Material([file_source(sid, text, f"documents[{sid}]")], [])


def case_material(case: Case) -> Material:
    """All sources of a case: tool outputs in order, then context, then documents. Ids defined
    in two places are reported (CV206); citations resolve to the first definition."""
    if len(case.tool_outputs) == 1 and case.context is None and not case.documents:
        # (What the merge below makes of one part.)
        text = case.tool_outputs[0]
        simple = _simple_tool_output(text, "tool_outputs[0]")
        return simple if simple is not None else _parse_tool_output(text, "tool_outputs[0]")
    parts = list(iter_case_material(case))
    if len(parts) == 1:
        return parts[0]  # (what the merge below makes of one part)
    total = Material()
    seen: dict[str, Source] = {}
    for part in parts:
        total.diagnostics.extend(part.diagnostics)
        total.outside.extend(part.outside)
        # Repeats inside one part are already reported; report each id's first definition in
        # this part when an earlier part defined it.
        firsts: dict[str, Source] = {}
        for s in part.sources:
            firsts.setdefault(s.id, s)
        for sid, s in firsts.items():
            if sid in seen:
                _report_duplicates([s], total.diagnostics, {sid: seen[sid]})
            else:
                seen[sid] = s
        total.sources.extend(part.sources)
    return total


def material_from(sources: Iterable[Source]) -> Material:
    """A material of ready-made sources, with duplicated ids reported."""
    srcs = list(sources)
    diags: list[Diagnostic] = []
    _report_duplicates(srcs, diags)
    return Material(srcs, diags)

