"""citeview page: one self-contained, inert HTML file; chips highlight the cited lines in a real
browser (headless Chromium, skipped when absent); model text never loads anything."""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import re
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.core.analysis import analyse
from citeview.core.cases import Case
from citeview.core.page import render_page

DEMO = Path(__file__).parents[2] / "resources" / "demo" / "demo.jsonl"
S, D, T = "\ue200", "\ue202", "\ue201"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def demo_case(case_id: str) -> Case:
    for line in DEMO.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d["id"] == case_id:
            return Case.from_dict(d)
    raise KeyError(case_id)


def sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def evil_case(port: int) -> Case:
    img = f"<img src=http://127.0.0.1:{port}/x.png>"
    tool = (f"Citation Marker: {S}cite{D}turn0file0{T}\nTitle: {img}\nURL: http://127.0.0.1:{port}/u\n\n"
            f"[L1] A line {img} <script>fetch('http://127.0.0.1:{port}/s')</script>\n"
            f"[L2] <link rel=stylesheet href=http://127.0.0.1:{port}/c.css>")
    answer = (f"Look {img} here.{S}cite{D}turn0file0{D}L1{T} <iframe src=http://127.0.0.1:{port}/f>"
              f"</iframe> and <style>@import url(http://127.0.0.1:{port}/i.css)</style>."
              f"{S}cite{D}turn0file0{D}L2{T}")
    return Case("evil", answer, "<b>q</b>", tool_outputs=[tool])


def test_page_is_self_contained_with_a_strict_csp(tmp_path: Path) -> None:
    out = tmp_path / "p.html"
    assert main(["page", str(DEMO), "--case", "demo-line-level", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    (csp,) = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    (style,) = re.findall(r"<style>(.*?)</style>", page, re.S)
    (script,) = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert csp == (f"default-src 'none'; style-src {sha(style)}; script-src {sha(script)}; "
                   "base-uri 'none'; form-action 'none'")
    assert not re.search(r"\b(src|srcset|action)=", page)
    assert set(re.findall(r'href="([^"]*)"', page)) <= {f"#c{n}" for n in range(1, 100)}
    assert not any(ch in page for ch in "\ue200\ue201\ue202")
    assert page.count('class="chip') == len(analyse(demo_case("demo-line-level")).citations)


def test_model_text_is_escaped() -> None:
    page = render_page(analyse(evil_case(9)))
    body = page.split("</style>", 1)[1].rsplit("<script>", 1)[0]
    for tag in ("<img", "<iframe", "<link", "<b>"):
        assert tag not in body
    assert body.count("<script") == 0 and body.count("<style") == 0
    assert "&lt;img src=http://127.0.0.1:9/x.png&gt;" in body


def test_the_page_is_written_atomically_and_a_bad_case_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "p.html"
    out.write_text("old", encoding="utf-8")
    assert main(["page", str(DEMO), "--case", "nope", "-o", str(out)]) == 2
    assert "--case nope" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["p.html"]


def dump_dom(tmp_path: Path, url: str, name: str) -> str:
    assert CHROMIUM is not None
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-extensions", "--disable-background-networking",
         f"--user-data-dir={tmp_path / ('profile-' + name)}", "--dump-dom", url],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
@pytest.mark.parametrize("case_id", ["demo-line-level", "demo-wild-forms"])
def test_every_chip_highlights_its_cited_lines_in_chromium(tmp_path: Path, case_id: str) -> None:
    a = analyse(demo_case(case_id))
    page = tmp_path / "p.html"
    page.write_text(render_page(a), encoding="utf-8")
    index = {id(s): i for i, s in enumerate(a.material.sources)}
    expected = {}
    for c in a.citations:
        ids = set()
        for t in c.targets:
            if t.source is not None and t.lines:
                ids |= {f"s{index[id(t.source)]}-L{ln.label}" for ln in t.lines}
        expected[c.number] = ids
    assert any(expected.values())

    def run(n: int) -> tuple[int, set[str], set[str]]:
        dom = dump_dom(tmp_path, f"{page.as_uri()}#c{n}", str(n))
        hl = set(re.findall(r'class="line hl" id="([^"]+)"', dom))
        active = set(re.findall(r'class="chip[^"]*active[^"]*" id="chip-(\d+)"', dom))
        return n, hl, active

    with ThreadPoolExecutor(max_workers=4) as pool:
        for n, hl, active in pool.map(run, list(expected)):
            assert hl == expected[n], n
            assert active == {str(n)}


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        _Recorder.requests.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_model_html_loads_nothing_from_a_local_server(tmp_path: Path) -> None:
    _Recorder.requests = []
    server = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    server.timeout = 0.2
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        # The server answers (a control), then forget what the control asked.
        import urllib.request
        urllib.request.urlopen(f"http://127.0.0.1:{port}/control", timeout=5).close()
        assert _Recorder.requests == ["/control"]
        _Recorder.requests = []
        page = tmp_path / "evil.html"
        page.write_text(render_page(analyse(evil_case(port))), encoding="utf-8")
        for n in (1, 2):
            dom = dump_dom(tmp_path, f"{page.as_uri()}#c{n}", f"evil{n}")
            assert f'id="chip-{n}"' in dom
        assert _Recorder.requests == []
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# --------------------------------------------------------------------------- issue 25 #5


def md_case() -> Case:
    tool = (f"Citation Marker: {S}cite{D}turn0file0{T}\nTitle: Fares\n\n"
            "[L1] Single rides cost $2.90.\n[L2] Monthly passes stay at $127.")
    answer = (f"## Fares\n\nA **single ride** costs $2.90.{S}cite{D}turn0file0{D}L1{T}\n\n"
              f"- Monthly passes stay at *$127*.{S}cite{D}turn0file0{D}L2{T}\n"
              "- See [the site](https://evil.example/x) and ![a chart](https://evil.example/c.png)"
              "\n\n`<b>code</b>`\n")
    return Case("md", answer, "Fares?", tool_outputs=[tool])


def test_the_answer_is_rendered_markdown_and_stays_inert() -> None:
    page = render_page(analyse(md_case()))
    body = page.split("</style>", 1)[1].rsplit("<script>", 1)[0]
    plain = re.sub(r'</?span( class="cl[^"]*")?>', "", body)  # without the claims' spans
    assert "<h2>Fares</h2>" in body and "<strong>single ride</strong>" in plain
    assert "<li>" in body and "<em>$127</em>" in plain
    assert "<code>&lt;b&gt;code&lt;/b&gt;</code>" in body
    for raw in ("## ", "**", "- Monthly", "](https"):
        assert raw not in body, raw
    # Links keep their text, not their target; an image is its alt text: nothing to load.
    assert '<span class="link">the site</span>' in body and "[image: a chart]" in body
    assert "evil.example" not in body and "<img" not in body
    # Chips in place, numbered from the analysis; each claim is wrapped in its class.
    assert re.findall(r'id="chip-(\d+)"', body) == ["1", "2"]
    claim1 = "".join(re.findall(r'<span class="cl cl-1">([^<]*)</span>', body))
    assert claim1 == "A single ride costs $2.90."
    claim2 = "".join(re.findall(r'<span class="cl cl-2">([^<]*)</span>', body))
    assert "Monthly passes stay at" in claim2 and "$127" in claim2


def test_a_dataset_page_holds_every_case_with_a_list(tmp_path: Path) -> None:
    out = tmp_path / "all.html"
    assert main(["page", str(DEMO), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    ids = [json.loads(line)["id"] for line in DEMO.read_text(encoding="utf-8").splitlines()]
    assert len(ids) > 1
    nav = page.split("<nav>", 1)[1].split("</nav>", 1)[0]
    assert re.findall(r'href="#(k\d+)"', nav) == [f"k{k}" for k in range(len(ids))]
    for k, cid in enumerate(ids):
        assert cid in nav
        section = page.split(f'id="k{k}" data-prefix="k{k}-">', 1)[1]
        section = section.split('<div class="case', 1)[0]
        assert section.count('class="chip') == len(analyse(demo_case(cid)).citations), cid
    assert page.count('<div class="case shown"') == 1  # the first, until one is chosen


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_case_list_shows_one_case_and_its_chips_work(tmp_path: Path) -> None:
    out = tmp_path / "all.html"
    assert main(["page", str(DEMO), "-o", str(out)]) == 0
    a = analyse(demo_case("demo-block-level"))
    ids = [json.loads(line)["id"] for line in DEMO.read_text(encoding="utf-8").splitlines()]
    k = ids.index("demo-block-level")
    dom = dump_dom(tmp_path, f"{out.as_uri()}#k{k}", "case")
    assert re.findall(r'<div class="case shown" id="(k\d+)"', dom) == [f"k{k}"]
    assert re.findall(r'<a href="#(k\d+)" class="current"', dom) == [f"k{k}"]
    dom = dump_dom(tmp_path, f"{out.as_uri()}#k{k}-c1", "chip")
    assert re.findall(r'<div class="case shown" id="(k\d+)"', dom) == [f"k{k}"]
    assert re.findall(r'class="chip[^"]*active[^"]*" id="(k\d+-chip-\d+)"', dom) == [
        f"k{k}-chip-1"]
    src = a.citations[0].targets[0].source
    assert src is not None
    i = [s.id for s in a.material.sources].index(src.id)
    assert re.search(f'<section class="source cited" id="k{k}-s{i}">', dom)
    assert 'class="line hl"' in dom


def test_a_session_page_shows_verdicts_and_notes(tmp_path: Path) -> None:
    from citeview.session import Session
    from citeview.session.edits import annotation_edit, review_edit
    from citeview.session.model import AnnotationKey, ReviewState

    data = tmp_path / "two.jsonl"
    data.write_text("".join(json.dumps(demo_case(cid).to_dict()) + "\n"
                            for cid in ("demo-line-level", "demo-block-level")), encoding="utf-8")
    path = tmp_path / "two.citeview"
    from citeview.core.inputs import load_input

    ds = load_input(str(data))
    s = Session.create(str(path), ds, annotator="alice")
    ds.close()
    c = s.analysed("demo-line-level").citations[1]
    key = AnnotationKey("demo-line-level", c.number, c.anchor, c.source_ids[0])
    annotation_edit(s, key, verdict="partially supported", note="<b>fare</b> is per 30 min",
                    claim=c.claim_text).do()
    review_edit(s, "demo-line-level", state=ReviewState.DONE, note="fares checked").do()
    s.close()
    out = tmp_path / "p.html"
    assert main(["page", str(path), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    row = re.search(r'<tr data-c="2">(.*?)</tr>', page, re.S)
    assert row is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
    assert cells == ["2", c.source_ids[0], "partially supported",
                     "&lt;b&gt;fare&lt;/b&gt; is per 30 min", "alice"]
    assert "Case reviewed by alice: done · <span class=\"note\">fares checked</span>" in page
    assert re.search(r'class="chip judged" id="k0-chip-2"', page)
    assert not re.search(r'class="chip[^"]*judged[^"]*" id="k0-chip-1"', page)
    n = len(analyse(demo_case("demo-line-level")).citations)
    assert f"1/{n} judged" in page.split("</nav>")[0]
    if CHROMIUM is not None:  # the verdict's row lights up with its chip
        dom = dump_dom(tmp_path, f"{out.as_uri()}#k0-c2", "session")
        assert re.search(r'<tr data-c="2" class="active">', dom)
