"""One numbering of citations across the window's view-model, the session, export rows and lint.

Every layer reads the case's :class:`~citeview.core.analysis.AnalysedCase`; these tests check
that what a user sees agrees wherever it is shown, on generated answers that mix recovered,
degraded, multi-source and unknown-id markers.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeview.cli import main
from citeview.commands.lint import Record, lint_record
from citeview.core.cases import Case
from citeview.core.policy import Policy
from citeview.gui.state import build_case_view
from citeview.session import Session
from citeview.session.model import case_citations
from citeview.session.rows import iter_rows

S, D, T = "\ue200", "\ue202", "\ue201"
CONTEXT = "\n".join(f'<doc id="doc{i}" title="Doc {i}">\nFact number {i} is true.\n</doc>'
                    for i in (1, 2, 3))

MARKERS = st.one_of(
    st.sampled_from(["doc1", "doc2", "doc3", "nosuch"]).map(lambda s: f"{S}cite{D}{s}{T}"),
    st.lists(st.sampled_from(["doc1", "doc2", "doc3", "gone"]), min_size=2, max_size=3,
             unique=True).map(lambda ids: f"{S}cite{D}{D.join(ids)}{T}"),  # multi-source
    st.sampled_from(["doc1", "doc2", "doc3"]).map(lambda s: f"cite{s}"),  # degraded
    st.sampled_from(["doc1", "doc2"]).map(lambda s: f"{S}cite{D}{s} "),  # unterminated
    st.just(f"{S}cite{D}turn0file0{D}L9{T}"),  # unknown id with a locator
)
WORDS = st.sampled_from(["Fact one.", "Fact two holds", "and more", "*emph*", "\n\n", "`x`",
                         "Sure:", "Done."])
ANSWERS = st.lists(st.one_of(MARKERS, WORDS), min_size=1, max_size=12).map(" ".join)


def numbering_everywhere(answer: str, tmp: Path) -> None:
    case = Case("c", answer, "Q?", context=CONTEXT)
    with Session.create(str(tmp / "n.citeview"), [case], annotator="ana") as s:
        stored = s.get_case("c")
        view = build_case_view(stored, s.families)
        window = [(c.number, c.citation.raw, c.citation.source_ids) for c in view.citations]
        session = [(x.number, x.anchor, x.source_ids) for x in case_citations(stored, s.families)]
        assert session == window
        rows = [(r.number, r.anchor, r.source_id) for r in iter_rows(s, jobs=1)]
        expected = [(n, raw, sid) for n, raw, ids in window for sid in ids]
        assert rows == expected
        # Lint (the CLI's path) names the citation each finding is on, by the same numbers.
        report = lint_record(Record("x.json", None, None, "c", case=stored), Policy())
        by_number = {c.number: c.citation for c in view.citations}
        for f in report.findings:
            if f.origin is not None:
                continue
            if f.citation is None:
                assert not any(c.start <= f.start < c.end or f.start < c.end and c.start < f.end
                               for c in by_number.values() if f.end > f.start), f
                continue
            c = by_number[f.citation]
            assert (c.start <= f.start < c.end) if f.start == f.end else (
                f.start < c.end and c.start < f.end), (f, c)
            if f.code == "CV201":  # unknown source: the message names an id of that citation
                assert any(repr(sid) in f.message for sid in c.source_ids)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANSWERS)
def test_one_numbering_across_view_model_session_export_and_lint(answer: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        numbering_everywhere(answer, Path(tmp))


@pytest.mark.parametrize("fmt", ["json", "jsonl", "sarif"])
def test_lint_json_jsonl_and_sarif_carry_each_findings_citation_number(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    answer = (f"Fact one holds citedoc1. Fact two {S}cite{D}nosuch{T}. "
              f"Fact three {S}cite{D}doc3{T}")
    path = tmp_path / "c.case.json"
    path.write_text(json.dumps(Case("c", answer, context=CONTEXT).to_dict()), encoding="utf-8")
    assert main(["lint", str(path), "--format", fmt]) == 1
    out = capsys.readouterr().out
    if fmt == "json":
        findings = [f for c in json.loads(out)["cases"] for f in c["diagnostics"]]
    elif fmt == "jsonl":
        findings = [json.loads(line) for line in out.splitlines() if line.strip()]
    else:
        findings = [{"code": r["ruleId"], "citation": r["properties"]["citation"]}
                    for r in json.loads(out)["runs"][0]["results"]]
    pairs = {(f["code"], f["citation"]) for f in findings}
    assert ("CV107", 1) in pairs and ("CV201", 2) in pairs, out
