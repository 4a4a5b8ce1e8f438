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


def _answer_changed(tmp_path: Path, verdict: bool = True) -> str:
    """:func:`_session`, then demo-file's answer changed under its first citation (its marker
    and claim gone) and under the table row a citation was added to; demo-block-level gets a
    correction of its own that still fits."""
    path = _session(tmp_path)
    with Session.open(path) as s:
        if not verdict:  # evidence alone
            for a in s.annotations("demo-file"):
                edits.annotation_edit(s, a.key, verdict=None, reasons=[],
                                      annotator=a.annotator).do()
        block = s.analysed("demo-block-level")
        edits.remove_citation_edit(s, "demo-block-level", block.citations[0]).do()
        analysed = s.analysed("demo-file")
        first = analysed.citations[0].citation
        answer = analysed.answer
        dot = answer.rfind(".", 0, first.start)
        answer = (answer[:dot + 1] + " Something else entirely." + answer[first.end:]).replace(
            "| Retries | 3 |", "| Attempts | 3 |")
        case = Case.from_dict({**s.get_case("demo-file").to_dict(), "answer": answer},
                              "demo-file")
        s.update_case(case)
        assert len(s.evidence("demo-file")) == 1 and len(s.corrections("demo-file")) == 2
    return path


def test_evidence_and_corrections_of_a_changed_answer_are_orphaned_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _answer_changed(tmp_path)
    out = tmp_path / "rows.jsonl"
    assert main(["export", path, "--format", "jsonl", "-o", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    orphans = [r for r in rows if r["case_id"] == "demo-file" and r["status"] == "orphaned"]
    # The verdict (with its evidence), then the relocation and the added citation.
    assert [(r["citation"], r["verdict"], [e["text"] for e in r["evidence"]],
             (r["correction"] or {}).get("kind")) for r in orphans] == [
        (1, "partially supported", ["def deploy"], None), (1, None, [], "relocate"),
        (0, None, [], "add")]
    assert orphans[1]["correction"]["locator"] == "L8-L10"
    assert orphans[2]["claim"] == "| Retries | 3 |"
    assert all(r["correction"] is None for r in rows if r["status"] != "orphaned")
    csv_out = tmp_path / "rows.csv"
    assert main(["export", path, "--format", "csv", "-o", str(csv_out)]) == 0
    text = csv_out.read_text(encoding="utf-8-sig")
    assert text.count("orphaned") >= 3 and '""kind"":""add""' in text
    assert main(["report", path, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # 1 verdict + 1 evidence span + 2 corrections whose citation (claim) is gone.
    assert report["citations"]["orphaned_annotations"] == 4


def test_evidence_without_a_verdict_is_an_orphaned_row_when_its_citation_goes(
        tmp_path: Path) -> None:
    path = _answer_changed(tmp_path, verdict=False)
    out = tmp_path / "rows.jsonl"
    assert main(["export", path, "--format", "jsonl", "-o", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    [lone] = [r for r in rows if r["status"] == "orphaned" and r["evidence"]]
    assert (lone["citation"], lone["source_id"], lone["annotator"], lone["verdict"]) == (
        1, "deploy_py", "ana", None)
    assert lone["evidence"][0]["lines"] == "L8"


def test_corrections_that_no_longer_fit_skip_their_case_with_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _answer_changed(tmp_path)
    out = tmp_path / "pairs.jsonl"
    assert main(["export", path, "--format", "corrections", "--shape", "pairs",
                 "-o", str(out)]) == 0
    pairs = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [p["case_id"] for p in pairs] == ["demo-block-level"]  # the rest is written
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("citeview: warning: case 'demo-file'")
    assert "annotator ana" in err[0] and "not in the answer" in err[0]


def test_an_orphaned_added_citation_is_placed_again_when_the_answer_changes_back(
        tmp_path: Path) -> None:
    import jsonschema

    from citeview.session.interchange import schema

    path = _session(tmp_path)
    with Session.open(path, readonly=True) as s:
        original = s.get_case("demo-file")
        [added] = [c for c in s.corrections("demo-file") if c.claim is not None]
    (tmp_path / "changed").mkdir()
    path = _answer_changed(tmp_path / "changed")
    doc = tmp_path / "s.json"
    assert main(["export", path, "-o", str(doc)]) == 0
    exported = json.loads(doc.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema()).validate(exported)
    [flagged] = [c for c in exported["corrections"] if c["kind"] == "add"]
    assert flagged["orphaned"] is True and flagged["claim_text"] == "| Retries | 3 |"
    with Session.open(path) as s:
        s.update_case(original)  # the answer as it was: the claim is found again
        [back] = [c for c in s.corrections("demo-file") if c.claim is not None]
        assert back.claim == added.claim and back.extra == {}
    out = tmp_path / "rows.jsonl"
    assert main(["export", path, "--format", "jsonl", "-o", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r for r in rows if r["correction"] is not None] == []


def test_a_reword_is_in_the_corrected_answers_the_json_export_and_the_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _session(tmp_path)
    old = "Both limits are module constants."
    new = "Both limits are set in deploy.py."
    with Session.open(path) as s:
        at = s.get_case("demo-file").answer.index(old)
        edits.reword_edit(s, "demo-file", (at, at + len(old)), new, annotator="ana").do()
    for shape in ("pairs", "sft"):
        out = tmp_path / f"{shape}.jsonl"
        assert main(["export", path, "--format", "corrections", "--shape", shape,
                     "-o", str(out)]) == 0
        [line] = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
        chosen = (line["chosen"] if shape == "pairs" else line["messages"][-1:])[0]["content"]
        assert new in chosen and old not in chosen
        assert line["corrections"] == 3
        # The citations are those of the two other corrections, the reword aside.
        assert [(c.source_ids, c.locator) for c in extract_citations(chosen)] == [
            (("deploy_py",), "L8-L10"), (("deploy_py",), "L4"), (("deploy_py",), "L4-L5"),
            (("deploy_py",), "L11-L15")]
        if shape == "pairs":
            assert old in line["rejected"][0]["content"]
    doc = tmp_path / "s.json"
    assert main(["export", path, "-o", str(doc)]) == 0
    import jsonschema

    from citeview.session.interchange import schema

    exported = json.loads(doc.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema()).validate(exported)
    [reword] = [c for c in exported["corrections"] if c["kind"] == "reword"]
    assert reword["text"] == new and reword["claim"][1] - reword["claim"][0] == len(old)
    copy = str(tmp_path / "copy.citeview")
    assert main(["import", str(doc), "-o", copy]) == 0
    with Session.open(path, readonly=True) as a, Session.open(copy, readonly=True) as b:
        assert a.corrections() == b.corrections() and len(b.corrections()) == 3
    # The reworded sentence leaves the answer: the reword is an orphaned row of the jsonl
    # export (with the text it rewords) and counted with the orphans by report.
    assert main(["report", path, "--format", "json"]) == 0
    before = json.loads(capsys.readouterr().out)["citations"]["orphaned_annotations"]
    with Session.open(path) as s:
        case = s.get_case("demo-file")
        s.update_case(Case.from_dict({**case.to_dict(),
                                      "answer": case.answer.replace(old, "Other words.")},
                                     "demo-file"))
    out = tmp_path / "rows.jsonl"
    assert main(["export", path, "--format", "jsonl", "-o", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    [row] = [r for r in rows if r["correction"] is not None]
    assert row["status"] == "orphaned" and row["claim"] == old
    assert row["correction"]["kind"] == "reword" and row["correction"]["text"] == new
    assert main(["report", path, "--format", "json"]) == 0
    after = json.loads(capsys.readouterr().out)["citations"]["orphaned_annotations"]
    assert after == before + 1
