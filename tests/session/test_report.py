"""The review report on a session with hand-chosen verdicts (see _review_cases.py)."""

from __future__ import annotations

import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _review_cases import SUP, case, session_a

from citeview.core.lint import lint
from citeview.session import Annotation, Session, case_citations
from citeview.session.report import render_html, render_text, summarize, write_report


def test_summary_numbers_match_the_definitions(tmp_path: Path) -> None:
    with session_a(tmp_path) as s:
        rep = summarize(s)
    # Progress: c1 done, c2 in progress, c3 not started.
    assert rep["cases"] == {"total": 3, "done": 1, "in_progress": 1, "not_started": 1}
    # 3 + 3 + 1 citations, one source each; 6 with a verdict; decided = 6 - 1 "cannot tell"
    assert rep["citations"] == {"markers": 7, "sources": 7, "with_verdict": 6, "decided": 5,
                                "orphaned_annotations": 0}
    assert rep["verdicts"] == {"supported": 2, "partially supported": 1, "unsupported": 2,
                               "cannot tell": 1, "(no verdict)": 1}
    # precision = (2 supported + 0.5 x 1 partially supported) / 5 decided = 2.5 / 5 = 0.5
    # plain supported share = 2 / 5 = 0.4
    assert rep["precision"]["precision"] == pytest.approx(0.5)
    assert rep["precision"]["supported_share"] == pytest.approx(0.4)
    # line sources: c1#1 sup, c1#2 part, c2#1 sup -> 0 unsupported of 3 decided;
    # block sources: c1#3 uns, c2#3 uns -> 2 of 2. (c2#2 "cannot tell" is not decided.)
    assert {k: (v["unsupported"], v["decided"]) for k, v in
            rep["unsupported_by_kind"].items()} == {"block": (2, 2), "line": (0, 3)}
    # Recall over the reviewed cases c1, c2 (c3: no verdict, not done):
    # c1: s1 [sup] yes, s2 [part] no, s3 [uns] no, s4 uncited no -> 1 of 4
    # c2: heading excluded; s1 [sup] yes, s2 [cannot tell, uns] no -> 1 of 2
    # recall = 2 / 6
    r = rep["recall"]
    assert (r["cases"], r["sentences"], r["supported"], r["uncited"]) == (2, 6, 2, 1)
    assert r["recall"] == pytest.approx(2 / 6)
    # lint counts per code equal what lint finds case by case (c3 cites an unknown source)
    expected: dict[str, int] = {}
    for cid in ("c1", "c2", "c3"):
        for d in lint(case(cid)):
            expected[d.code] = expected.get(d.code, 0) + 1
    assert {k: v["count"] for k, v in rep["lint"].items()} == expected == {"CV201": 1}
    assert [(x["case_id"], x["citation"]) for x in rep["unsupported_examples"]] == [
        ("c1", 3), ("c2", 3)]


def test_nothing_judged_reports_not_applicable(tmp_path: Path) -> None:
    with Session.create(str(tmp_path / "e.citeview"), [case("c1")]) as s:
        rep = summarize(s)
        text = render_text(rep)
    assert rep["precision"]["precision"] is None and rep["recall"]["recall"] is None
    assert "Citation precision: n/a" in text and "(nothing decided)" in text


def test_text_report_states_the_arithmetic(tmp_path: Path) -> None:
    out = io.StringIO()
    with session_a(tmp_path) as s:
        write_report(s, out, "text")
    text = out.getvalue()
    assert "Cases: 1 of 3 done, 1 in progress, 1 not started" in text
    assert ("Citation precision: 50.0% (supported 2 + 0.5 x partially supported 1) / decided 5;"
            " supported share 40.0%") in text
    assert "Citation recall: 33.3% (2 of 6 sentences supported, 1 uncited" in text
    assert "CV201 unknown-source" in text


def test_json_report_is_the_summary(tmp_path: Path) -> None:
    out = io.StringIO()
    with session_a(tmp_path) as s:
        write_report(s, out, "json")
        assert json.loads(out.getvalue()) == json.loads(json.dumps(summarize(s)))


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.urls += [v or "" for k, v in attrs if k in ("src", "href")]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_report_is_self_contained_with_charts_and_escaped_text(tmp_path: Path) -> None:
    with session_a(tmp_path) as s:
        slot = case_citations(s.get_case("c3"))[0]
        evil = '<script>alert("x")</script>'
        s.put_annotation(Annotation(slot.keys("c3")[0], evil, "unsupported", f"note {evil}",
                                    "2026-01-05T00:00:00.000Z", slot.claim))
        page = render_html(summarize(s))
    parser = _Collect()
    parser.feed(page)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert parser.urls == []  # nothing fetched: readable offline
    assert parser.tags.count("svg") == 2  # verdicts and lint codes
    assert evil not in page and "&lt;script&gt;" in page
    text = "".join(parser.text)
    assert f"note {evil}" in text  # shown as text, not run
    assert "CV201 unknown-source" in text and "50.0%" not in text  # 3 unsupported now


def test_annotator_filter_and_latest_verdict(tmp_path: Path) -> None:
    with session_a(tmp_path) as s:
        slot = case_citations(s.get_case("c1"))[2]
        # bo later calls c1#3 supported: the most recent verdict counts by default
        s.put_annotation(Annotation(slot.keys("c1")[0], "bo", SUP, "",
                                    "2026-01-09T00:00:00.000Z", slot.claim))
        both = summarize(s)
        ana = summarize(s, annotator="ana")
    assert both["verdicts"]["supported"] == 3 and both["verdicts"]["unsupported"] == 1
    assert ana["verdicts"]["supported"] == 2 and ana["verdicts"]["unsupported"] == 2
    assert both["session"]["annotators"] == ["ana", "bo"]
