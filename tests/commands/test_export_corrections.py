"""``citeview export`` of issue 30's data: corrected answers as chat SFT and preference pairs,
reasons and evidence in the row formats, all of it through json export and import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.core.cases import Case
from citeview.core.datasets import ListDataset
from citeview.core.markers import extract_citations
from citeview.resource_files import resource_path
from citeview.session import Session, edits
from citeview.session.model import annotation_key

START, SEP, STOP = "\ue200", "\ue202", "\ue201"


def _session(tmp_path: Path) -> str:
    with open(resource_path("demo", "demo.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    cases = [Case.from_dict(r, r["id"]) for r in rows if r["id"] in ("demo-file",
                                                                    "demo-block-level")]
    path = str(tmp_path / "s.citeview")
    with Session.create(path, ListDataset(cases, None, "jsonl"), annotator="ana") as s:
        analysed = s.analysed("demo-file")
        first = analysed.citations[0]
        key = annotation_key("demo-file", first, "deploy_py")
        source = next(x for x in analysed.material.sources if x.id == "deploy_py")
        line9 = source.text.index("def deploy")
        edits.annotation_edit(s, key, verdict="partially supported",
                              reasons=["right source, wrong lines"]).do()
        edits.evidence_edit(s, key, line9, line9 + 10, first_line=8, last_line=8,
                            text=source.text[line9:line9 + 10]).do()
        edits.relocate_edit(s, "demo-file", first, locator="L8-L10").do()
        claim = "Both limits are module constants."
        at = analysed.answer.index("| Retries | 3 |")
        edits.add_citation_edit(s, "demo-file", (at, at + len("| Retries | 3 |")),
                                "deploy_py", locator="L4").do()
        assert claim in analysed.answer
    return path


def test_corrections_export_as_pairs_and_sft(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = _session(tmp_path)
    pairs_out = tmp_path / "pairs.jsonl"
    assert main(["export", path, "--format", "corrections", "--shape", "pairs",
                 "-o", str(pairs_out)]) == 0
    pairs = [json.loads(x) for x in pairs_out.read_text(encoding="utf-8").splitlines()]
    assert len(pairs) == 1  # demo-block-level has no corrections
    pair = pairs[0]
    assert set(pair) >= {"prompt", "chosen", "rejected"}
    assert pair["case_id"] == "demo-file" and pair["annotator"] == "ana"
    original = Session.open(path, readonly=True)
    try:
        assert pair["rejected"] == [{"role": "assistant",
                                     "content": original.get_case("demo-file").answer}]
    finally:
        original.close()
    chosen = pair["chosen"][0]["content"]
    assert [(c.source_ids, c.locator) for c in extract_citations(chosen)] == [
        (("deploy_py",), "L8-L10"), (("deploy_py",), "L4"), (("deploy_py",), "L4-L5"),
        (("deploy_py",), "L11-L15")]
    assert pair["prompt"][-1]["role"] == "user" and "def deploy" in pair["prompt"][-1]["content"]
    sft_out = tmp_path / "sft.jsonl"
    assert main(["export", path, "--format", "corrections", "-o", str(sft_out)]) == 0
    sft = [json.loads(x) for x in sft_out.read_text(encoding="utf-8").splitlines()]
    assert sft[0]["messages"][:-1] == pair["prompt"]
    assert sft[0]["messages"][-1] == {"role": "assistant", "content": chosen}
    assert main(["export", path, "--format", "jsonl", "--shape", "pairs"]) == 2
    assert "--shape applies to the corrections format" in capsys.readouterr().err


def test_reasons_and_evidence_are_in_the_row_exports(tmp_path: Path) -> None:
    path = _session(tmp_path)
    out = tmp_path / "rows.jsonl"
    assert main(["export", path, "--format", "jsonl", "-o", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    judged = [r for r in rows if r["verdict"] is not None]
    assert [(r["case_id"], r["citation"], r["reasons"], [e["lines"] for e in r["evidence"]])
            for r in judged] == [("demo-file", 1, ["right source, wrong lines"], ["L8"])]
    assert judged[0]["evidence"][0]["text"] == "def deploy"
    csv_out = tmp_path / "rows.csv"
    assert main(["export", path, "--format", "csv", "-o", str(csv_out)]) == 0
    text = csv_out.read_text(encoding="utf-8-sig")
    assert "right source, wrong lines" in text and "L8: def deploy" in text


def test_json_export_and_import_keep_reasons_evidence_and_corrections(tmp_path: Path) -> None:
    path = _session(tmp_path)
    doc = tmp_path / "s.json"
    assert main(["export", path, "-o", str(doc)]) == 0
    import jsonschema

    from citeview.session.interchange import schema

    exported = json.loads(doc.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema()).validate(exported)  # the schema knows them
    assert exported["annotations"][0]["reasons"] == ["right source, wrong lines"]
    copy = str(tmp_path / "copy.citeview")
    assert main(["import", str(doc), "-o", copy]) == 0
    with Session.open(path, readonly=True) as a, Session.open(copy, readonly=True) as b:
        assert a.evidence() == b.evidence() and len(b.evidence()) == 1
        assert a.corrections() == b.corrections() and len(b.corrections()) == 2
        assert [x.reasons for x in a.iter_annotations()] == \
            [x.reasons for x in b.iter_annotations()] == [("right source, wrong lines",)]
    # A malformed correction in a document is a one-line refusal, not a traceback.
    data = json.loads(doc.read_text(encoding="utf-8"))
    data["corrections"][0]["kind"] = "teleport"
    doc.write_text(json.dumps(data), encoding="utf-8")
    assert main(["import", str(doc), "-o", str(tmp_path / "bad.citeview")]) == 2
