"""Copying an analysed answer out: clean text, Markdown with numbered footnotes, or HTML with
links. Qt-free; what ``citeview strip --as`` prints.

Every form starts from the clean strip (:mod:`citeview.core.stripping`): no marker of any family,
no private-use marker character. Markdown and HTML put a footnote reference where each citation
stood, one per cited source (a citation naming two sources gets two); a footnote gives the
source's title, URL and locator and quotes the cited lines. Footnotes are numbered in reading
order; the same source and locator cited again reuses its number. HTML escapes all model and
source text (never live HTML) and links only http(s) URLs.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from enum import StrEnum

from citeview.core.analysis import AnalysedCase
from citeview.core.resolution import Status, Target
from citeview.core.stripping import PRIVATE_MARKER_CHARS, Edit, apply_edits, residue_edits

_DELETE = {ord(ch): None for ch in PRIVATE_MARKER_CHARS}
# A footnote quotes at most this many cited lines.
MAX_QUOTED_LINES = 12


class CopyFormat(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"
    HTML = "html"


@dataclass(slots=True)
class Footnote:
    number: int
    source_id: str
    title: str
    url: str | None
    locator: str
    quote: list[str] = field(default_factory=list)


def _clean(text: str) -> str:
    return text.translate(_DELETE)


def locator_text(t: Target) -> str:
    """The locator of a target as a reader reads it: ``L2-L3``, ``pages 4-5``, ``blocks 0-1``."""
    if t.locator is not None:
        return t.locator.raw
    if t.pages is not None:
        a, b = t.pages
        return f"page {a}" if a == b else f"pages {a}-{b}"
    if t.blocks is not None:
        a, b = t.blocks
        return f"block {a}" if a == b else f"blocks {a}-{b}"
    return ""


def _quote(t: Target) -> list[str]:
    src = t.source
    if src is not None and t.lines and t.unit in (None, "lines"):
        return [_clean(src.text[ln.start:ln.end]) for ln in t.lines[:MAX_QUOTED_LINES]]
    if src is not None and t.unit == "chars" and t.span is not None:
        return _clean(t.text).splitlines()[:MAX_QUOTED_LINES]
    if t.cited_text:
        return _clean(t.cited_text).splitlines()[:MAX_QUOTED_LINES]
    return []


@dataclass(slots=True)
class CopyOut:
    """The answer's clean pieces and footnotes: ``pieces`` alternates text (str) and the
    footnote numbers (list[int]) placed where a citation stood."""

    pieces: list[str | list[int]]
    footnotes: list[Footnote]


def copy_out(a: AnalysedCase) -> CopyOut:
    """The answer of ``a`` split into clean text and footnote references (see the module)."""
    text = a.answer
    notes: list[Footnote] = []
    seen: dict[tuple[str, str, tuple[int, int] | None], int] = {}
    refs_at: dict[tuple[int, int], list[int]] = {}
    for c in a.citations:
        numbers: list[int] = []
        targets = c.targets or tuple(Target(sid, None, Status.UNKNOWN_SOURCE)
                                     for sid in c.source_ids)
        for t in targets:
            loc = locator_text(t)
            key = (t.source_id, loc, t.span if t.unit == "chars" else None)
            n = seen.get(key)
            if n is None:
                n = seen[key] = len(notes) + 1
                src = t.source
                title = _clean((src.title if src is not None else None) or t.source_id)
                url = src.url if src is not None else None
                notes.append(Footnote(n, t.source_id, title, _clean(url) if url else None, loc,
                                      _quote(t)))
            if n not in numbers:
                numbers.append(n)
        refs_at.setdefault((c.citation.start, c.citation.end), []).extend(numbers)
    # Marker citations replace their span; provider citations (no marker) sit at a point.
    edits: list[tuple[Edit, list[int]]] = []
    for e in residue_edits(text, a.scan_result):
        edits.append((e, refs_at.pop((e.start, e.end), [])))
    edits += [(Edit(s, e), refs) for (s, e), refs in refs_at.items()]
    edits.sort(key=lambda x: (x[0].start, x[0].end))
    pieces: list[str | list[int]] = []
    pos = 0
    for e, refs in edits:
        if e.start < pos:
            continue
        # apply_edits on the text up to the edit's end tidies the whitespace before it.
        piece = apply_edits(text[pos:e.end], [Edit(e.start - pos, e.end - pos, e.replacement)])
        if piece:
            pieces.append(_clean(piece))
        if refs:
            pieces.append(refs)
        pos = e.end
    if pos < len(text):
        pieces.append(_clean(text[pos:]))
    return CopyOut([p for p in pieces if p], notes)


def to_text(a: AnalysedCase) -> str:
    """The answer as clean text: no marker, no footnote."""
    return "".join(p for p in copy_out(a).pieces if isinstance(p, str))


def to_markdown(a: AnalysedCase) -> str:
    """The answer as Markdown with numbered footnotes (``[^1]``)."""
    out = copy_out(a)
    body = "".join(p if isinstance(p, str) else "".join(f"[^{n}]" for n in p)
                   for p in out.pieces).rstrip()
    if not out.footnotes:
        return body + "\n"
    lines = [body, ""]
    for f in out.footnotes:
        head = f.title
        if f.url:
            head += f", <{f.url}>"
        if f.locator:
            head += f", {f.locator}"
        if f.title != f.source_id:
            head += f" ({f.source_id})"
        lines.append(f"[^{f.number}]: {head}")
        for q in f.quote:
            lines.append(f"    > {q}" if q.strip() else "    >")
    return "\n".join(lines) + "\n"


def _safe_url(url: str | None) -> str | None:
    if url and url.strip().lower().startswith(("https://", "http://")) and not any(
            ch.isspace() or ch in "\"'<>`" for ch in url.strip()):
        return url.strip()
    return None


def html_fragment(a: AnalysedCase) -> str:
    """The answer and its footnotes as an HTML fragment: escaped text, paragraphs at blank
    lines, ``<sup>`` references linked to an ordered list of footnotes."""
    out = copy_out(a)
    body: list[str] = []
    for p in out.pieces:
        if isinstance(p, str):
            body.append(html.escape(p))
        else:
            body.append("".join(f'<sup class="ref"><a href="#fn-{n}">[{n}]</a></sup>'
                                for n in p))
    text = "".join(body).strip()
    paras = [q for q in text.replace("\r\n", "\n").replace("\r", "\n").split("\n\n") if q.strip()]
    parts = ["<p>" + q.strip().replace("\n", "<br>\n") + "</p>" for q in paras]
    if out.footnotes:
        parts.append('<ol class="footnotes">')
        for f in out.footnotes:
            title = html.escape(f.title)
            url = _safe_url(f.url)
            item = title
            if url:
                item += (f', <a href="{html.escape(url, quote=True)}" rel="noopener noreferrer">'
                         f"{html.escape(url)}</a>")
            elif f.url:
                item += f", {html.escape(f.url)}"
            if f.locator:
                item += f", {html.escape(f.locator)}"
            if f.title != f.source_id:
                item += f" ({html.escape(f.source_id)})"
            if f.quote:
                item += "<blockquote>" + "<br>\n".join(html.escape(q) for q in f.quote) + \
                    "</blockquote>"
            parts.append(f'<li id="fn-{f.number}">{item}</li>')
        parts.append("</ol>")
    return "\n".join(parts) + "\n"


def to_html(a: AnalysedCase, title: str = "") -> str:
    """A whole HTML document of :func:`html_fragment`, inert (a Content-Security-Policy that
    allows nothing to load or run)."""
    t = html.escape(title or a.case.id or "answer")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">\n"
            f"<title>{t}</title></head>\n<body>\n{html_fragment(a)}</body></html>\n")


def render(a: AnalysedCase, fmt: CopyFormat | str) -> str:
    fmt = CopyFormat(fmt)
    if fmt is CopyFormat.TEXT:
        return to_text(a)
    if fmt is CopyFormat.MARKDOWN:
        return to_markdown(a)
    return to_html(a)
