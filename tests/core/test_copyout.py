"""Copying out: clean text, Markdown with footnotes in reading order, inert HTML with links;
never a private-use marker character."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citeview.core.analysis import analyse
from citeview.core.cases import Case
from citeview.core.copyout import copy_out, to_html, to_markdown, to_text
from citeview.core.stripping import PRIVATE_MARKER_CHARS

S, D, T = "\ue200", "\ue202", "\ue201"
DEMO = Path(__file__).parents[2] / "resources" / "demo" / "demo.jsonl"
TOOL = ("Citation Marker: \ue200cite\ue202turn0file0\ue201\nTitle: Handbook\n"
        "URL: https://hr.example/handbook\n\n[L1] Staff get 25 days of leave.\n"
        "[L2] Leave carries over up to 5 days.\n[L3] Sick leave is separate.\n\n"
        "Citation Marker: \ue200cite\ue202turn1search0\ue201\nTitle: News <b>bold</b>\n"
        "URL: javascript:alert(1)\n\n[L1] Unions welcomed the <script>alert(1)</script> rule.")


def M(*parts: str) -> str:
    return S + "cite" + "".join(D + p for p in parts) + T


def case() -> Case:
    answer = (f"Sick leave is separate.{M('turn0file0', 'L3')} Staff get 25 days "
              f"{M('turn0file0', 'L1-L2')}. Unions <img src=x onerror=alert(1)> agreed."
              f"{M('turn1search0', 'turn0file0', 'L1')} Again.{M('turn0file0', 'L3')}")
    return Case("c", answer, tool_outputs=[TOOL])


def test_footnotes_are_numbered_in_reading_order_with_urls_and_locators() -> None:
    out = copy_out(analyse(case()))
    refs = [p for p in out.pieces if isinstance(p, list)]
    assert refs == [[1], [2], [3, 4], [1]]  # the same source and locator reuse their number
    assert [(f.number, f.source_id, f.locator, f.url) for f in out.footnotes] == [
        (1, "turn0file0", "L3", "https://hr.example/handbook"),
        (2, "turn0file0", "L1-L2", "https://hr.example/handbook"),
        (3, "turn1search0", "L1", "javascript:alert(1)"),
        (4, "turn0file0", "L1", "https://hr.example/handbook")]
    assert out.footnotes[1].quote == ["Staff get 25 days of leave.",
                                      "Leave carries over up to 5 days."]


def test_markdown() -> None:
    md = to_markdown(analyse(case()))
    assert md.startswith("Sick leave is separate.[^1] Staff get 25 days[^2]. Unions")
    assert "agreed.[^3][^4] Again.[^1]\n" in md
    assert "[^2]: Handbook, <https://hr.example/handbook>, L1-L2 (turn0file0)\n" \
        "    > Staff get 25 days of leave.\n    > Leave carries over up to 5 days.\n" in md
    assert [int(n) for n in re.findall(r"^\[\^(\d+)\]:", md, re.M)] == [1, 2, 3, 4]


def test_html_is_inert_and_links_only_http() -> None:
    doc = to_html(analyse(case()))
    assert "<img" not in doc and "<script" not in doc and "<b>" not in doc
    assert "&lt;img src=x onerror=alert(1)&gt;" in doc
    assert 'href="javascript' not in doc
    assert '<a href="https://hr.example/handbook" rel="noopener noreferrer">' in doc
    assert "default-src 'none'" in doc
    assert [int(n) for n in re.findall(r'<li id="fn-(\d+)">', doc)] == [1, 2, 3, 4]


def test_text_is_the_clean_answer() -> None:
    assert to_text(analyse(case())) == ("Sick leave is separate. Staff get 25 days. Unions "
                                        "<img src=x onerror=alert(1)> agreed. Again.")


@pytest.mark.parametrize("render", [to_text, to_markdown, to_html])
def test_no_private_use_marker_characters_in_any_demo_case(render) -> None:  # type: ignore[no-untyped-def]
    for line in DEMO.read_text(encoding="utf-8").splitlines():
        a = analyse(Case.from_dict(json.loads(line)))
        out = render(a)
        assert not any(ch in out for ch in PRIVATE_MARKER_CHARS), a.case.id


def test_strip_as_markdown_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citeview.cli import main

    f = tmp_path / "c.json"
    c = case()
    f.write_text(json.dumps({"id": c.id, "answer": c.answer, "tool_outputs": c.tool_outputs}),
                 encoding="utf-8")
    assert main(["strip", "--as", "markdown", str(f)]) == 0
    assert capsys.readouterr().out == to_markdown(analyse(c))
    assert main(["strip", "--as", "html", str(DEMO)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 7 and all(r["answer"].startswith("<!DOCTYPE html>") for r in rows)
