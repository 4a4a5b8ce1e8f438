"""``report`` counts per reason (per lint code, per source kind) and ``agree`` agreement per
reason, checked against values worked out by hand (issue 30)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.core.cases import Case
from citeview.core.datasets import ListDataset
from citeview.resource_files import resource_path
from citeview.session import edits
from citeview.session.model import citation_slots
from citeview.session.protocol import ReviewStore
from citeview.session.store import Session

WRONG, LINES, NUMBER, OUTDATED = ("wrong source", "right source, wrong lines",
                                  "number or date differs", "outdated source")


def _cases() -> ListDataset:
    with open(resource_path("demo", "demo.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    keep = [Case.from_dict(r, r["id"]) for r in rows if r["id"] in ("demo-file",
                                                                    "demo-rule-breaking")]
    return ListDataset(keep, None, "jsonl")


def _judge(s: ReviewStore, case_id: str, number: int, verdict: str,
           reasons: list[str]) -> None:
    key = citation_slots(s.analysed(case_id))[number - 1].keys(case_id)[0]
    edits.annotation_edit(s, key, verdict=verdict, reasons=reasons).do()


def _cli(*args: str) -> str:
    """What ``citeview ARGS`` prints (run in this process: the same entry point)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    assert code == 0, err.getvalue()
    return out.getvalue()


def test_report_counts_reasons_per_lint_code_and_source_kind(tmp_path: Path) -> None:
    path = str(tmp_path / "r.citeview")
    with Session.create(path, _cases(), annotator="ana") as s:
        _judge(s, "demo-file", 1, "partially supported", [LINES])  # file, no lint
        _judge(s, "demo-file", 2, "unsupported", [LINES, NUMBER])  # file, no lint
        _judge(s, "demo-rule-breaking", 1, "partially supported", [LINES])  # line, CV301
        _judge(s, "demo-rule-breaking", 3, "unsupported", [WRONG])  # unresolved, CV201
        _judge(s, "demo-rule-breaking", 2, "supported", [])  # no reason: not counted
    report = json.loads(_cli("report", "--format", "json", path))
    reasons = report["reasons"]
    assert reasons[LINES] == {"count": 3, "by_lint_code": {"CV301": 1},
                              "by_source_kind": {"file": 2, "line": 1}}
    assert reasons[NUMBER] == {"count": 1, "by_lint_code": {}, "by_source_kind": {"file": 1}}
    assert reasons[WRONG] == {"count": 1, "by_lint_code": {"CV201": 1},
                              "by_source_kind": {"unresolved": 1}}
    assert reasons[OUTDATED]["count"] == 0  # every reason of the list is shown
    text = _cli("report", path)
    assert "right source, wrong lines" in text and "lint CV301 1" in text
    page = _cli("report", "--format", "html", path)
    assert "<td>right source, wrong lines</td><td class=\"n\">3</td><td>CV301 1</td>" in page


def test_agree_compares_reasons_per_reason(tmp_path: Path) -> None:
    a, b = str(tmp_path / "a.citeview"), str(tmp_path / "b.citeview")
    # Four citation sources judged by both; the reasons each gave:
    #   1: A {wrong}           B {wrong}
    #   2: A {wrong, outdated} B {outdated}
    #   3: A {}                B {wrong}
    #   4: A {}                B {}
    # wrong source: yes/yes, yes/no, no/yes, no/no -> 2 of 4 agree (50%); each side says yes
    # half the time, so chance agreement is 0.5 and kappa (0.5 - 0.5) / (1 - 0.5) = 0.
    # outdated source: yes/yes then no/no three times -> 100%; chance 0.25^2 + 0.75^2 = 0.625,
    # kappa (1 - 0.625) / (1 - 0.625) = 1.
    given = {a: [[WRONG], [WRONG, OUTDATED], [], []], b: [[WRONG], [OUTDATED], [WRONG], []]}
    for path, who in ((a, "ana"), (b, "bob")):
        with Session.create(path, _cases(), annotator=who) as s:
            for n, reasons in enumerate(given[path], 1):
                _judge(s, "demo-rule-breaking", n, "unsupported", reasons)
    out = json.loads(_cli("agree", a, b, "--format", "json"))
    assert out["items"] == 4 and out["percent_agreement"] == 1.0
    assert out["reasons"][WRONG] == {"both": 1, "only_a": 1, "only_b": 1, "neither": 1,
                                     "percent_agreement": 0.5, "kappa": 0.0}
    assert out["reasons"][OUTDATED] == {"both": 1, "only_a": 0, "only_b": 0, "neither": 3,
                                        "percent_agreement": 1.0,
                                        "kappa": pytest.approx(1.0)}
    # Same verdicts, different reasons: listed as disagreements with both sides' reasons.
    assert [(d["citation"], d["a"]["reasons"], d["b"]["reasons"])
            for d in out["disagreements"]] == [(2, [WRONG, OUTDATED], [OUTDATED]),
                                               (3, [], [WRONG])]
    text = _cli("agree", a, b)
    assert "wrong source: 50.0%, kappa 0.000 (1 / 1 / 1 / 1)" in text
    assert "reasons: A (none) / B wrong source" in text


def test_merge_keeps_both_sides_reasons_evidence_and_corrections(tmp_path: Path) -> None:
    import shutil

    from citeview.session.merge import merge_sessions

    a, b = str(tmp_path / "a.citeview"), str(tmp_path / "b.citeview")
    with Session.create(a, _cases(), annotator="ana") as s:
        s.set_reasons([WRONG, "stale"])
        key = citation_slots(s.analysed("demo-file"))[0].keys("demo-file")[0]
        edits.evidence_edit(s, key, 0, 4, text="abcd").do()  # made before the copy
    shutil.copy(a, b)
    with Session.open(b, annotator="ana") as s:  # the same name on both sides
        edits.annotation_edit(s, key, verdict="unsupported", reasons=["stale"]).do()
        edits.remove_citation_edit(s, "demo-file", s.analysed("demo-file").citations[1]).do()
    with Session.open(a, readonly=True) as sa, Session.open(b, readonly=True) as sb:
        merged, _ = merge_sessions(sa, sb, str(tmp_path / "m.citeview"))
    with merged:
        assert merged.reasons == (WRONG, "stale")
        assert sorted((e.annotator, e.text) for e in merged.evidence()) == [
            ("ana (A)", "abcd"), ("ana (B)", "abcd")]  # one span each, ids told apart
        assert [(c.annotator, c.kind.value) for c in merged.corrections()] == [
            ("ana (B)", "remove")]
        got = merged.annotation(key, "ana (B)")
        assert got is not None and got.reasons == ("stale",)
