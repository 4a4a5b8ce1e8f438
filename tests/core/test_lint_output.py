"""Lint output: compiler-style text, versioned JSON, JSON Lines, and SARIF 2.1.0 that validates
against the official schema (tests/data/sarif-schema-2.1.0.json, the OASIS errata01 schema)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from citeview.core.cases import Case
from citeview.core.lint import lint_parts
from citeview.core.lint_output import (
    FORMAT_VERSION,
    CaseReport,
    Summary,
    artifact_uri,
    locate,
    make_writer,
)
from citeview.core.markers import DELIMITER, START, STOP

DATA = Path(__file__).parent.parent / "data"
SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def M(*parts: str) -> str:
    return START + "cite" + "".join(DELIMITER + p for p in parts) + STOP


def _reports() -> list[CaseReport]:
    out = []
    for i, name in enumerate(["handbook-rule-breaking", "handbook-line-level"], start=1):
        case = Case.from_dict(json.loads((DATA / "samples" / f"{name}.case.json").read_text()))
        a, m = lint_parts(case)
        out.append(CaseReport("data/set.jsonl", i, case.id, locate(case, a, m)))
    dup_tool = f"Citation Marker: {M('turn0file0')}\n[L1] Text.\n"
    case = Case("dup", "Text." + M("turn0file0", "L1") + "\n", tool_outputs=[dup_tool, dup_tool])
    a, m = lint_parts(case)
    out.append(CaseReport("data/set.jsonl", 3, case.id, locate(case, a, m)))
    return out


def _render(fmt: str, reports: list[CaseReport]) -> str:
    w = make_writer(fmt)
    s = Summary()
    pieces = [w.begin()]
    for r in reports:
        s.add(r)
        pieces.append(w.case(r))
    pieces.append(w.end(s))
    return "".join(pieces)


def test_locate_gives_one_based_lines_and_code_point_columns() -> None:
    answer = "😀 line one\nsecond line 😀 " + M("turn9file9") + "\n"
    case = Case("c", answer)
    a, m = lint_parts(case)
    (f,) = locate(case, a, m)
    assert (f.code, f.line, f.column) == ("CV201", 2, 15)
    assert (f.end_line, f.end_column) == (2, 15 + len(M("turn9file9")))


def test_text_output_is_compiler_style_with_a_summary() -> None:
    text = _render("text", _reports())
    lines = text.splitlines()
    assert "data/set.jsonl:1:handbook-rule-breaking:7:44: CV201 unknown-source no source " \
           "'turn0file3' in the material; did you mean turn0file1?" in lines
    # Material findings name the string they are in; line and column are in that string.
    dup = [ln for ln in lines if " CV206 " in ln]
    assert dup and dup[0].startswith("data/set.jsonl:3:dup:1:1: CV206 duplicate-source-id ")
    assert dup[0].endswith("[in tool_outputs[1]]")
    assert "12 findings (7 error, 3 warning, 2 info) in 2 of 3 cases" in lines
    summary = text[text.index(" findings ("):]
    assert "CV201 unknown-source" in summary and "CV308 uncited-paragraph" in summary
    counts = {ln.split()[0]: int(ln.split()[-1]) for ln in summary.splitlines()[1:]}
    assert counts["CV308"] == 2 and counts["CV206"] == 1


def test_text_output_for_a_file_without_records_has_no_record_field() -> None:
    case = Case("c1", "Claim." + M("turn9file9") + "\n")
    a, m = lint_parts(case)
    r = CaseReport("one.case.json", None, "c1", locate(case, a, m))
    assert _render("text", [r]).startswith("one.case.json:c1:1:7: CV201 ")


def test_json_output_carries_format_version_every_case_and_a_summary() -> None:
    doc = json.loads(_render("json", _reports()))
    assert doc["format"] == "citeview-lint" and doc["version"] == FORMAT_VERSION
    assert [c["case_id"] for c in doc["cases"]] == ["handbook-rule-breaking",
                                                    "handbook-line-level", "dup"]
    assert doc["cases"][1]["diagnostics"] == []
    first = doc["cases"][0]["diagnostics"][0]
    assert set(first) >= {"code", "name", "severity", "message", "start", "end", "line",
                          "column", "end_line", "end_column"}
    assert doc["summary"]["cases"] == 3 and doc["summary"]["cases_with_findings"] == 2
    assert doc["summary"]["counts"]["CV303"] == 1
    dup = doc["cases"][2]["diagnostics"][0]
    assert dup["code"] == "CV206" and dup["origin"] == "tool_outputs[1]"


def test_json_output_for_no_cases_is_valid() -> None:
    doc = json.loads(_render("json", []))
    assert doc["cases"] == [] and doc["summary"]["cases"] == 0


def test_jsonl_output_is_one_finding_per_line() -> None:
    reports = _reports()
    lines = _render("jsonl", reports).splitlines()
    assert len(lines) == sum(len(r.findings) for r in reports)
    rows = [json.loads(ln) for ln in lines]
    assert all(r["version"] == FORMAT_VERSION for r in rows)
    assert rows[0]["record"] == 1 and rows[0]["case_id"] == "handbook-rule-breaking"
    assert rows[-1]["code"] == "CV206"


def test_sarif_output_validates_against_the_sarif_2_1_0_schema() -> None:
    doc = json.loads(_render("sarif", _reports()))
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    jsonschema.Draft4Validator(SCHEMA).validate(doc)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert doc["version"] == "2.1.0" and len(results) == 12
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    r0 = results[0]
    assert r0["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "data/set.jsonl"
    assert r0["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    assert {r["level"] for r in results} == {"error", "warning", "note"}


def test_sarif_output_without_results_validates() -> None:
    doc = json.loads(_render("sarif", []))
    jsonschema.Draft4Validator(SCHEMA).validate(doc)
    assert doc["runs"][0]["results"] == []


def test_schema_rejects_a_broken_log() -> None:
    # The validation above means something: a result without a message is refused.
    doc = json.loads(_render("sarif", _reports()))
    del doc["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(doc)


@pytest.mark.parametrize(("path", "uri"), [
    ("data/set.jsonl", "data/set.jsonl"),
    ("a b/c#d.json", "a%20b/c%23d.json"),
    ("/abs/x.jsonl", "file:///abs/x.jsonl"),
    ("-", "stdin"),
])
def test_artifact_uri(path: str, uri: str) -> None:
    assert artifact_uri(path) == uri
