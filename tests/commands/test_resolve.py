"""``citeview resolve``: rows a reviewer reads, the JSON, --document, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.core.markers import DELIMITER as D
from citeview.core.markers import START as S
from citeview.core.markers import STOP as E

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["resolve", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_text_rows_for_rule_breaking_sample(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, str(SAMPLES / "handbook-rule-breaking.case.json"))
    assert rc == 0 and err == ""
    rows = [line.split() for line in out.splitlines()]
    assert len(rows) == 10
    by_index = {r[0]: r for r in rows}
    assert by_index["3"][1:4] == ["turn0file3", "L1", "unknown-source"]
    assert by_index["4"][1:4] == ["turn0file0", "L12-L14", "line-out-of-range"]
    assert "past the last line, L5" in out.splitlines()[3]
    assert by_index["7"][1:4] == ["turn0file1", "L6-L5", "reversed-range"]
    assert '"Employees may work remotely up to three days per week."' in out.splitlines()[0]


def test_text_row_per_source_of_a_multi_source_citation(
        capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, str(SAMPLES / "transit-multi-turn.case.json"))
    rows = [line.split()[:4] for line in out.splitlines()]
    assert rows[1:3] == [["2", "turn0search1", "-", "whole-source"],
                         ["2", "turn1news0", "-", "whole-source"]]


def test_long_cited_text_is_abbreviated_in_text_and_full_in_json(
        capsys: pytest.CaptureFixture[str]) -> None:
    case = str(SAMPLES / "contract-block-level.case.json")
    _, out, _ = run(capsys, case)
    first = out.splitlines()[0]
    assert "…" in first and len(first) < 200
    rc, out, _ = run(capsys, case, "--json")
    data = json.loads(out)
    assert rc == 0
    assert [d["index"] for d in data] == [1, 2]
    t = data[0]["targets"][0]
    assert t["status"] == "whole-source" and t["label"] == "Block1" and t["kind"] == "block"
    assert t["text"].startswith("The service agreement") and t["text"].endswith("account owner.")
    assert t["text"].count("\n") == 2


def test_json_statuses_and_spans(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, str(SAMPLES / "handbook-rule-breaking.case.json"), "--json")
    data = json.loads(out)
    statuses = [d["status"] for d in data]
    assert statuses.count("ok") == 7
    oor = next(d for d in data if d["status"] == "line-out-of-range")["targets"][0]
    assert oor["out_of_range_end"] == "both" and oor["span"] is None and oor["text"] == ""
    rev = next(d for d in data if d["status"] == "reversed-range")["targets"][0]
    assert rev["lines"] == [5, 6]


def test_document_option_adds_a_file_source(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes.md"
    notes.write_bytes(b"# Notes\r\nsecond line\r\nthird line\r\n")
    case = tmp_path / "c.json"
    case.write_text(json.dumps({"id": "c", "answer": f"Claim.{S}cite{D}notes{D}L2-L3{E} "
                                f"More.{S}cite{D}notes{D}L4{E}"}), encoding="utf-8")
    rc, out, _ = run(capsys, str(case), "--document", f"notes={notes}", "--json")
    data = json.loads(out)
    assert rc == 0
    assert data[0]["targets"][0]["text"] == "second line\nthird line"
    assert data[0]["targets"][0]["title"] == "Notes"
    assert data[1]["targets"][0]["status"] == "line-out-of-range"
    # Without the document, the id is unknown.
    rc, out, _ = run(capsys, str(case), "--json")
    assert json.loads(out)[0]["status"] == "unknown-source"


def test_material_diagnostics_go_to_stderr_with_position(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "c.json"
    case.write_text(json.dumps({"answer": f"x{S}cite{D}a{D}L1{E}", "tool_outputs": [
        f"Citation Marker: {S}cite{D}a{E}\n[L1] one\n[L1] again"]}), encoding="utf-8")
    rc, out, err = run(capsys, str(case))
    assert rc == 0
    assert "tool_outputs[0]:3:1: CV501" in err
    assert out.split()[:4] == ["1", "a", "L1", "ok"]
    assert "2 lines" in out


def test_case_without_citations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "plain.json"
    case.write_text('{"answer": "No citations here."}', encoding="utf-8")
    rc, out, _ = run(capsys, str(case))
    assert rc == 0 and out.strip() == "plain: no citations"


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        (None, [], "no such file"),
        ("{not json", [], "invalid JSON at line 1"),
        ('["a"]', [], "unknown format"),
        ('{"answer": 3}', [], "\"answer\" must be a string"),
        ('{"answer": "x"}', ["--document", "noequals"], "expected ID=PATH"),
        ('{"answer": "x"}', ["--document", "a=/nonexistent/file.md"], "no such file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          content: str | None, args: list[str],
                                          message: str) -> None:
    path = tmp_path / "case.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    rc, out, err = run(capsys, str(path), *args)
    assert rc == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_dataset_and_plain_files_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """resolve reads every input format: a JSONL dataset (all cases, or --case) and plain files."""
    rc, out, _ = run(capsys, str(SAMPLES / "policies.dataset.jsonl"), "--json")
    rows = json.loads(out)
    assert rc == 0
    assert {r["case"] for r in rows} == {"handbook-line-level", "contract-block-level",
                                         "opinion-injected-context", "transit-multi-turn",
                                         "handbook-rule-breaking"}
    rc, out, _ = run(capsys, str(SAMPLES / "policies.dataset.jsonl"), "--case",
                     "transit-multi-turn", "--json")
    assert [r["source_ids"] for r in json.loads(out)][1] == ["turn0search1",
                                                           "turn1news0"]
    material = tmp_path / "m.txt"
    material.write_text(json.loads((SAMPLES / "handbook-line-level.case.json").read_text(
        encoding="utf-8"))["tool_outputs"][0], encoding="utf-8")
    answer = tmp_path / "a.txt"
    answer.write_text("Three days.\ue200cite\ue202turn0file0\ue202L1\ue201", encoding="utf-8")
    rc, out, _ = run(capsys, "--material", str(material), "--answer", str(answer))
    assert rc == 0 and "turn0file0" in out and " ok " in out
    assert "Employees may work remotely up to three days per week." in out


def test_all_shapes_fixture_rows(capsys: pytest.CaptureFixture[str]) -> None:
    case = Path(__file__).parent.parent / "data" / "material" / "all-shapes.case.json"
    rc, out, err = run(capsys, str(case))
    assert rc == 0
    assert "tool_outputs[1]:10:1: CV503" in err
    rows = [line.split()[:4] for line in out.splitlines()]
    assert rows[3:5] == [["4", "turn1view0", "-", "whole-source"],
                         ["4", "ctx1", "-", "whole-source"]]
    assert [r[3] for r in rows[-3:]] == ["line-out-of-range", "line-locator-on-unlined-source",
                                         "unknown-source"]
