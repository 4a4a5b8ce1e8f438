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

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from citeview.core.diagnostics import RULES, Diagnostic, Severity
from citeview.core.markers import (
    SOURCE_ID_RE,
    decode_literal_escapes,
    extract_citations,
    scan,
)
from citeview.core.text import iter_lines

if TYPE_CHECKING:
    from citeview.core.cases import Case


class SourceKind(StrEnum):
    LINE = "line"  # tool output with [L#] labelled lines
    BLOCK = "block"  # tool output with a [BlockN] label: cited whole
    CONTEXT = "context"  # a unit of injected context (<tag id="...">)
    DOCUMENT = "document"  # tool output without labels: cited whole
    FILE = "file"  # a file given directly; its physical lines are L1..Ln


@dataclass(slots=True, frozen=True)
class SourceLine:
    """A citable line: its label number and its span in ``Source.text`` (no prefix, no break)."""

    label: int
    start: int
    end: int


@dataclass(slots=True)
class Source:
    """One citable source. ``origin`` names the material string it came from and
    ``origin_span`` is its extent there (header to last line)."""

    id: str
    kind: SourceKind
    text: str
    lines: list[SourceLine] = field(default_factory=list)
    title: str | None = None
    url: str | None = None
    metadata: list[tuple[str, str]] = field(default_factory=list)
    label: str | None = None
    origin: str = ""
    origin_span: tuple[int, int] = (0, 0)
    tag: str | None = None  # the tag name of a context unit

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

    def by_id(self) -> dict[str, list[Source]]:
        """Every source under its id; a duplicated id maps to all its definitions, in order."""
        out: dict[str, list[Source]] = {}
        for s in self.sources:
            out.setdefault(s.id, []).append(s)
        return out

    def ids(self) -> list[str]:
        """Distinct source ids in material order."""
        return list(dict.fromkeys(s.id for s in self.sources))

    def get(self, source_id: str) -> Source | None:
        """The first source with this id (the one citations resolve to), or None."""
        for s in self.sources:
            if s.id == source_id:
                return s
        return None

    def extend(self, other: Material) -> None:
        self.sources.extend(other.sources)
        self.diagnostics.extend(other.diagnostics)


# --------------------------------------------------------------------------- tool output

_HEADER_RE = re.compile(r"[ \t]*citation marker[ \t]*:[ \t]*(.*)", re.IGNORECASE)
_LABEL_RE = re.compile(r"[ \t]*\[L(\d+)\][ \t]?")
_BLOCK_RE = re.compile(r"[ \t]*\[(Block[ \t]*\d+)\][ \t]?", re.IGNORECASE)
_META_RE = re.compile(r"([A-Za-z][A-Za-z0-9 _/().-]{0,60}?)[ \t]*:[ \t]*(.*)")
# 【turn0file0】 and the browsing tool's 【turn0search0†title†url】.
_BRACKET_ID_RE = re.compile(r"【\s*([A-Za-z0-9_-]+)\s*(?:†[^】]*)?】")


def _is_blank(line: str) -> bool:
    # Only spaces and tabs: str.strip() would also eat U+2028, form feed and the like.
    return not line.strip(" \t")


@dataclass(slots=True)
class _BodyLine:
    text_start: int  # in the material: where the displayed text starts
    end: int  # in the material: end of the line (before its break)
    label: int | None
    line_start: int  # in the material: start of the whole line


def _build_text(material: str, body: list[_BodyLine]) -> tuple[str, list[SourceLine]]:
    """Joined display text (``\\n`` breaks) and the labelled lines' spans in it."""
    pieces: list[str] = []
    lines: list[SourceLine] = []
    pos = 0
    for i, b in enumerate(body):
        if i:
            pos += 1
        piece = material[b.text_start : b.end]
        pieces.append(piece)
        if b.label is not None:
            lines.append(SourceLine(b.label, pos, pos + len(piece)))
        pos += len(piece)
    return "\n".join(pieces), lines


def _trim_blank(material: str, body: list[_BodyLine]) -> list[_BodyLine]:
    lo, hi = 0, len(body)

    def blank(b: _BodyLine) -> bool:
        return b.label is None and _is_blank(material[b.text_start : b.end])

    while lo < hi and blank(body[lo]):
        lo += 1
    while hi > lo and blank(body[hi - 1]):
        hi -= 1
    return body[lo:hi]


def _header_id(
    rest: str, origin: str, start: int, end: int, diags: list[Diagnostic]
) -> str | None:
    """The source id a header names, or None. ``rest`` is the text after ``Citation Marker:``."""
    found = extract_citations(rest)
    note = ""
    if not found and "\\" in rest:
        decoded = decode_literal_escapes(rest)
        found = extract_citations(decoded)
        if found:
            diags.append(_diag("CV503", origin, "header marker written as ASCII escapes "
                               "(\\ue200...); read as the marker it spells", start, end))
    if found:
        c = found[0]
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
    stripped = rest.strip(" \t")
    if stripped and SOURCE_ID_RE.fullmatch(stripped):
        diags.append(_diag("CV502", origin, f"header gives the bare id {stripped!r}, not a "
                           "citation marker", start, end))
        return stripped
    recovered = [c for c in scan(rest).citations if c.source_ids]
    if recovered:
        c = recovered[0]
        how = c.recovered.value if c.recovered else "malformed"
        diags.append(_diag("CV502", origin, f"header marker is {how}; read as id "
                           f"{c.source_ids[0]!r}", start, end))
        return c.source_ids[0]
    diags.append(_diag("CV502", origin, "header names no source id; the text under it is not "
                       "citable", start, end))
    return None


class _ToolOutputParser:
    def __init__(self, text: str, origin: str) -> None:
        self.text = text
        self.origin = origin
        self.sources: list[Source] = []
        self.diags: list[Diagnostic] = []

    def run(self) -> Material:
        text = self.text
        header_match = _HEADER_RE.match
        lines = iter_lines(text)
        orphan_reported = False
        # State of the source being read.
        sid: str | None = None
        header_start = 0
        in_meta = False
        meta: list[tuple[str, str]] = []
        body: list[_BodyLine] = []
        block_label: str | None = None
        seen_labels: set[int] = set()
        has_content = False
        reading = False  # a header was seen (even one without an id)
        last_end = 0

        for start, end, _next in lines:
            m = header_match(text, start, end)
            if m is not None:
                if reading and sid is not None:
                    self._finish(sid, header_start, meta, body, block_label, last_end)
                reading = True
                header_start = start
                last_end = end
                sid = _header_id(m.group(1), self.origin, start, end, self.diags)
                in_meta = True
                meta = []
                body = []
                block_label = None
                has_content = False
                seen_labels = set()
                continue
            if not reading or sid is None:
                lm = None if orphan_reported or reading else _LABEL_RE.match(text, start, end)
                if lm is not None:
                    orphan_reported = True
                    self.diags.append(_diag("CV502", self.origin, f"labelled line [L{lm.group(1)}]"
                                            " before any Citation Marker header is not citable",
                                            start, end))
                continue
            lm = _LABEL_RE.match(text, start, end)
            if in_meta and lm is None:
                line = text[start:end]
                if _is_blank(line):
                    in_meta = False
                    continue
                mm = _META_RE.fullmatch(line)
                if mm is not None:
                    meta.append((mm.group(1), mm.group(2).rstrip(" \t")))
                    last_end = end
                    continue
            in_meta = False
            if lm is not None:
                label = int(lm.group(1))
                if label in seen_labels:
                    self.diags.append(_diag("CV501", self.origin, f"line label L{label} repeats "
                                            f"in source {sid!r}", start, end))
                seen_labels.add(label)
                body.append(_BodyLine(lm.end(), end, label, start))
                has_content = True
                last_end = end
                continue
            if block_label is None and not has_content:
                bm = _BLOCK_RE.match(text, start, end)
                if bm is not None:
                    block_label = re.sub(r"[ \t]+", "", bm.group(1))
                    if bm.end() < end:
                        body.append(_BodyLine(bm.end(), end, None, start))
                    has_content = True
                    last_end = end
                    continue
            body.append(_BodyLine(start, end, None, start))
            if not _is_blank(text[start:end]):
                has_content = True
                last_end = end
        if reading and sid is not None:
            self._finish(sid, header_start, meta, body, block_label, last_end)
        _report_duplicates(self.sources, self.diags)
        return Material(self.sources, self.diags)

    def _finish(self, sid: str, header_start: int, meta: list[tuple[str, str]],
                body: list[_BodyLine], block_label: str | None, last_end: int) -> None:
        body = _trim_blank(self.text, body)
        text, lines = _build_text(self.text, body)
        if lines:
            kind = SourceKind.LINE
        elif block_label is not None:
            kind = SourceKind.BLOCK
        else:
            kind = SourceKind.DOCUMENT
        source = Source(
            id=sid, kind=kind, text=text, lines=lines, metadata=meta, label=block_label,
            origin=self.origin, origin_span=(header_start, last_end),
        )
        _fill_title_url(source)
        self.sources.append(source)


def _fill_title_url(source: Source) -> None:
    source.title = source.meta("title")
    source.url = source.meta("url")


def parse_tool_output(text: str, origin: str = "tool_outputs[0]") -> Material:
    """The sources of one tool output (one tool invocation), in order."""
    return _ToolOutputParser(text, origin).run()


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


@dataclass(slots=True)
class _Unit:
    name: str
    sid: str
    attrs: list[tuple[str, str]]
    tag_start: int
    content_start: int
    depth: int = 1


def _strip_edge_breaks(text: str, s: int, e: int) -> tuple[int, int]:
    """Drop one line break right after the opening tag and one before the closing tag."""
    for br in ("\r\n", "\n", "\r"):
        if text.startswith(br, s) and s + len(br) <= e:
            s += len(br)
            break
    # Trailing: spaces/tabs then one break before the closing tag belong to the layout.
    k = e
    while k > s and text[k - 1] in " \t":
        k -= 1
    for br in ("\r\n", "\n", "\r"):
        if k - len(br) >= s and text.startswith(br, k - len(br)):
            e = k - len(br)
            break
    return s, e


def _body_from(text: str, s: int, e: int) -> list[_BodyLine]:
    """Lines of ``text[s:e]``, with [L#] labels read."""
    out: list[_BodyLine] = []
    for ls, le, _ in iter_lines(text[s:e]):
        a, b = ls + s, le + s
        lm = _LABEL_RE.match(text, a, b)
        if lm is not None:
            out.append(_BodyLine(lm.end(), b, int(lm.group(1)), a))
        else:
            out.append(_BodyLine(a, b, None, a))
    if e > s and text[e - 1] in "\r\n":
        out.append(_BodyLine(e, e, None, e))  # a final empty line the content ends with
    return out


def parse_context(text: str, origin: str = "context") -> Material:
    """Units of injected context: ``<anytag id="x" other="attr">...</anytag>``.

    Other attributes become metadata (``title`` is the title). Text outside units is not
    citable. A unit's lines written as ``[L#] text`` are citable lines; otherwise the unit is
    cited whole. If the context holds no unit but has ``Citation Marker:`` headers, it is read as
    a tool output.
    """
    sources: list[Source] = []
    diags: list[Diagnostic] = []
    unit: _Unit | None = None
    unit_names: set[str] = set()
    stray_closes: list[tuple[str, int, int]] = []

    def close(u: _Unit, content_end: int, tag_end: int) -> None:
        s, e = _strip_edge_breaks(text, u.content_start, content_end)
        body = _body_from(text, s, e) if e > s else []
        src_text, lines = _build_text(text, body)
        label_count: dict[int, int] = {}
        for b in body:
            if b.label is not None:
                label_count[b.label] = label_count.get(b.label, 0) + 1
                if label_count[b.label] == 2:
                    diags.append(_diag("CV501", origin, f"line label L{b.label} repeats in "
                                       f"unit {u.sid!r}", b.line_start, b.end))
        meta = [(k, v) for k, v in u.attrs if k.casefold() != "id"]
        src = Source(id=u.sid, kind=SourceKind.CONTEXT, text=src_text, lines=lines,
                     metadata=meta, label=u.sid, origin=origin,
                     origin_span=(u.tag_start, tag_end), tag=u.name)
        src.title = src.meta("title")
        src.url = src.meta("url") or src.meta("href")
        sources.append(src)

    for m in _TAG_RE.finditer(text):
        is_close, name, raw_attrs, gt = m.group(1) == "/", m.group(2), m.group(3), m.group(4)
        if gt is None:
            # `<name ... ` with no `>` before the next tag: malformed if it would open a unit.
            if not is_close and re.search(r"(?:^|\s)id\s*=", raw_attrs):
                diags.append(_diag("CV502", origin, f"tag <{name}> has no closing '>'; its unit "
                                   "is not read", m.start(), m.end()))
            continue
        if unit is not None:
            if name != unit.name:
                continue
            if is_close:
                unit.depth -= 1
                if unit.depth == 0:
                    close(unit, m.start(), m.end())
                    unit = None
                continue
            attrs, _ok = _parse_attrs(raw_attrs)
            if any(k.casefold() == "id" for k, _ in attrs):
                diags.append(_diag("CV502", origin, f"unit {unit.sid!r} is not closed before "
                                   f"the next <{name}> opens", unit.tag_start, m.start()))
                close(unit, m.start(), m.start())
                unit = None
                # fall through: this tag opens the next unit
            elif not raw_attrs.rstrip().endswith("/"):
                unit.depth += 1
                continue
            else:
                continue
        if is_close:
            stray_closes.append((name, m.start(), m.end()))
            continue
        attrs, ok = _parse_attrs(raw_attrs)
        ids = [v for k, v in attrs if k.casefold() == "id"]
        if not ids:
            continue
        if not ok:
            diags.append(_diag("CV502", origin, f"tag <{name}> has attributes that could not be "
                               "read", m.start(), m.end()))
        sid = ids[0]
        if not sid.strip():
            diags.append(_diag("CV502", origin, f"tag <{name}> has an empty id; not a unit",
                               m.start(), m.end()))
            continue
        unit_names.add(name)
        u = _Unit(name, sid, attrs, m.start(), m.end())
        if raw_attrs.rstrip().endswith("/"):
            close(u, m.end(), m.end())
            continue
        unit = u
    if unit is not None:
        diags.append(_diag("CV502", origin, f"unit {unit.sid!r} (<{unit.name}>) has no closing "
                           f"</{unit.name}>; it runs to the end", unit.tag_start,
                           unit.content_start))
        close(unit, len(text), len(text))
    for name, s, e in stray_closes:
        if name in unit_names:
            diags.append(_diag("CV502", origin, f"closing </{name}> without an opening tag",
                               s, e))
    if not sources and _HEADER_RE.search(text) is not None:
        return parse_tool_output(text, origin)
    diags.sort(key=lambda d: (d.start, d.end))
    _report_duplicates(sources, diags)
    return Material(sources, diags)


# --------------------------------------------------------------------------- files


def file_source(source_id: str, text: str, origin: str = "documents") -> Source:
    """A file given directly as a source: its physical lines are L1..Ln. A Markdown file whose
    first line is a ``# heading`` takes it as title."""
    pieces: list[str] = []
    lines: list[SourceLine] = []
    pos = 0
    for n, (s, e, _) in enumerate(iter_lines(text), start=1):
        if n > 1:
            pos += 1
        pieces.append(text[s:e])
        lines.append(SourceLine(n, pos, pos + e - s))
        pos += e - s
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
    total = Material()
    seen: dict[str, Source] = {}
    for part in iter_case_material(case):
        total.diagnostics.extend(part.diagnostics)
        # Duplicates inside one part are already reported; report those across parts.
        fresh: list[Source] = []
        for s in part.sources:
            if s.id in seen:
                fresh.append(s)
        own_first: dict[str, Source] = {}
        for s in part.sources:
            own_first.setdefault(s.id, s)
        for s in fresh:
            if own_first.get(s.id) is s:
                _report_duplicates([s], total.diagnostics, {s.id: seen[s.id]})
        for s in part.sources:
            seen.setdefault(s.id, s)
        total.sources.extend(part.sources)
    return total


def material_from(sources: Iterable[Source]) -> Material:
    """A material of ready-made sources, with duplicated ids reported."""
    srcs = list(sources)
    diags: list[Diagnostic] = []
    _report_duplicates(srcs, diags)
    return Material(srcs, diags)

