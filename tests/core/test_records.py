"""The streaming record reader (core/records.py): the one reader lint (and anything that walks a
big input) uses; formats are told by core, binary inputs by the loaders passed in."""

from __future__ import annotations

import json
from pathlib import Path

from citeview.core.cases import Case
from citeview.core.records import iter_records

DATA = Path(__file__).parent.parent / "data"
FOLDER = DATA / "lint-folder"


def test_a_jsonl_dataset_streams_raw_lines_numbered_from_one() -> None:
    recs = list(iter_records(str(FOLDER / "policies.dataset.jsonl")))
    assert [r.record for r in recs] == [1, 2, 3, 4, 5]
    assert all(r.raw is not None and r.case is None for r in recs)  # parsed by the taker
    assert json.loads(recs[4].raw or "")["id"] == "handbook-rule-breaking"


def test_documents_transcripts_and_plain_answers_come_parsed() -> None:
    (case,) = iter_records(str(FOLDER / "handbook-rule-breaking.case.json"))
    (chat,) = iter_records(str(FOLDER / "nested" / "handbook.chat.json"))
    (plain,) = iter_records(str(FOLDER / "handbook-rule-breaking.answer.txt"))
    for rec in (case, chat, plain):
        assert rec.record is None and isinstance(rec.case, Case) and rec.error is None
    assert plain.case is not None and plain.case.id == "handbook-rule-breaking.answer"


def test_the_jsonl_suffix_decides_a_one_line_file(tmp_path: Path) -> None:
    line = (FOLDER / "handbook-rule-breaking.case.json").read_text(encoding="utf-8")
    one_line = json.dumps(json.loads(line)) + "\n"
    (tmp_path / "one.jsonl").write_text(one_line, encoding="utf-8")
    (tmp_path / "one.json").write_text(one_line, encoding="utf-8")
    assert [r.record for r in iter_records(str(tmp_path / "one.jsonl"))] == [1]
    assert [r.record for r in iter_records(str(tmp_path / "one.json"))] == [None]


def test_a_session_needs_the_loader_passed_in(tmp_path: Path) -> None:
    from citeview.session.loader import SESSION_LOADERS
    from citeview.session.store import Session

    path = tmp_path / "s.citeview"
    Session.create(str(path), [Case("a", "One."), Case("b", "Two.")]).close()
    (err,) = iter_records(str(path))  # no loaders: whatever was imported before
    assert err.case is None and err.error is not None
    assert "pass citeview.session.SESSION_LOADERS" in err.error
    got = list(iter_records(str(path), SESSION_LOADERS))
    assert [(r.record, r.case.id if r.case else None) for r in got] == [(1, "a"), (2, "b")]
