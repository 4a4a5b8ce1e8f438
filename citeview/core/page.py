"""One self-contained HTML page of analysed cases: each answer rendered as Markdown with numbered
chips, the sources with line labels; clicking a chip (or opening the page at ``#cN``, or
``#kK-cN`` on a page of several cases) highlights what citation N cites, as the window does, and
scrolls to it. A page of several cases lists them; a session's verdicts and notes are shown
beside each answer. What ``citeview page`` writes.

Self-contained and inert: no network, no external file; the only style and script are inline,
and a Content-Security-Policy meta tag allows exactly those two (by their SHA-256 hashes) and
nothing else (``default-src 'none'``: no image, font, frame, connection or form). Model and
source text is never live HTML: Markdown is rendered by markdown-it with raw HTML off (escaped),
images become their alt text and links lose their targets, as in the window.

What a chip highlights follows the window's source view (``gui/source_view``): a provider's
citation of exact characters (``unit == "chars"``) highlights exactly those characters; any
other target with a span highlights the lines (rows) the span touches; a marker's target its
cited lines. The cited source is marked and scrolled to even when nothing in it can be
highlighted (a web result without text).
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from citeview.core.analysis import AnalysedCase, AnalysedCitation
from citeview.core.markdown import CLOSE, OPEN, inert_markdown
from citeview.core.material import Source
from citeview.core.resolution import Target
from citeview.core.stripping import PRIVATE_MARKER_CHARS, Edit, apply_edits, residue_edits
from citeview.core.text import iter_lines

_DELETE = {ord(ch): None for ch in PRIVATE_MARKER_CHARS}
_NEUTRAL = {ord(OPEN): "\ufffd", ord(CLOSE): "\ufffd", **_DELETE}
_UNIT_RE = re.compile(f"<[^>]*>|&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);"
                      f"|{OPEN}[0-9]+{CLOSE}|[^<&{OPEN}]|[&{OPEN}]", re.S)

STYLE = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;height:100vh;color:#222}
nav{flex:0 0 15em;overflow:auto;border-right:1px solid #ccc;padding:.5em 0;font-size:.9em}
nav a{display:block;padding:.2em .8em;color:#124;text-decoration:none}
nav a.current{background:#124;color:#fff}nav .q{display:block;color:#666;font-size:.85em}
nav a.current .q{color:#dde}
.case{display:none;flex:1 1 auto;min-width:0}.case.shown{display:flex}
main,aside{overflow:auto;padding:1em 1.5em;box-sizing:border-box}
main{flex:1 1 50%;border-right:1px solid #ccc}aside{flex:1 1 50%}
.answer table{border-collapse:collapse}
.answer td,.answer th{border:1px solid #bbb;padding:.2em .4em}
.answer pre{white-space:pre-wrap;background:#f4f4f4;padding:.4em}
.link{color:#124;text-decoration:underline}.img{color:#666}
.chip{display:inline-block;min-width:1.4em;padding:0 .3em;margin:0 .1em;border-radius:.7em;
background:#dde8f8;color:#124;font-size:.8em;text-align:center;text-decoration:none;
vertical-align:super;line-height:1.4}
.chip.problem{background:#f8dcdc;color:#600}.chip.judged{background:#dcf0dc;color:#141}
.chip.active{background:#124;color:#fff}
.claim{background:#fff3bf}
.review{margin-top:1.5em;border-collapse:collapse;font-size:.9em}
.review th,.review td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
.review tr.active{background:#fff3bf}.note{white-space:pre-wrap}
.source{margin:0 0 1.5em}.source h2{font-size:1em;margin:.2em 0}
.source.cited h2{background:#124;color:#fff;padding:0 .3em}
.meta{color:#666;font-size:.85em;word-break:break-all}
.line{display:flex;white-space:pre-wrap;border-left:3px solid transparent}
.label{flex:0 0 3.2em;color:#888;text-align:right;padding-right:.6em;user-select:none}
.text{flex:1}.whole{margin:0}
.hl{background:#fff3bf;border-left-color:#e0a800}.seg.hl{background:#ffd84d}
""".strip()

SCRIPT = """
(function(){
var marked=['hl','active','claim','cited','shown','current'];
function clear(root){marked.forEach(function(c){if(c==='shown'||c==='current'){return;}
root.querySelectorAll('.'+c).forEach(function(e){e.classList.remove(c);});});}
function showCase(k){var cases=document.querySelectorAll('.case');var box=null;
cases.forEach(function(e){var on=e.id===k||(!k&&e===cases[0]);e.classList.toggle('shown',on);
if(on){box=e;}});document.querySelectorAll('nav a').forEach(function(a){
a.classList.toggle('current',!!box&&a.getAttribute('href')==='#'+box.id);});return box;}
function range(list,spec,cls){var ab=spec.split('-');var a=+ab[0],b=+ab[ab.length-1];
var first=null;for(var i=a;i<=b&&i<list.length;i++){list[i].classList.add(cls);
if(!first){first=list[i];}}return first;}
function show(k,n){var box=showCase(k);if(!box){return;}clear(box);
var p=box.getAttribute('data-prefix');var chip=document.getElementById(p+'chip-'+n);
if(!chip){return;}chip.classList.add('active');
box.querySelectorAll('.cl-'+n).forEach(function(e){e.classList.add('claim');});
box.querySelectorAll('tr[data-c="'+n+'"]').forEach(function(e){e.classList.add('active');});
var first=null;(chip.getAttribute('data-cites')||'').split(' ').forEach(function(t){
if(!t){return;}var at=t.lastIndexOf(':');var sec=document.getElementById(p+t.slice(0,at));
if(!sec){return;}sec.classList.add('cited');var e=null;var spec=t.slice(at+1);
if(spec.charAt(0)==='r'){e=range(sec.querySelectorAll('.line'),spec.slice(1),'hl');}
else if(spec.charAt(0)==='g'){e=range(sec.querySelectorAll('.seg'),spec.slice(1),'hl');}
if(!first){first=e||sec;}});
if(first){first.scrollIntoView({block:'center'});}}
function fromHash(){var h=location.hash;var m=/^#(k[0-9]+)-c([0-9]+)$/.exec(h);
if(m){show(m[1],m[2]);return;}m=/^#c([0-9]+)$/.exec(h);if(m){show('',m[1]);return;}
m=/^#(k[0-9]+)$/.exec(h);showCase(m?m[1]:'');}
window.addEventListener('hashchange',fromHash);fromHash();
})();
""".strip()


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


CSP = (f"default-src 'none'; style-src {_hash(STYLE)}; script-src {_hash(SCRIPT)}; "
       "base-uri 'none'; form-action 'none'")


@dataclass(slots=True, frozen=True)
class Judgement:
    """A reviewer's verdict and note on one source of a citation (a session's annotation)."""

    number: int  # the citation's 1-based number
    source_id: str
    verdict: str | None
    note: str = ""
    annotator: str = ""


@dataclass(slots=True, frozen=True)
class CaseNote:
    """A reviewer's review of a whole case: its state (``done``...), overall verdict, note."""

    annotator: str
    state: str
    verdict: str | None = None
    note: str = ""


@dataclass(slots=True)
class PageCase:
    """One case of a page: its analysis and, from a session, its judgements and reviews."""

    analysed: AnalysedCase
    judgements: Sequence[Judgement] = ()
    reviews: Sequence[CaseNote] = ()


def _esc(text: str) -> str:
    return html.escape(text.translate(_DELETE))


# ----------------------------------------------------------------------------- the answer


def visible_text(fragment: str) -> str:
    """What a Markdown fragment shows once rendered (syntax and link targets gone)."""
    rendered = inert_markdown().renderInline(fragment.translate(_NEUTRAL))
    return html.unescape(re.sub(r"<[^>]*>", "", rendered))


def _with_sentinels(a: AnalysedCase) -> tuple[str, list[AnalysedCitation]]:
    """The answer without markers (whitespace tidied as the copy-out does), a sentinel where
    each citation stood; the citations in sentinel order."""
    text = a.answer
    by_span: dict[tuple[int, int], list[AnalysedCitation]] = {}
    for c in a.citations:
        by_span.setdefault((c.citation.start, c.citation.end), []).append(c)
    edits: list[tuple[Edit, list[AnalysedCitation]]] = [
        (e, by_span.pop((e.start, e.end), [])) for e in residue_edits(text, a.scan_result)]
    edits += [(Edit(s, e), cs) for (s, e), cs in by_span.items()]  # provider citations
    edits.sort(key=lambda x: (x[0].start, x[0].end))
    out: list[str] = []
    order: list[AnalysedCitation] = []
    pos = 0
    for e, cits in edits:
        if e.start < pos:
            continue
        piece = apply_edits(text[pos:e.end], [Edit(e.start - pos, e.end - pos, e.replacement)])
        out.append(piece.translate(_NEUTRAL))
        for c in cits:
            out.append(f"{OPEN}{len(order)}{CLOSE}")
            order.append(c)
        pos = e.end
    out.append(text[pos:].translate(_NEUTRAL))
    return "".join(out), order


def _match_backwards(chars: list[str], end: int, limit: int, claim: str) -> int | None:
    """Index in ``chars`` where ``claim``'s rendering starts, ending at ``end`` (the window's
    answer-pane match: rendering only drops characters, so the rendered claim is a
    subsequence of the raw one; blanks are ignored on both sides)."""
    j = len(claim) - 1
    k = end - 1
    first: int | None = None
    while j >= 0 and k >= limit:
        d = chars[k]
        if not d or d.isspace():
            k -= 1
            continue
        c = claim[j]
        if c.isspace():
            j -= 1
            continue
        if d == c or d.casefold() == c.casefold():
            first = k
            k -= 1
        j -= 1
    return first


def _chip(prefix: str, c: AnalysedCitation, cites: str, judged: bool) -> str:
    cls = "chip" if c.resolution.ok and cites else "chip problem"
    if judged:
        cls += " judged"
    return (f'<a class="{cls}" id="{prefix}chip-{c.number}" href="#{prefix}c{c.number}" '
            f'data-cites="{html.escape(cites, quote=True)}">{c.number}</a>')


def _answer_html(a: AnalysedCase, prefix: str, cites: dict[int, str],
                 judged: set[int]) -> str:
    """The answer as rendered Markdown, chips in place, each claim's text in spans of class
    ``cl-N`` (only text is wrapped, so the markup stays well nested)."""
    source, order = _with_sentinels(a)
    body = inert_markdown().render(source)
    units = [m.group(0) for m in _UNIT_RE.finditer(body)]
    chars: list[str] = []  # what each unit shows: "" for a tag or a chip
    chip_at: dict[int, int] = {}  # sentinel index -> unit index
    for i, u in enumerate(units):
        if u.startswith("<"):
            chars.append("")
        elif u.startswith(OPEN) and u.endswith(CLOSE) and len(u) > 2:
            chip_at[int(u[1:-1])] = i
            chars.append("")
        else:
            chars.append(html.unescape(u) if u.startswith("&") else u)
    claims: list[set[int]] = [set() for _ in units]
    keys = [c.claim for c in order]
    for k, c in enumerate(order):
        first = k
        while first > 0 and keys[first - 1] == keys[k]:
            first -= 1
        end = chip_at.get(first)
        if end is None:
            continue
        limit = chip_at.get(first - 1, -1) + 1 if first > 0 else 0
        claim = (order[first].claim_text if order[first].citation.raw else
                 visible_text(order[first].claim_text))
        start = _match_backwards(chars, end, limit, claim)
        if start is None:
            continue
        while end > start and (not chars[end - 1] or chars[end - 1].isspace()):
            end -= 1
        for i in range(start, end):
            if chars[i]:
                claims[i].add(c.number)
    out: list[str] = []
    run: list[str] = []
    run_claims: frozenset[int] = frozenset()

    def flush() -> None:
        if run:
            text = "".join(run)
            if run_claims:
                cls = " ".join(f"cl-{n}" for n in sorted(run_claims))
                text = f'<span class="cl {cls}">{text}</span>'
            out.append(text)
            run.clear()

    by_index = {i: order[s] for s, i in chip_at.items()}
    for i, u in enumerate(units):
        if chars[i]:
            here = frozenset(claims[i])
            if here != run_claims:
                flush()
                run_claims = here
            run.append(u if u.startswith("&") else html.escape(u))
            continue
        flush()
        run_claims = frozenset()
        chip = by_index.get(i)
        if chip is not None:
            out.append(_chip(prefix, chip, cites.get(chip.number, ""), chip.number in judged))
        elif u.startswith("<"):
            out.append(u)
        # a stray sentinel (in an attribute, or unbalanced) is dropped
    flush()
    return "".join(out)


# ----------------------------------------------------------------------------- the sources


@dataclass(slots=True)
class _Rows:
    """A source as the page shows it: rows (its labelled lines, or its text's lines) and the
    cut points of exactly cited characters (segments)."""

    source: Source
    rows: list[tuple[int, int, int | None]]  # (start, end, label)
    cuts: list[int]
    starts: list[int] = field(default_factory=list)  # of the rows, once asked for
    by_span: dict[tuple[int, int], int] = field(default_factory=dict)  # (start, end) -> row

    def row_of(self, start: int, end: int) -> int | None:
        """The row of a labelled line (its span), None when no row has that span."""
        if not self.by_span:
            self.by_span = {(row[0], row[1]): k for k, row in enumerate(self.rows)}
        return self.by_span.get((start, end))

    def row_range(self, start: int, end: int) -> tuple[int, int] | None:
        """First and last row of the span (an end at a row's start does not reach into it)."""
        if not self.rows:
            return None
        if not self.starts:
            self.starts = [r[0] for r in self.rows]
        starts = self.starts
        first = max(0, bisect_right(starts, start) - 1)
        last = max(0, bisect_right(starts, end) - 1)
        if end > start and last > first and self.rows[last][0] >= end:
            last -= 1
        return first, max(first, last)


def _rows(src: Source) -> _Rows:
    rows: list[tuple[int, int, int | None]]
    if src.lines:
        rows = [(ln.start, ln.end, ln.label) for ln in src.lines]
    else:
        rows = [(s, e, None) for s, e, _ in iter_lines(src.text)] or [(0, 0, None)]
    return _Rows(src, rows, [])


def _segments(r: _Rows) -> list[tuple[int, int, int]]:
    """``(row, start, end)`` of each segment in page order: each row's text cut at every cut."""
    if not r.cuts:
        return []  # nothing cited exactly: rows only
    cuts = sorted(set(r.cuts))
    out = []
    for k, (s, e, _) in enumerate(r.rows):
        inside = cuts[bisect_right(cuts, s):bisect_left(cuts, e)]
        points = [s, *inside, e]
        out += [(k, a, b) for a, b in zip(points, points[1:], strict=False) if b > a]
    return out


def _target_spec(t: Target, r: _Rows, segs: list[tuple[int, int, int]],
                 seg_starts: list[int]) -> str:
    """What the chip highlights in this source: ``rA-B`` (rows), ``gA-B`` (segments) or ``-``
    (nothing, the source only)."""
    span = t.span
    if t.unit is None and t.lines:  # a marker's cited lines (the rows of its labels)
        ks = [k for k in (r.row_of(ln.start, ln.end) for ln in t.lines) if k is not None]
        return f"r{min(ks)}-{max(ks)}" if ks else "-"
    if span is None and t.lines:
        span = (min(ln.start for ln in t.lines), max(ln.end for ln in t.lines))
    if span is None:
        return "-"
    if t.unit == "chars":
        # Segments are in text order and cut at this span's ends: those inside are a run.
        first = bisect_left(seg_starts, span[0])
        last = bisect_left(seg_starts, span[1]) - 1
        while last >= first and segs[last][2] > span[1]:
            last -= 1
        return f"g{first}-{last}" if last >= first else "-"
    rr = r.row_range(*span)
    return f"r{rr[0]}-{rr[1]}" if rr is not None else "-"


def _source_html(prefix: str, i: int, r: _Rows, segs: list[tuple[int, int, int]]) -> str:
    src = r.source
    title = src.title or src.id
    parts = [f'<section class="source" id="{prefix}s{i}"><h2>{_esc(title)}</h2>',
             f'<div class="meta">{_esc(src.id)}']
    if src.url:
        parts.append(f" · {_esc(src.url)}")  # as text: the page loads and follows nothing
    parts.append("</div>")
    by_row: dict[int, list[tuple[int, int]]] = {}
    for k, a, b in segs:
        by_row.setdefault(k, []).append((a, b))
    if not src.lines:
        parts.append(f'<div class="whole" id="{prefix}s{i}-all">')
    for k, (s, e, label) in enumerate(r.rows):
        pieces = by_row.get(k, [])
        text = "".join(f'<span class="seg">{_esc(src.text[a:b])}</span>' for a, b in pieces)
        if not pieces and e > s:
            text = _esc(src.text[s:e])
        if label is not None:
            parts.append(f'<div class="line" id="{prefix}s{i}-L{label}"><span class="label">'
                         f'L{label}</span><span class="text">{text}</span></div>')
        else:
            parts.append(f'<div class="line"><span class="text">{text or "&#8203;"}</span>'
                         "</div>")
    if not src.lines:
        parts.append("</div>")
    parts.append("</section>")
    return "".join(parts)


# ----------------------------------------------------------------------------- a case


def _review_html(pc: PageCase) -> str:
    notes = [f'<p class="meta">Case reviewed by {_esc(r.annotator or "(no name)")}: '
             f"{_esc(r.state)}" + (f" · {_esc(r.verdict)}" if r.verdict else "")
             + (f' · <span class="note">{_esc(r.note)}</span>' if r.note else "") + "</p>"
             for r in pc.reviews]
    if not pc.judgements:
        return "".join(notes)
    rows = [*notes, '<table class="review"><tr><th>Citation</th><th>Source</th><th>Verdict</th>'
            "<th>Note</th><th>Annotator</th></tr>"]
    for j in sorted(pc.judgements, key=lambda j: (j.number, j.source_id, j.annotator)):
        rows.append(f'<tr data-c="{j.number}"><td>{j.number}</td><td>{_esc(j.source_id)}</td>'
                    f"<td>{_esc(j.verdict or '')}</td><td class=\"note\">{_esc(j.note)}</td>"
                    f"<td>{_esc(j.annotator)}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _case_html(k: int, pc: PageCase, prefix: str, shown: bool) -> str:
    a = pc.analysed
    sources = a.material.sources
    index = {id(s): i for i, s in enumerate(sources)}
    rows = [_rows(s) for s in sources]
    for c in a.citations:
        for t in c.targets:
            i = index.get(id(t.source))
            if i is not None and t.unit == "chars" and t.span is not None:
                rows[i].cuts += [t.span[0], t.span[1]]
    segs = [_segments(r) for r in rows]
    seg_starts = [[a for _, a, _ in sg] for sg in segs]
    cites: dict[int, str] = {}
    for c in a.citations:
        tokens = []
        for t in c.targets:
            i = index.get(id(t.source))
            if i is None:
                continue
            tokens.append(f"s{i}:{_target_spec(t, rows[i], segs[i], seg_starts[i])}")
        cites[c.number] = " ".join(tokens)
    judged = {j.number for j in pc.judgements if j.verdict}
    title = _esc(a.case.id or "answer")
    question = f'<p class="meta">{_esc(a.case.question)}</p>' if a.case.question else ""
    body_sources = "".join(_source_html(prefix, i, r, s)
                           for i, (r, s) in enumerate(zip(rows, segs, strict=True)))
    cls = "case shown" if shown else "case"
    return (f'<div class="{cls}" id="k{k}" data-prefix="{prefix}">'
            f'<main><h1 class="meta">{title}</h1>{question}'
            f'<div class="answer">{_answer_html(a, prefix, cites, judged)}</div>'
            f"{_review_html(pc)}</main>\n<aside>{body_sources}</aside></div>\n")


def _nav(cases: Sequence[PageCase]) -> str:
    items = []
    for k, pc in enumerate(cases):
        case = pc.analysed.case
        n = len(pc.analysed.citations)
        judged = len({j.number for j in pc.judgements if j.verdict})
        count = f"{judged}/{n} judged" if pc.judgements else f"{n} citations"
        q = f'<span class="q">{_esc(case.question[:120])}</span>' if case.question else ""
        cur = ' class="current"' if k == 0 else ""
        items.append(f'<a href="#k{k}"{cur}>{_esc(case.id or f"case {k + 1}")} '
                     f'<span class="q">{count}</span>{q}</a>')
    return "<nav>" + "".join(items) + "</nav>\n"


def render_page(cases: AnalysedCase | Sequence[PageCase], title: str | None = None) -> str:
    """The page of one analysed case, or of several (a list of cases beside them); see the
    module."""
    many: Sequence[PageCase] = ([PageCase(cases)] if isinstance(cases, AnalysedCase)
                                else list(cases))
    single = len(many) == 1
    head = title or (many[0].analysed.case.id if single and many else "") or "answers"
    parts = [_case_html(k, pc, "" if single else f"k{k}-", k == 0)
             for k, pc in enumerate(many)]
    nav = "" if single else _nav(many)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{_esc(head)}</title>\n<style>{STYLE}</style></head>\n<body>\n"
        f"{nav}{''.join(parts)}<script>{SCRIPT}</script>\n</body></html>\n"
    )
