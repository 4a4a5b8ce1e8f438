"""Prepare documents as citable material: the producing side, inverse of :mod:`material`.

:func:`prepare_material` turns documents into the text a model should see, in one of the
guide's four citable units, and returns the :class:`~citeview.core.material.Source` objects
that text defines (exactly what the material parser reads back from it):

- ``line``: one ``Citation Marker`` header per document (id ``turnNfileK``, K the document's
  position), ``Title``, extra metadata, a blank line, then ``[L#] text`` lines. Every physical
  line is labelled with its own number, empty ones included (a bare ``[L2]``), so ``L42`` is
  line 42 of the file and the labels run without gaps. ``split="sentences"`` labels sentences
  instead, numbered from 1 (the empty lines between paragraphs unlabelled): the lines
  of a paragraph are joined with single spaces and cut after ``.``, ``!``, ``?`` or ``…``
  followed by a space and an upper-case letter, digit, quote or bracket; a Markdown heading,
  list item, quote, table row or fence line starts a new run and a heading stands alone.
- ``block``: paragraphs (runs of non-empty lines, at most ``block_lines`` lines when given)
  become blocks, each its own source with its own marker (``turnNfileM``, M counting blocks
  across all documents), its document's ``Title`` and metadata, and a ``[BlockM+1]`` label.
  In Markdown documents a paragraph of headings only joins the paragraph after it.
- ``context``: the same blocks as ``<block id="blockM+1" title="...">`` units of injected
  context (plain ids without a turn, as in the guide's injected-context example).
- ``document``: one marker per document, its metadata, a blank line, then its text unlabelled;
  the source is cited whole.

The output depends only on the input: the same documents give the same bytes, and a source
keeps its id across runs. Line breaks (``\\n``, ``\\r\\n``, ``\\r``) come out as ``\\n``.

What ``prepare`` changes so that no document can break the material's structure; every change
is reported as a :class:`PrepareWarning` for its document:

- The marker characters U+E200, U+E201 and U+E202 become U+FFFD everywhere (text, titles,
  metadata): a model would take them for citations, and a reader could not tell them from the
  real markers.
- Where text lines carry no label of their own (``block``, ``document`` and ``context``
  units), a line the material parser would read as a line label (``[L5] ...``) gets a leading
  backslash; so does a ``Citation Marker:`` line (``block`` and ``document``), and in
  ``document`` units a first line that would read as a ``[Block2]`` label. In ``line`` units
  every line starts with its own label, so such lines are kept as they are.
- In ``context`` units, ``<`` is written ``&lt;`` where it would open or close a tag (``<b``,
  ``</block``), and ``&`` is written ``&amp;`` where it starts something that reads as an
  entity (``&lt;``, ``&#60;``), so a document cannot open or close a unit and decoding the
  entities gives the original text back. Attribute values also escape ``<``, ``>`` and a
  ``"`` when they hold both quote kinds.

Whitespace-only lines count as empty (shown empty, never inside a block; in ``line`` units
labelled like every other line) and empty lines at the start and end of a document are dropped
(the labels still count them); these are not warned about.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from citeview.core import material
from citeview.core.errors import InputError
from citeview.core.markers import DELIMITER, MARKER_CHARS, START, STOP
from citeview.core.material import Source, SourceKind, SourceLine
from citeview.core.text import normalize_breaks

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".mkdn")
REPLACEMENT = "\ufffd"
CONTEXT_TAG = "block"
_MARKER_TRANS = str.maketrans({c: REPLACEMENT for c in MARKER_CHARS})

# What the material parser reads as structure at the start of a line: its own patterns, so
# the two cannot drift apart.
_HEADER_LINE_RE = material.HEADER_LINE_RE
_LABEL_LINE_RE = material.LABEL_RE
_BLOCK_LINE_RE = material.BLOCK_RE
# What the context parser reads as a tag, and what an XML reader reads as an entity.
_TAG_START_RE = re.compile(r"<(?=/?[A-Za-z])")
_ENTITY_RE = re.compile(r"&(?=#[0-9]+;|#[xX][0-9A-Fa-f]+;|[A-Za-z][A-Za-z0-9]*;)")

_ATX_RE = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_RE = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_FENCE_RE = re.compile(r" {0,3}(`{3,}|~{3,})")
_BLOCK_START_RE = re.compile(
    r" {0,3}(?:#{1,6}(?:[ \t]|$)|[-*+][ \t]|\d{1,9}[.)][ \t]|>|\||`{3}|~{3})"
)
_SENTENCE_END_RE = re.compile(
    r"[.!?\u2026]+[\"'\u2019\u201d)\]]*[ \t]+(?=[A-Z0-9\"'\u2018\u201c(\[])"
)
# Metadata keys the material parser reads back (material._META_RE allows at most 61 chars).
_META_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*(?: [A-Za-z0-9_.-]+)*")
_ATTR_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
_MAX_KEY = 61


class Unit(StrEnum):
    """The citable unit (the guide's "Choose citable units")."""

    LINE = "line"
    BLOCK = "block"
    CONTEXT = "context"
    DOCUMENT = "document"


class Split(StrEnum):
    """What a line label marks in ``line`` units."""

    LINES = "lines"
    SENTENCES = "sentences"


@dataclass(slots=True, frozen=True)
class Document:
    """A document to prepare. ``title`` defaults to the first Markdown heading (Markdown
    documents only) and then to the file name; ``markdown`` defaults to the name's suffix."""

    name: str
    text: str
    title: str | None = None
    markdown: bool | None = None

    @property
    def is_markdown(self) -> bool:
        if self.markdown is not None:
            return self.markdown
        return self.name.lower().endswith(MARKDOWN_SUFFIXES)


@dataclass(slots=True, frozen=True)
class PrepareWarning:
    """Something ``prepare`` had to change in one document (or that leaves nothing to cite)."""

    document: int
    name: str
    message: str

    def __str__(self) -> str:
        return f"{self.name}: {self.message}"


class Prepared:
    """The material text exactly as the model should see it, the sources it defines (with
    ``documents[i]`` the index of the document source ``i`` comes from), and the warnings.

    ``sources`` are built on first use: writing material for a million lines does not pay for
    a million :class:`SourceLine` objects nobody reads.
    """

    __slots__ = ("text", "documents", "warnings", "origin", "_specs", "_sources")

    def __init__(self, text: str, specs: list[_Spec], warnings: list[PrepareWarning],
                 origin: str) -> None:
        self.text = text
        self.documents = [sp.doc for sp in specs]
        self.warnings = warnings
        self.origin = origin
        self._specs: list[_Spec] | None = specs
        self._sources: list[Source] | None = None

    @property
    def sources(self) -> list[Source]:
        if self._sources is None:
            self._sources = [sp.build(self.origin) for sp in self._specs or ()]
            self._specs = None
        return self._sources


# ----------------------------------------------------------------------------- helpers


def marker(source_id: str, locator: str | None = None) -> str:
    """The citation marker for ``source_id`` (with an optional line locator)."""
    loc = f"{DELIMITER}{locator}" if locator else ""
    return f"{START}cite{DELIMITER}{source_id}{loc}{STOP}"


def _one_line(text: str) -> str:
    """A title or value on one line: control characters and line breaks become spaces."""
    return _CONTROL_RE.sub(" ", text).strip()


def markdown_title(lines: Sequence[str]) -> str | None:
    """The text of the first ATX or setext heading outside fenced code, or None."""
    fence: str | None = None
    prev: str | None = None  # previous line if it could be a setext heading's text
    for line in lines:
        m = _FENCE_RE.match(line)
        if fence is not None:
            if (m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
                    and not line[m.end():].strip()):
                fence = None
            prev = None
            continue
        if m:
            fence = m.group(1)
            prev = None
            continue
        a = _ATX_RE.match(line)
        if a:
            title = (a.group(2) or "").strip()
            if title:
                return title
            prev = None
            continue
        if prev is not None and _SETEXT_RE.match(line):
            return prev.strip()
        prev = line if line.strip() and not line.startswith(("    ", "\t")) else None
    return None


def _check_meta(meta: Iterable[tuple[str, str]], unit: Unit) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for key, value in meta:
        if not _META_KEY_RE.fullmatch(key) or len(key) > _MAX_KEY:
            raise InputError(f"metadata key {key!r}: use at most {_MAX_KEY} letters, digits, "
                             "'_', '.', '-' and single spaces, starting with a letter")
        if key.casefold() == "citation marker":
            raise InputError(f"metadata key {key!r} is reserved for the marker line")
        if unit is Unit.CONTEXT and (not _ATTR_NAME_RE.fullmatch(key)
                                     or key.casefold() == "id"):
            raise InputError(f"metadata key {key!r} cannot be an attribute of a context unit")
        if key.casefold() in seen:
            raise InputError(f"metadata key {key!r} given twice")
        seen.add(key.casefold())
        v = _one_line(value.translate(_MARKER_TRANS))
        if not v:
            raise InputError(f"metadata key {key!r} has an empty value")
        out.append((key, v))
    return out


def split_sentences(lines: Sequence[str]) -> list[list[str]]:
    """Paragraphs (split at empty lines) of sentences; see the module docstring."""
    paras: list[list[str]] = []
    cur: list[str] = []  # sentences of the current paragraph
    run: list[str] = []  # physical lines joined into the current run

    def flush_run() -> None:
        if run:
            joined = " ".join(part.strip() for part in run)
            run.clear()
            pos = 0
            for m in _SENTENCE_END_RE.finditer(joined):
                cur.append(joined[pos:m.end()].rstrip())
                pos = m.end()
            if pos < len(joined):
                cur.append(joined[pos:].rstrip())

    for line in lines:
        if not line:
            flush_run()
            if cur:
                paras.append(list(cur))
                cur.clear()
            continue
        if _BLOCK_START_RE.match(line):
            flush_run()
        run.append(line)
        if _ATX_RE.match(line):
            flush_run()
    flush_run()
    if cur:
        paras.append(cur)
    return paras


def escape_context_text(text: str) -> str:
    """``text`` safe inside a context unit; decoding ``&lt;``/``&amp;`` gives it back."""
    return _TAG_START_RE.sub("&lt;", _ENTITY_RE.sub("&amp;", text))


def quote_attr(value: str) -> str:
    """An attribute value with its quotes: ``"v"``, or ``'v'`` when ``v`` holds ``"``."""
    v = _ENTITY_RE.sub("&amp;", value).replace("<", "&lt;").replace(">", "&gt;")
    if '"' not in v:
        return f'"{v}"'
    if "'" not in v:
        return f"'{v}'"
    return '"' + v.replace('"', "&quot;") + '"'


class _Doc:
    """Per-document state: cleaned lines and the warnings raised while cleaning them."""

    __slots__ = ("index", "name", "lines", "first_no", "title", "markdown", "warnings")

    def __init__(self, index: int, doc: Document) -> None:
        self.index = index
        self.name = doc.name
        self.markdown = doc.is_markdown
        self.warnings: list[str] = []
        text = doc.text
        n = sum(text.count(c) for c in MARKER_CHARS)
        if n:
            self.warnings.append(f"{n} citation marker character(s) (U+E200-U+E202) replaced "
                                 "by U+FFFD")
            text = text.translate(_MARKER_TRANS)
        # The lines split_lines gives (breaks are \n, \r\n and \r only), at C speed.
        raw = normalize_breaks(text).split("\n")
        lines = [line if line.strip() else "" for line in raw]
        first = 0
        while first < len(lines) and not lines[first]:
            first += 1
        last = len(lines)
        while last > first and not lines[last - 1]:
            last -= 1
        self.lines = lines[first:last]
        self.first_no = first + 1  # physical line number of self.lines[0]
        title = doc.title
        if title is None and self.markdown:
            title = markdown_title(raw)
        if title is not None:
            title = _one_line(title.translate(_MARKER_TRANS))
        if not title:
            base = os.path.basename(doc.name.rstrip("/\\")) or doc.name
            title = _one_line(base.translate(_MARKER_TRANS)) or "untitled"
        self.title = title
        if not self.lines:
            self.warnings.append("no text: nothing to cite")

    def neutralise(self, unit: Unit) -> None:
        """Escape lines the parser would read as structure (see the module docstring)."""
        lines = self.lines
        n = 0
        header = unit is not Unit.CONTEXT
        for i, line in enumerate(lines):
            if line[:1] not in " \t[Cc":
                continue
            if (_LABEL_LINE_RE.match(line) or (header and _HEADER_LINE_RE.match(line))
                    or (i == 0 and unit is Unit.DOCUMENT and _BLOCK_LINE_RE.match(line))):
                lines[i] = "\\" + line
                n += 1
        if n:
            what = "line labels" if unit is Unit.CONTEXT else "marker headers or line labels"
            self.warnings.append(f"{n} line(s) that would read as {what} escaped with a "
                                 "leading backslash")

    def escape_tags(self) -> None:
        n = 0
        for i, line in enumerate(self.lines):
            if "<" in line or "&" in line:
                escaped = escape_context_text(line)
                if escaped != line:
                    n += 1
                    self.lines[i] = escaped
        if n:
            self.warnings.append(f"{n} line(s) with tag-like '<' or entity-like '&' escaped "
                                 "(&lt;, &amp;)")

    def paragraphs(self, block_lines: int | None) -> list[list[str]]:
        """Blocks of lines. Inside one block a heading-only paragraph (Markdown) keeps the
        empty line that separated it from the paragraph it joins."""
        paras: list[list[str]] = []
        cur: list[str] = []
        for line in self.lines:
            if line:
                cur.append(line)
            elif cur:
                paras.append(cur)
                cur = []
        if cur:
            paras.append(cur)
        if self.markdown:
            merged: list[list[str]] = []
            carry: list[str] = []
            for p in paras:
                if all(_ATX_RE.match(x) for x in p):
                    carry.extend(p)
                    carry.append("")
                    continue
                merged.append(carry + p if carry else p)
                carry = []
            if carry:
                merged.append(carry[:-1])
            paras = merged
        if block_lines is None:
            return paras
        out: list[list[str]] = []
        for p in paras:
            for k in range(0, len(p), block_lines):
                chunk = p[k:k + block_lines]
                while chunk and not chunk[-1]:
                    chunk.pop()
                while chunk and not chunk[0]:
                    chunk.pop(0)
                if chunk:
                    out.append(chunk)
        return out


# ----------------------------------------------------------------------------- builder


@dataclass(slots=True)
class _Spec:
    """What a source will be, kept cheap until :attr:`Prepared.sources` is read. ``lines``
    are the displayed lines; ``labels`` their label numbers (None: unlabelled), or None when
    every line ``i``, empty ones included, is labelled ``first_no + i``."""

    kind: SourceKind
    sid: str
    doc: int
    lines: list[str]
    labels: list[int | None] | None
    first_no: int
    meta: list[tuple[str, str]]
    label: str | None
    span: tuple[int, int]

    def build(self, origin: str) -> Source:
        text = "\n".join(self.lines)
        src_lines: list[SourceLine] = []
        if self.kind is SourceKind.LINE:
            labels = self.labels
            pos = 0
            for i, line in enumerate(self.lines):
                n = self.first_no + i if labels is None else labels[i]
                if n is not None:
                    src_lines.append(SourceLine(n, pos, pos + len(line)))
                pos += len(line) + 1
        context = self.kind is SourceKind.CONTEXT
        src = Source(self.sid, self.kind, text, src_lines, metadata=list(self.meta),
                     label=self.label, origin=origin, origin_span=self.span,
                     tag=CONTEXT_TAG if context else None)
        src.title = src.meta("title")
        src.url = src.meta("url")
        if src.url is None and context:
            src.url = src.meta("href")  # as the context parser reads it
        return src


class _Builder:
    """Material text with the offset of its end, so sources get their ``origin_span``."""

    __slots__ = ("parts", "pos", "specs")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.specs: list[_Spec] = []

    def add(self, s: str) -> None:
        self.parts.append(s)
        self.pos += len(s)

    def header(self, source_id: str, meta: Sequence[tuple[str, str]]) -> tuple[int, int]:
        """Write a separating blank line (but first), the marker line and the metadata;
        return (start of the marker line, end of the last header line)."""
        if self.parts:
            self.add("\n")
        start = self.pos
        self.add(f"Citation Marker: {marker(source_id)}\n"
                 + "".join(f"{k}: {v}\n" for k, v in meta))
        return start, self.pos - 1


def _line_source(b: _Builder, d: _Doc, turn: int, split: Split,
                 meta: list[tuple[str, str]]) -> None:
    sid = f"turn{turn}file{d.index}"
    start, last_end = b.header(sid, meta)
    b.add("\n")
    labels: list[int | None] | None = None
    if split is Split.LINES:
        shown = d.lines
        # Empty lines too: a citation of L2 between two paragraphs must not be out of range.
        body = "".join([f"[L{n}] {t}\n" if t else f"[L{n}]\n"
                        for n, t in enumerate(shown, d.first_no)])
    else:
        shown, labels = [], []
        out: list[str] = []
        n = 0
        for j, para in enumerate(split_sentences(d.lines)):
            if j:
                shown.append("")
                labels.append(None)
                out.append("\n")
            for sentence in para:
                n += 1
                shown.append(sentence)
                labels.append(n)
                out.append(f"[L{n}] {sentence}\n")
        body = "".join(out)
    if body:
        b.add(body)
        last_end = b.pos - 1  # the last line is labelled: empty ones were trimmed
    kind = SourceKind.LINE if shown else SourceKind.DOCUMENT
    b.specs.append(_Spec(kind, sid, d.index, shown, labels, d.first_no, meta, None,
                         (start, last_end)))


def _document_source(b: _Builder, d: _Doc, turn: int, meta: list[tuple[str, str]]) -> None:
    sid = f"turn{turn}file{d.index}"
    start, last_end = b.header(sid, meta)
    b.add("\n")
    if d.lines:
        b.add("\n".join(d.lines))
        last_end = b.pos
        b.add("\n")
    b.specs.append(_Spec(SourceKind.DOCUMENT, sid, d.index, d.lines, None, 0, meta, None,
                         (start, last_end)))


def _block_source(b: _Builder, d: _Doc, turn: int, block_no: int, para: list[str],
                  meta: list[tuple[str, str]]) -> None:
    sid = f"turn{turn}file{block_no}"
    label = f"Block{block_no + 1}"
    start, _ = b.header(sid, meta)
    b.add(f"[{label}]\n" + "\n".join(para))
    last_end = b.pos
    b.add("\n")
    b.specs.append(_Spec(SourceKind.BLOCK, sid, d.index, para, None, 0, meta, label,
                         (start, last_end)))


def _context_source(b: _Builder, d: _Doc, block_no: int, para: list[str],
                    meta: list[tuple[str, str]]) -> None:
    sid = f"block{block_no + 1}"
    attrs = [(k, quote_attr(v)) for k, v in meta]
    start = b.pos
    b.add(f'<{CONTEXT_TAG} id="{sid}"' + "".join(f" {k}={q}" for k, q in attrs) + ">\n"
          + "\n".join(para) + f"\n</{CONTEXT_TAG}>")
    end = b.pos
    b.add("\n")
    # The parser reads attribute values as written (quotes removed, nothing decoded).
    read_meta = [(k, q[1:-1]) for k, q in attrs]
    b.specs.append(_Spec(SourceKind.CONTEXT, sid, d.index, para, None, 0, read_meta, sid,
                         (start, end)))


# ----------------------------------------------------------------------------- entry point


def prepare_material(
    documents: Sequence[Document],
    unit: Unit | str = Unit.BLOCK,
    turn: int = 0,
    split: Split | str = Split.LINES,
    block_lines: int | None = None,
    meta: Iterable[tuple[str, str]] = (),
) -> Prepared:
    """Material for ``documents`` in the given citable unit; see the module docstring.

    ``meta`` adds header keys to every source after ``Title`` (a ``Title`` key replaces the
    derived title). Sources name their origin ``tool_outputs[turn]`` (``context`` for context
    units), where the material belongs in a case. Bad options raise :class:`InputError`.
    """
    try:
        unit = Unit(unit)
        split = Split(split)
    except ValueError as err:
        raise InputError(str(err)) from None
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0:
        raise InputError(f"turn must be a non-negative integer, not {turn!r}")
    if split is Split.SENTENCES and unit is not Unit.LINE:
        raise InputError("splitting into sentences applies to line units only")
    if block_lines is not None:
        if unit not in (Unit.BLOCK, Unit.CONTEXT):
            raise InputError("a block length applies to block and context units only")
        if isinstance(block_lines, bool) or not isinstance(block_lines, int) or block_lines < 1:
            raise InputError(f"block length must be a positive integer, not {block_lines!r}")
    metadata = _check_meta(meta, unit)
    title_override = next((v for k, v in metadata if k.casefold() == "title"), None)
    extra = [(k, v) for k, v in metadata if k.casefold() != "title"]
    title_key = "title" if unit is Unit.CONTEXT else "Title"

    docs = [_Doc(i, doc) for i, doc in enumerate(documents)]
    b = _Builder()
    block_no = 0
    for d in docs:
        if unit is not Unit.LINE:
            d.neutralise(unit)
        if unit is Unit.CONTEXT:
            d.escape_tags()
        header_meta = [(title_key, title_override or d.title), *extra]
        if unit is Unit.LINE:
            _line_source(b, d, turn, split, header_meta)
        elif unit is Unit.DOCUMENT:
            _document_source(b, d, turn, header_meta)
        else:
            for para in d.paragraphs(block_lines):
                if unit is Unit.BLOCK:
                    _block_source(b, d, turn, block_no, para, header_meta)
                else:
                    _context_source(b, d, block_no, para, header_meta)
                block_no += 1
    warnings = [PrepareWarning(d.index, d.name, w) for d in docs for w in d.warnings]
    origin = "context" if unit is Unit.CONTEXT else f"tool_outputs[{turn}]"
    return Prepared("".join(b.parts), b.specs, warnings, origin)
