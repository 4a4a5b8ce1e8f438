"""``citeview page``: every chip highlights, in a real browser (headless Chromium), what the
window's source view highlights for the same target, for every provider kind (and markers):
the exact characters of a character citation, the lines a span touches otherwise, nothing
(the source marked) where the window highlights nothing."""

from __future__ import annotations

import html
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import citeview.session  # noqa: F401  (the session loader)
from citeview.core.analysis import analyse
from citeview.core.inputs import load_input
from citeview.core.page import render_page
from tests.commands.test_page import CHROMIUM, DEMO, dump_dom

DATA = Path(__file__).parents[1] / "data" / "providers"
KINDS = {
    "anthropic-char.json": "chars",
    "anthropic-pages.json": "pages",
    "anthropic-blocks.json": "blocks",
    "anthropic-search-results.json": "blocks",
    "anthropic-web.json": "url",  # web search: its results have text
    "openai-responses.file-search.json": "whole",
    "openai-responses.web-search.json": "url",
    "gemini-web.json": "url",
    "chat-completion.json": "url",
}


def _text(fragment: str) -> str:
    fragment = re.sub(r'<span class="label">.*?</span>', "", fragment)
    return html.unescape(re.sub(r"<[^>]*>", "", fragment)).replace("\u200b", "")


def page_highlight(dom: str, section: str) -> tuple[bool, list[str], str]:
    """Of section ``section`` in a dumped DOM: whether it is marked cited, the text of its
    highlighted rows, and its highlighted exact text (rows joined by a line break)."""
    m = re.search(f'<section class="([^"]*)" id="{section}">(.*?)</section>', dom, re.S)
    assert m is not None, section
    rows = re.findall(r'<div class="(line[^"]*)"[^>]*>(.*?)</div>', m.group(2), re.S)
    hl_rows = [_text(body) for cls, body in rows if "hl" in cls.split()]
    exact = []
    for _, body in rows:
        segs = re.findall(r'<span class="(seg[^"]*)">(.*?)</span>', body, re.S)
        got = "".join(html.unescape(t) for cls, t in segs if "hl" in cls.split())
        if got:
            exact.append(got)
    return "cited" in m.group(1).split(), hl_rows, "\n".join(exact)


def window_highlight(view, target) -> tuple[list[str], str]:  # type: ignore[no-untyped-def]
    """What the window's source view highlights for ``target``: the text of its strongly
    highlighted lines (none when the highlight is exact characters), and the exact text."""
    view.highlight(target)
    text = view.text_view()
    blocks = text.strong_blocks
    if blocks is None or text.strong_exact:
        return [], view.highlighted_text() if text.strong_exact else ""
    doc = text.document()
    return [doc.findBlockByNumber(k).text() for k in range(blocks[0], blocks[1] + 1)], ""


def cases() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for name in KINDS:
        out.append((name, load_input(str(DATA / name)).get(0)))
    demo = load_input(str(DEMO))
    out += [(f"demo:{cid}", demo.get(demo.index_of(cid)))
            for cid in ("demo-block-level", "demo-document-level")]  # lines: test_page.py
    return out


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
@pytest.mark.parametrize(("name", "case"), cases(), ids=[n for n, _ in cases()])
def test_every_chip_highlights_what_the_window_highlights(
        source_view, tmp_path: Path, name: str, case) -> None:  # type: ignore[no-untyped-def]
    a = analyse(case)
    assert a.citations, name
    if name in KINDS:
        units = {t.unit for c in a.citations for t in c.targets}
        assert KINDS[name] in units, units
    page = tmp_path / "p.html"
    page.write_text(render_page(a), encoding="utf-8")
    index = {id(s): i for i, s in enumerate(a.material.sources)}

    def dump(n: int) -> tuple[int, str]:
        return n, dump_dom(tmp_path, f"{page.as_uri()}#c{n}", str(n))

    with ThreadPoolExecutor(max_workers=4) as pool:
        doms = dict(pool.map(dump, [c.number for c in a.citations]))
    highlighted = 0
    for c in a.citations:
        dom = doms[c.number]
        assert re.search(f'class="chip[^"]*active[^"]*" id="chip-{c.number}"', dom), c.number
        for t in c.targets:
            if t.source is None:
                continue
            cited, rows, exact = page_highlight(dom, f"s{index[id(t.source)]}")
            want_rows, want_exact = window_highlight(source_view, t)
            assert cited, (name, c.number, t.source_id)  # the source is shown, as the window
            assert (rows, exact) == (want_rows, want_exact), (name, c.number, t.source_id)
            highlighted += bool(rows or exact)
    if name not in ("openai-responses.web-search.json", "chat-completion.json"):
        assert highlighted, name  # (web results without text: the window shows no span)
