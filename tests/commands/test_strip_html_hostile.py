"""``strip --as html`` on one provider record (a bare Anthropic message, a Chat Completions or
Gemini response, a request/response exchange) writes the inert HTML document it writes for a
case, not a JSON line holding the record's id raw (issue 31, item 3). Opened in headless
Chromium, nothing in it loads from a local server that counts requests."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from make_hostile_inputs import records, write
from test_page import CHROMIUM, dump_dom

import citeview.session  # noqa: F401
from citeview.cli import main
from citeview.core.inputs import load_input

KINDS = sorted(records("http://x"))


class _Counter(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        _Counter.requests.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Counter.requests = []
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Counter)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        urllib.request.urlopen(f"{url}/control", timeout=5).close()  # it counts
        assert _Counter.requests == ["/control"]
        _Counter.requests = []
        yield url
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def strip_html(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["strip", "--as", "html", str(path)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("kind", KINDS)
def test_one_record_gives_the_document_a_case_gives(kind: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "http://127.0.0.1:9")[kind]
    html = strip_html(path, capsys)
    assert html.startswith("<!DOCTYPE html>") and '{"case"' not in html
    assert "<img" not in html and "<script>fetch" not in html and "<iframe" not in html
    case = load_input(str(path)).get(0)
    as_case = tmp_path / "case.json"
    as_case.write_text(json.dumps(case.to_dict()), encoding="utf-8")
    assert strip_html(as_case, capsys) == html


def test_a_dataset_of_records_prints_json_lines_inert_as_html(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = tmp_path / "all.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in records("http://127.0.0.1:9")
                             .values() if "request" in r), encoding="utf-8")
    out = strip_html(lines, capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows and all(r["answer"].startswith("<!DOCTYPE html>") for r in rows)
    assert "<" not in out and ">" not in out  # as JSON escapes: the same JSON, no tag


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_documents_load_nothing_in_chromium(tmp_path: Path, server: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    for kind, path in write(tmp_path / "in", server).items():
        page = tmp_path / f"{kind}.html"
        page.write_text(strip_html(path, capsys), encoding="utf-8")
        dom = dump_dom(tmp_path, page.as_uri(), kind)
        assert "An answer" in dom
    assert _Counter.requests == []
