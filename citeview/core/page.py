"""One self-contained HTML page of an analysed case: the answer with numbered chips, the sources
with line labels; clicking a chip (or opening the page at ``#cN``) highlights the lines citation
N cites and scrolls to them, as the window does. What ``citeview page`` writes.

Self-contained and inert: no network, no external file; the only style and script are inline,
and a Content-Security-Policy meta tag allows exactly those two (by their SHA-256 hashes) and
nothing else (``default-src 'none'``: no image, font, frame, connection or form). All model and
source text is escaped: it is never live HTML.
"""

from __future__ import annotations

import base64
import hashlib
import html

from citeview.core.analysis import AnalysedCase, AnalysedCitation
from citeview.core.material import Source
from citeview.core.stripping import PRIVATE_MARKER_CHARS, Edit, apply_edits, residue_edits

_DELETE = {ord(ch): None for ch in PRIVATE_MARKER_CHARS}

STYLE = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;display:flex;height:100vh;color:#222}
main,aside{overflow:auto;padding:1em 1.5em;box-sizing:border-box}
main{flex:1 1 50%;border-right:1px solid #ccc}aside{flex:1 1 50%}
.answer{white-space:pre-wrap}
.chip{display:inline-block;min-width:1.4em;padding:0 .3em;margin:0 .1em;border-radius:.7em;
background:#dde8f8;color:#124;font-size:.8em;text-align:center;text-decoration:none;
vertical-align:super;line-height:1.4}
.chip.problem{background:#f8dcdc;color:#600}.chip.active{background:#124;color:#fff}
.claim{background:#fff3bf}
.source{margin:0 0 1.5em}.source h2{font-size:1em;margin:.2em 0}
.meta{color:#666;font-size:.85em;word-break:break-all}
.line{display:flex;white-space:pre-wrap;border-left:3px solid transparent}
.label{flex:0 0 3.2em;color:#888;text-align:right;padding-right:.6em;user-select:none}
.text{flex:1}.whole{white-space:pre-wrap;margin:0;font:inherit}
.hl{background:#fff3bf;border-left-color:#e0a800}
""".strip()

SCRIPT = """
(function(){
function clear(){document.querySelectorAll('.hl,.active,.claim').forEach(function(e){
e.classList.remove('hl');e.classList.remove('active');e.classList.remove('claim');});}
function show(n){clear();var chip=document.getElementById('chip-'+n);if(!chip){return;}
chip.classList.add('active');var claim=document.getElementById('claim-'+n);
if(claim){claim.classList.add('claim');}
var first=null;(chip.getAttribute('data-cites')||'').split(' ').forEach(function(t){
if(!t){return;}var p=t.split(':');var ids=p[1]==='all'?[p[0]+'-all']:
p[1].split(',').map(function(l){return p[0]+'-L'+l;});
ids.forEach(function(id){var e=document.getElementById(id);if(e){e.classList.add('hl');
if(!first){first=e;}}});});
if(first){first.scrollIntoView({block:'center'});}}
function fromHash(){var m=/^#c(\\d+)$/.exec(location.hash);if(m){show(m[1]);}}
window.addEventListener('hashchange',fromHash);fromHash();
})();
""".strip()


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


CSP = (f"default-src 'none'; style-src {_hash(STYLE)}; script-src {_hash(SCRIPT)}; "
       "base-uri 'none'; form-action 'none'")


def _esc(text: str) -> str:
    return html.escape(text.translate(_DELETE))


def _cites(c: AnalysedCitation, index: dict[int, int]) -> str:
    """``s0:2,3 s1:all``: each target's source and the labels of its lines (or all)."""
    out: list[str] = []
    for t in c.targets:
        if t.source is None or not t.ok and not t.lines:
            continue
        i = index.get(id(t.source))
        if i is None:
            continue
        if t.lines:
            out.append(f"s{i}:" + ",".join(str(ln.label) for ln in t.lines))
        else:
            out.append(f"s{i}:all")
    return " ".join(out)


def _answer_html(a: AnalysedCase, index: dict[int, int]) -> str:
    text = a.answer
    by_span: dict[tuple[int, int], list[AnalysedCitation]] = {}
    for c in a.citations:
        by_span.setdefault((c.citation.start, c.citation.end), []).append(c)
    edits: list[tuple[Edit, list[AnalysedCitation]]] = [
        (e, by_span.pop((e.start, e.end), [])) for e in residue_edits(text, a.scan_result)]
    edits += [(Edit(s, e), cs) for (s, e), cs in by_span.items()]  # provider citations
    edits.sort(key=lambda x: (x[0].start, x[0].end))
    # Claims are marked where they lie wholly in a kept stretch of text (the common case).
    claims = {c.number: c.claim for c in a.citations}
    out: list[str] = []
    pos = 0
    for e, cits in edits:
        if e.start < pos:
            continue
        piece = apply_edits(text[pos:e.end], [Edit(e.start - pos, e.end - pos, e.replacement)])
        out.append(_with_claims(piece, pos, cits, claims))
        for c in cits:
            cites = _cites(c, index)
            cls = "chip" if c.resolution.ok and cites else "chip problem"
            out.append(f'<a class="{cls}" id="chip-{c.number}" href="#c{c.number}" '
                       f'data-cites="{html.escape(cites, quote=True)}">{c.number}</a>')
        pos = e.end
    out.append(_esc(text[pos:]))
    return "".join(out)


def _with_claims(piece: str, offset: int, cits: list[AnalysedCitation],
                 claims: dict[int, tuple[int, int]]) -> str:
    """``piece`` escaped, with the claim of the (last) citation that follows it wrapped in a
    span when the claim ends inside the piece as kept."""
    for c in reversed(cits):
        s, e = claims[c.number]
        s, e = s - offset, e - offset
        if 0 <= s < e <= len(piece) and piece[s:e].strip():
            return (_esc(piece[:s]) + f'<span id="claim-{c.number}">' + _esc(piece[s:e])
                    + "</span>" + _esc(piece[e:]))
    return _esc(piece)


def _source_html(i: int, src: Source) -> str:
    title = src.title or src.id
    parts = [f'<section class="source" id="s{i}"><h2>{_esc(title)}</h2>',
             f'<div class="meta">{_esc(src.id)}']
    if src.url:
        parts.append(f" · {_esc(src.url)}")  # as text: the page loads and follows nothing
    parts.append("</div>")
    if src.lines:
        for ln in src.lines:
            parts.append(f'<div class="line" id="s{i}-L{ln.label}"><span class="label">'
                         f'L{ln.label}</span><span class="text">'
                         f"{_esc(src.text[ln.start:ln.end])}</span></div>")
    else:
        parts.append(f'<pre class="whole" id="s{i}-all">{_esc(src.text)}</pre>')
    parts.append("</section>")
    return "".join(parts)


def render_page(a: AnalysedCase) -> str:
    """The page of ``a`` (see the module)."""
    sources = a.material.sources
    index = {id(s): i for i, s in enumerate(sources)}
    title = _esc(a.case.id or "answer")
    question = f'<p class="meta">{_esc(a.case.question)}</p>' if a.case.question else ""
    body_sources = "".join(_source_html(i, s) for i, s in enumerate(sources))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{title}</title>\n<style>{STYLE}</style></head>\n<body>\n"
        f'<main><h1 class="meta">{title}</h1>{question}'
        f'<div class="answer">{_answer_html(a, index)}</div></main>\n'
        f"<aside>{body_sources}</aside>\n<script>{SCRIPT}</script>\n</body></html>\n"
    )
