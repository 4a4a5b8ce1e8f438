"""citeview export --format jsonl|csv, report, agree and merge, on sessions built here with
hand-chosen verdicts (tests/session/_review_cases.py states them)."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import pytest

from citeview.cli import main

sys.path.insert(0, str(Path(__file__).parent.parent / "session"))
from _review_cases import PART, SUP, UNS, build, session_a, session_b  # noqa: E402

from citeview.session import Annotation, Session, case_citations  # noqa: E402
from citeview.session.merge import ADJUDICATED  # noqa: E402


@pytest.fixture
def two(tmp_path: Path) -> tuple[str, str]:
    a, b = session_a(tmp_path), session_b(tmp_path)
    a.close()
    b.close()
    return a.path, b.path


def test_export_csv_to_a_file(two: tuple[str, str], tmp_path: Path) -> None:
    out = tmp_path / "rows.csv"
    assert main(["export", two[0], "--format", "csv", "-o", str(out)]) == 0
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    assert len(rows) == 7
    assert [(r["case_id"], r["citation"], r["verdict"]) for r in rows[:3]] == [
        ("c1", "1", SUP), ("c1", "2", PART), ("c1", "3", UNS)]
    assert rows[5]["note"] == "'=1+1 not in the block"


def test_export_jsonl_to_stdout(two: tuple[str, str], capsys: pytest.CaptureFixture[str]
                                ) -> None:
    assert main(["export", two[1], "--format", "jsonl"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    # B: c1 3 rows, c2 3 rows, c4 1 row
    assert [(r["case_id"], r["citation"], r["annotator"]) for r in rows] == [
        ("c1", 1, "bo"), ("c1", 2, "bo"), ("c1", 3, "bo"), ("c2", 1, "bo"), ("c2", 2, "bo"),
        ("c2", 3, "bo"), ("c4", 1, "bo")]
    assert rows[6]["status"] == "ok" and rows[6]["source_kind"] == "line"


def test_report_formats(two: tuple[str, str], tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", two[0], "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    # (2 + 0.5 x 1) / 5 decided = 0.5; recall 2 of 6 sentences (see test_report.py)
    assert rep["precision"]["precision"] == pytest.approx(0.5)
    assert rep["recall"]["recall"] == pytest.approx(2 / 6)
    assert main(["report", two[0]]) == 0
    assert "Citation precision: 50.0%" in capsys.readouterr().out
    page = tmp_path / "report.html"
    assert main(["report", two[0], "--format", "html", "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") == 2
    assert main(["report", two[1], "--annotator", "nobody", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["citations"]["with_verdict"] == 0


def test_agree_text_and_json(two: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agree", *two, "--format", "json"]) == 0
    ag = json.loads(capsys.readouterr().out)
    # 6 pairs, 4 agree; kappa = (24/36 - 10/36) / (26/36) = 14/26 (test_agree_merge.py)
    assert ag["items"] == 6 and ag["percent_agreement"] == pytest.approx(4 / 6)
    assert ag["kappa"] == pytest.approx(14 / 26)
    assert ag["cases"]["only_a_ids"] == ["c3"] and ag["cases"]["only_b_ids"] == ["c4"]
    assert len(ag["disagreements"]) == 2
    assert main(["agree", *two]) == 0
    assert "Disagreements: 2" in capsys.readouterr().out


def test_agree_exits_2_when_no_case_is_shared(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    build(tmp_path / "x.citeview", ["c3"], "x", {}, "01").close()
    build(tmp_path / "y.citeview", ["c4"], "y", {}, "01").close()
    assert main(["agree", str(tmp_path / "x.citeview"), str(tmp_path / "y.citeview")]) == 2
    err = capsys.readouterr().err
    assert "share no case" in err and "Traceback" not in err and err.count("\n") == 1


def test_merge_then_adjudicate_then_report(two: tuple[str, str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.citeview"
    assert main(["merge", *two, "-o", str(out)]) == 0
    assert "annotators ana, bo" in capsys.readouterr().err
    with Session.open(str(out)) as merged:
        key = case_citations(merged.get_case("c1"))[1].keys("c1")[0]
        assert (merged.annotation(key, "ana").verdict, merged.annotation(key, "bo").verdict) \
            == (PART, UNS)
        from citeview.session.merge import adjudicate
        adjudicate(merged, key, PART, adjudicator="chair")
    assert main(["export", str(out), "--format", "jsonl"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    c1_2 = [(r["annotator"], r["verdict"]) for r in rows
            if r["case_id"] == "c1" and r["citation"] == 2]
    assert c1_2 == [(ADJUDICATED, PART), ("ana", PART), ("bo", UNS)]
    assert main(["merge", *two, "-o", str(out)]) == 2  # never overwritten silently
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err and err.count("\n") == 1
    assert main(["merge", *two, "-o", str(out), "--force"]) == 0
    # An input named as the output is refused even with --force, and --force is not offered.
    assert main(["merge", *two, "-o", two[0]]) == 2
    err = capsys.readouterr().err
    assert "must be a new file" in err and "--force" not in err


def test_missing_session_is_a_one_line_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in (["report", str(tmp_path / "none.citeview")],
                ["export", str(tmp_path / "none.citeview"), "--format", "csv"],
                ["agree", str(tmp_path / "none.citeview"), str(tmp_path / "none.citeview")]):
        assert main(cmd) == 2
        assert "no such file" in capsys.readouterr().err


def test_report_lint_counts_follow_the_lint_policy(two: tuple[str, str], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", two[0], "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["lint"]["CV201"]["count"] == 1
    config = tmp_path / "citeview.toml"
    config.write_text('ignore = ["CV201"]\n', encoding="utf-8")
    assert main(["report", two[0], "--format", "json", "--config", str(config)]) == 0
    assert json.loads(capsys.readouterr().out)["lint"] == {}
    assert main(["report", two[0], "--jobs", "0"]) == 2


def test_export_rows_follow_the_lint_policy_and_jobs(two: tuple[str, str], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)

    def rows(*extra: str) -> list[dict[str, object]]:
        out = tmp_path / "rows.jsonl"
        assert main(["export", two[0], "--format", "jsonl", "-o", str(out), *extra]) == 0
        return [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]

    default = rows()
    assert default[6]["case_id"] == "c3" and default[6]["lint_codes"] == ["CV201"]
    config = tmp_path / "policy.toml"
    config.write_text('ignore = ["CV201"]\n', encoding="utf-8")
    ignored = rows("--config", str(config))
    assert ignored[6]["lint_codes"] == []
    assert [{**r, "lint_codes": []} for r in default] == ignored  # nothing else changes
    # A configuration found from the current directory applies too, as for report.
    (tmp_path / "citeview.toml").write_text('ignore = ["CV201"]\n', encoding="utf-8")
    assert rows() == ignored
    assert rows("--jobs", "2", "--config", str(config)) == ignored


def test_export_option_errors(two: tuple[str, str], tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", two[0], "--format", "csv", "--jobs", "0"]) == 2
    assert "--jobs must be at least 1" in capsys.readouterr().err
    assert main(["export", two[0], "--format", "json", "--jobs", "2"]) == 2
    assert "apply to the jsonl and csv formats" in capsys.readouterr().err
    assert main(["export", two[0], "--format", "csv", "--config",
                 str(tmp_path / "none.toml")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_agree_warns_when_the_rubrics_differ(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    a = build(tmp_path / "a.citeview", ["c1"], "ana", {}, "01")
    a.set_labels(["yes", "no"])
    for slot, v in zip(case_citations(a.get_case("c1")), ["yes", "no", "no"], strict=True):
        a.put_annotation(Annotation(slot.keys("c1")[0], "ana", v, "", "2026-01-01T10:00Z",
                                    slot.claim))
    a.close()
    session_b(tmp_path).close()
    paths = [str(tmp_path / "a.citeview"), str(tmp_path / "b.citeview")]
    assert main(["agree", *paths, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    ag = json.loads(out)
    assert ag["percent_agreement"] is None and ag["kappa"] is None and ag["items"] == 0
    assert ag["labels"] == {"only_a": ["yes", "no"],
                            "only_b": [SUP, PART, UNS, "cannot tell"]}
    assert len(ag["not_compared"]) == 3 and len(ag["warnings"]) == 1
    assert err == f"citeview: warning: {ag['warnings'][0]}\n"
    assert main(["agree", *paths]) == 0
    out, err = capsys.readouterr()
    assert "Warning: A and B use different verdict labels" in out
    assert "Percent agreement: n/a" in out and err.count("\n") == 1
