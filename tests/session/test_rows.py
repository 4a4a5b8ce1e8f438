"""Export rows: one per citation and source id, as a spreadsheet or a script reads them."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from _review_cases import MATERIAL, PART, SUP, UNS, D, E, S, case, cite, session_a
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.cases import Case
from citeview.session import Annotation, Session, case_citations
from citeview.session.rows import (
    COLUMNS,
    CSV_CELL_LIMIT,
    Row,
    csv_cell,
    iter_rows,
    write_csv,
    write_jsonl,
)


def test_one_row_per_citation_and_source_with_everything_a_reviewer_needs(
        tmp_path: Path) -> None:
    with session_a(tmp_path) as s:
        rows = list(iter_rows(s))
    # c1: 3 citations, c2: 3, c3: 1 -> 7 rows, in case and citation order
    assert [(r.case_id, r.number) for r in rows] == [
        ("c1", 1), ("c1", 2), ("c1", 3), ("c2", 1), ("c2", 2), ("c2", 3), ("c3", 1)]
    first = rows[0]
    assert (first.source_id, first.locator, first.status, first.source_kind) == (
        "turn0file0", "L1", "ok", "line")
    assert first.claim == "Remote work is allowed three days a week."
    assert first.cited_text == "Employees may work remotely up to three days per week."
    # claim words: remot, work, allow, thre, day, week (6); L1 has all but "allow": 5 / 6
    assert first.support == pytest.approx(5 / 6)
    assert (first.verdict, first.annotator, first.timestamp) == (
        SUP, "ana", "2026-01-01T10:00:00.000Z")
    block = rows[5]
    assert (block.source_kind, block.locator, block.verdict, block.note) == (
        "block", None, UNS, "=1+1 not in the block")
    assert block.cited_text == "Receipts must be uploaded within thirty days."
    unknown = rows[6]
    assert (unknown.status, unknown.lint_codes, unknown.cited_text, unknown.support) == (
        "unknown-source", ("CV201",), "", None)
    assert (unknown.verdict, unknown.annotator) == (None, "")  # not judged: still a row


def test_each_annotator_gets_a_row_and_orphans_are_kept(tmp_path: Path) -> None:
    with session_a(tmp_path) as s:
        slot = case_citations(s.get_case("c1"))[0]
        s.put_annotation(Annotation(slot.keys("c1")[0], "bo", PART, "",
                                    "2026-01-03T00:00:00.000Z", slot.claim))
        # The answer loses its third citation: ana's "unsupported" on it becomes an orphan.
        changed = case("c1")
        s.update_case(replace(changed, answer=changed.answer.replace(cite("turn0file1"), "")))
        rows = [r for r in iter_rows(s) if r.case_id == "c1"]
    assert [(r.number, r.annotator, r.verdict, r.status) for r in rows] == [
        (1, "ana", SUP, "ok"), (1, "bo", PART, "ok"), (2, "ana", PART, "ok"),
        (3, "ana", UNS, "orphaned")]
    assert rows[3].claim == "Receipts are due in thirty days."


def test_csv_opens_cleanly_in_a_spreadsheet(tmp_path: Path) -> None:
    out = io.StringIO(newline="")
    with session_a(tmp_path) as s:
        write_csv(s, out)
    text = out.getvalue()
    assert text.startswith("\ufeffcase_id,citation,")  # UTF-8 BOM: Excel reads UTF-8
    table = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline="")))
    assert tuple(table[0]) == COLUMNS
    assert len(table) == 1 + 7
    rows = [dict(zip(COLUMNS, r, strict=True)) for r in table[1:]]
    assert rows[5]["note"] == "'=1+1 not in the block"  # a formula neutralised
    assert rows[6]["lint_codes"] == "CV201" and rows[6]["verdict"] == ""
    assert rows[0]["support"] == str(round(5 / 6, 4))
    assert rows[1]["note"] == "only half of it"


def test_formula_triggers_and_long_cells_are_neutralised() -> None:
    for bad in ("=cmd|' /C calc'!A0", "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"):
        assert csv_cell(bad).startswith("'")
    assert csv_cell("plain - text") == "plain - text"
    assert csv_cell(-1) == "-1"  # a number is a number
    long = csv_cell("x" * (CSV_CELL_LIMIT + 10))
    assert len(long) < 32_767 and long.endswith(f"{CSV_CELL_LIMIT + 10} characters in all]")
    assert csv_cell("a\ud800b") == "a\ufffdb"


def test_jsonl_rows_carry_the_columns_and_survive_untrusted_text(tmp_path: Path) -> None:
    from citeview.core.cases import Case
    from citeview.session import Session

    odd = Case("odd", f"Lone \ud800 surrogate here.{cite('turn0file0', 'L1')}\n",
               None, [MATERIAL])
    with Session.create(str(tmp_path / "o.citeview"), [case("c1"), odd]) as s:
        out = io.StringIO()
        write_jsonl(s, out)
    data = out.getvalue().encode("utf-8")  # writable as UTF-8
    lines = [json.loads(x) for x in data.decode("utf-8").splitlines()]
    assert len(lines) == 4 and tuple(lines[0]) == COLUMNS
    assert lines[3]["case_id"] == "odd"
    assert lines[3]["claim"] == "Lone \ud800 surrogate here."
    assert lines[0]["lint_codes"] == [] and lines[0]["citation"] == 1


def test_worker_processes_give_the_same_rows_in_the_same_order(tmp_path: Path) -> None:
    from citeview.session import Session
    from citeview.session.rows import iter_case_rows

    cases = [replace(case("c1" if i % 3 else "c3"), id=f"k{i:03d}") for i in range(150)]
    with Session.create(str(tmp_path / "many.citeview"), cases, annotator="ana") as s:
        slot = case_citations(s.get_case("k001"))[1]
        s.put_annotation(Annotation(slot.keys("k001")[0], "ana", UNS, "n", "t", slot.claim))
        serial = list(iter_case_rows(s, sentences=True, jobs=1))
        parallel = list(iter_case_rows(s, sentences=True, jobs=2))
    assert [c.case_id for c in parallel] == [c.case_id for c in serial] == [
        c.id for c in cases]
    assert parallel == serial
    assert parallel[1].rows[1].verdict == UNS


def test_a_multi_source_citation_gives_a_row_per_source_with_its_own_status(
        tmp_path: Path) -> None:
    from citeview.core.cases import Case
    from citeview.session import Session

    answer = (f"Remote work is allowed three days a week. {S}cite{D}turn0file0{D}nosuch{D}L1{E}"
              f" Stray text.\n")
    with Session.create(str(tmp_path / "m.citeview"),
                        [Case("m", answer, None, [MATERIAL])]) as s:
        rows = list(iter_rows(s))
    assert [(r.number, r.source_id, r.status, r.lint_codes, r.cited_text != "")
            for r in rows] == [
        (1, "turn0file0", "ok", (), True),
        (1, "nosuch", "unknown-source", ("CV201",), False),
    ]
    assert rows[0].support == pytest.approx(5 / 6) and rows[1].support is None


def test_each_case_is_scanned_parsed_and_resolved_once(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Export and report of big sessions: the rows reuse what lint worked out.
    import citeview.core.analysis as core_analysis
    from citeview.session.rows import iter_case_rows

    calls: dict[str, int] = {}

    def counted(module: object, name: str) -> None:
        real = getattr(module, name)

        def wrapper(*args: object, **kwargs: object) -> object:
            key = f"{module.__name__}.{name}"  # type: ignore[attr-defined]
            calls[key] = calls.get(key, 0) + 1
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)

    session_a(tmp_path).close()
    for name in ("scan", "case_material", "resolve"):
        counted(core_analysis, name)
    with Session.open(str(tmp_path / "a.citeview"), readonly=True) as s:
        got = list(iter_case_rows(s, sentences=True, jobs=1))
    assert len(got) == 3
    assert calls == {"citeview.core.analysis.scan": 3, "citeview.core.analysis.case_material": 3,
                     "citeview.core.analysis.resolve": 3}


def test_rows_number_a_degraded_marker_as_the_window_and_lint_do(tmp_path: Path) -> None:
    # "citememo2024" is a degraded marker only because the material defines memo2024: the
    # analysed case recovers it, so rows, window and lint all number it 2.
    from citeview.core.cases import Case
    from citeview.session import Session
    from citeview.session.rows import iter_case_rows

    answer = f"Receipts are due in thirty days.{cite('turn0file1')} Remote work.citememo2024\n"
    c = Case("d", answer, None, [MATERIAL], documents={"memo2024": "Remote work on Fridays."})
    with Session.create(str(tmp_path / "d.citeview"), [c]) as s:
        (cr,) = iter_case_rows(s)
    assert [(r.number, r.source_id, r.status, r.recovered) for r in cr.rows] == [
        (1, "turn0file1", "whole-source", None), (2, "memo2024", "whole-source", "degraded")]
    assert cr.citations == len(case_citations(c)) == 2
    assert "CV107" in cr.lint_codes


# (st.text never draws a lone surrogate: they are mixed in by hand)
_TEXT = st.lists(st.characters() | st.sampled_from("\ud800\udfff"),
                 max_size=12).map("".join)  # (lone surrogates, control characters, quotes)


@settings(max_examples=200, deadline=None)
@given(st.builds(
    Row, _TEXT, st.integers(-3, 10**6), _TEXT, st.none() | _TEXT, _TEXT,
    st.lists(_TEXT, max_size=3).map(tuple), _TEXT, _TEXT,
    st.none() | st.floats(allow_nan=True, allow_infinity=True) | st.integers(0, 1),
    st.none() | _TEXT, _TEXT, _TEXT, _TEXT, st.none() | _TEXT, st.none() | _TEXT, _TEXT,
    st.lists(_TEXT, max_size=2).map(tuple)))
def test_jsonl_rows_are_what_json_writes_of_them(row: Row) -> None:
    """rows_text composes a row's line itself where it can: byte for byte what json's encoder
    writes of the row, whatever its text holds (json escapes lone surrogates; a support of
    NaN, infinity or another type is left to json)."""
    from citeview.session.jsonio import json_lines
    from citeview.session.rows import rows_text

    assert rows_text([row, row]) == json_lines([row.to_dict(), row.to_dict()])


_PIECES = st.sampled_from([
    cite("turn0file0", "L1"), cite("turn0file0", "L2-L3"), cite("turn0file0", "L9"),
    cite("turn0file1"), cite("nosuch"), f"{S}cite{D}turn0file0{D}turn0file1{E}",
    f"{S}cite{D}turn0file0", f"{S}cite{D}turn0file0{D}L8-13{E}", ". ", "\n\n", "# Head\n",
    "Remote days need approval", "a \"quoted\" \\ claim", "\ud800", "\U0001f600 x"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_unjudged_rows_composed_at_once_are_the_rows_written(answer: str) -> None:
    """A case nobody judged gets its jsonl rows composed straight from its analysis (or,
    where that is not sure, from its rows): the same text either way."""
    from citeview.core.analysis import analyse
    from citeview.session.rows import base_rows, rows_text, unjudged_lines

    analysed = analyse(Case("k", answer, "q", [MATERIAL]))
    made = unjudged_lines(analysed, "k")
    assert made is None or made == rows_text(base_rows(analysed, "k"))
    if "\ud800" not in answer:
        assert made is not None  # (the general path is for what json escapes its own way)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=3), max_leaves=8)


@given(st.dictionaries(st.text(max_size=3), _JSON_VALUES, max_size=4).map(json.dumps),
       st.sampled_from(["", " ", "\n", "x", "}", "{", "\ufeff"]),
       st.sampled_from(["", " ", "\n", "x", "}", "{"]))
def test_a_stored_case_is_read_as_json_reads_it(text: str, before: str, after: str) -> None:
    """A stored case's JSON read straight by json's scanner is what json.loads reads of it;
    any other text is left to json.loads (which says what is wrong with it)."""
    from citeview.session.rows import _object_of

    stored = before + text + after
    got = _object_of(stored)
    if not before and not after:
        assert got == json.loads(stored)
    if got is not None:
        assert got == json.loads(stored)


class _OddStatus(str):
    """A status of another type than Status: str() of it is not its value."""

    def __str__(self) -> str:
        return "odd \"status\""


@pytest.mark.parametrize("status", ["ok", _OddStatus("ok"), _OddStatus("whole-source")])
def test_unjudged_rows_of_a_status_of_another_type_are_the_rows_written(status: str) -> None:
    """The JSON of a row's status is looked up for Status members only: a status of another
    type is written as its rows write it (str() of it), composed or bytes."""
    from citeview.core.analysis import analyse
    from citeview.session.rows import base_rows, rows_text, unjudged_bytes, unjudged_lines

    answer = f"Remote days need approval {cite('turn0file0', 'L1')}. B {cite('turn0file1')}."
    analysed = analyse(Case("k", answer, "q", [MATERIAL]))
    assert analysed.support and analysed.citation_diagnostics()  # (worked out before)
    analysed.citations = tuple(
        replace(c, resolution=replace(c.resolution, targets=tuple(
            replace(t, status=status) for t in c.resolution.targets)))
        for c in analysed.citations)
    want = rows_text(base_rows(analysed, "k"))
    assert unjudged_lines(analysed, "k") == want
    assert unjudged_bytes(analysed, "k") == want.encode("utf-8")
    assert str(status) in want or json.dumps(str(status)) in want
