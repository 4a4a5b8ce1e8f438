"""citeview open / export / import from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.commands import open as open_cmd
from citeview.core.datasets import Dataset
from citeview.core.inputs import load_input
from citeview.session import Session, case_citations, edits

DATA = Path(__file__).parent.parent / "data"
SAMPLES = DATA / "samples"
PLAIN = DATA / "formats" / "plain"


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Dataset, str | None]]:
    calls: list[tuple[Dataset, str | None]] = []

    def fake(dataset: Dataset, case_id: str | None, advance: bool = True) -> int:
        calls.append((dataset, case_id))
        if not advance:
            calls.append((dataset, "--no-advance"))
        return 0
    monkeypatch.setattr(open_cmd, "launch", fake)
    return calls


def test_open_dataset_starts_the_gui_on_it(opened: list) -> None:
    assert main(["open", str(SAMPLES / "policies.dataset.jsonl"), "--case",
                 "transit-multi-turn"]) == 0
    (dataset, case_id), = opened
    assert dataset.kind == "jsonl" and case_id == "transit-multi-turn"
    assert len(dataset) == 5


def test_open_no_advance_reaches_the_window(opened: list) -> None:
    assert main(["open", str(SAMPLES / "policies.dataset.jsonl"), "--no-advance"]) == 0
    assert [c for _, c in opened] == [None, "--no-advance"]


def test_open_plain_files(opened: list) -> None:
    cid = "transit-multi-turn"
    args = ["open", "--material", str(PLAIN / f"{cid}.material0.txt"),
            "--material", str(PLAIN / f"{cid}.material1.txt"),
            "--document", f"doc1={PLAIN / 'handbook-line-level.material0.txt'}",
            "--answer", str(PLAIN / f"{cid}.answer.txt")]
    assert main(args) == 0
    case = opened[0][0].get(0)
    sample = json.loads((SAMPLES / f"{cid}.case.json").read_text(encoding="utf-8"))
    assert case.tool_outputs == sample["tool_outputs"] and case.answer == sample["answer"]
    assert case.id == "transit-multi-turn.answer" and list(case.documents) == ["doc1"]


@pytest.mark.parametrize(("args", "message"), [
    (["open"], "nothing to open"),
    (["open", "--material", "m.txt"], "plain files need --answer"),
    (["open", "x.json", "--answer", "a.txt"], "either FILE or plain files"),
    (["open", str(SAMPLES / "policies.dataset.jsonl"), "--case", "zz"], "--case zz: no such case"),
    (["open", str(DATA / "formats" / "bad" / "unknown.json")], "unknown format"),
])
def test_open_errors_are_one_line_exit_2(opened: list, capsys: pytest.CaptureFixture[str],
                                         args: list[str], message: str) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert opened == []


def test_export_then_import_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "s.citeview")
    s = Session.create(path, load_input(str(SAMPLES / "policies.dataset.jsonl")),
                       annotator="ana")
    key = case_citations(s.get_case("handbook-line-level"))[0].keys("handbook-line-level")[0]
    edits.set_verdict(s, key, "partially supported")
    edits.set_note(s, key, "only L1 👀")
    s.close()
    out = tmp_path / "s.json"
    assert main(["export", path, "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["annotations"][0]["verdict"] == "partially supported"
    assert main(["import", str(out), "-o", str(tmp_path / "copy.citeview")]) == 0
    assert "imported 5 cases and 1 annotations" in capsys.readouterr().err
    with Session.open(str(tmp_path / "copy.citeview")) as copy:
        assert copy.annotation(key, "ana").note == "only L1 👀"
    assert main(["export", str(tmp_path / "copy.citeview")]) == 0
    assert json.loads(capsys.readouterr().out) == doc
    # Importing again over an existing session is refused unless --force.
    assert main(["import", str(out), "-o", str(tmp_path / "copy.citeview")]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err and err.count("\n") == 1
    assert main(["import", str(out), "-o", str(tmp_path / "copy.citeview"), "--force"]) == 0


def test_export_of_a_non_session_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(SAMPLES / "policies.dataset.jsonl")]) == 2
    assert "not a citeview session (not an SQLite database)" in capsys.readouterr().err
