"""Resolving citations: statuses a reviewer acts on, exact spans, every sample as a reader
expects, and generated material of every shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.cases import Case
from citeview.core.markers import DELIMITER, START, STOP, Citation, scan
from citeview.core.material import (
    Material,
    SourceKind,
    case_material,
    file_source,
    parse_context,
    parse_tool_output,
)
from citeview.core.resolution import Resolution, Status, Target, resolve

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def marker(sid: str) -> str:
    return f"{START}cite{DELIMITER}{sid}{STOP}"


def cite(*ids: str, locator: str | None = None) -> Citation:
    return Citation("raw", "cite", ids, locator, 0, 3)


def one(citation: Citation, material: Material) -> Target:
    (res,) = resolve([citation], material)
    (t,) = res.targets
    return t


MAT = parse_tool_output(
    f"Citation Marker: {marker('f')}\n[L3] three\n[L4] four\n[L4] four again\n[L6] six\n"
    f"[L7] seven\n\nCitation Marker: {marker('blk')}\n[Block1]\nBlock text.\n\n"
    f"Citation Marker: {marker('doc')}\nJust a document."
)


def test_single_line_and_range() -> None:
    t = one(cite("f", locator="L3"), MAT)
    assert (t.status, t.labels, t.text) == (Status.OK, (3,), "three")
    t = one(cite("f", locator="L6-L7"), MAT)
    assert (t.status, t.labels, t.text) == (Status.OK, (6, 7), "six\nseven")
    assert t.source is not None and t.span == (t.lines[0].start, t.lines[-1].end)


def test_repeated_labels_are_all_cited() -> None:
    t = one(cite("f", locator="L4"), MAT)
    assert t.status is Status.OK
    assert t.labels == (4, 4)
    assert t.text == "four\nfour again"


def test_no_locator_cites_the_whole_source() -> None:
    t = one(cite("blk"), MAT)
    assert t.status is Status.WHOLE_SOURCE
    assert t.text == "Block text."
    assert t.span == (0, len("Block text."))
    assert "Block1" in t.detail


def test_unknown_source_suggests_a_close_id() -> None:
    t = one(cite("g", locator="L1"), parse_tool_output(f"Citation Marker: {marker('turn0file1')}"
                                                       "\n[L1] x"))
    assert t.status is Status.UNKNOWN_SOURCE and t.source is None and t.span is None
    t = one(cite("turn0file3", locator="L1"), parse_tool_output(
        f"Citation Marker: {marker('turn0file1')}\n[L1] x"))
    assert t.suggestion == "turn0file1" and "turn0file1" in t.detail


@pytest.mark.parametrize(
    ("locator", "end", "shown", "words"),
    [
        ("L9", "both", (), "past the last line, L7"),
        ("L1", "both", (), "before the first line, L3"),
        ("L5", "both", (), "skip from L4 to L6"),
        ("L6-L9", "last", (6, 7), "L9"),
        ("L1-L3", "first", (3,), "L1"),
        ("L12-L14", "both", (), "past the last line, L7"),
    ],
)
def test_out_of_range_says_which_end(locator: str, end: str, shown: tuple[int, ...],
                                     words: str) -> None:
    t = one(cite("f", locator=locator), MAT)
    assert t.status is Status.OUT_OF_RANGE
    assert t.out_of_range_end == end
    assert t.labels == shown
    assert words in t.detail


def test_reversed_range() -> None:
    t = one(cite("f", locator="L7-L6"), MAT)
    assert t.status is Status.REVERSED
    assert t.labels == (6, 7)
    assert "reversed" in t.detail


@pytest.mark.parametrize("sid", ["blk", "doc"])
def test_line_locator_on_unlined_source(sid: str) -> None:
    t = one(cite(sid, locator="L2"), MAT)
    assert t.status is Status.NO_LINES
    assert t.source is not None and t.text == t.source.text


def test_locator_applies_to_each_source_of_a_multi_source_citation() -> None:
    (res,) = resolve([cite("f", "blk", "nope", locator="L3")], MAT)
    assert [t.status for t in res.targets] == [Status.OK, Status.NO_LINES, Status.UNKNOWN_SOURCE]
    assert res.status is Status.UNKNOWN_SOURCE
    assert not res.ok


def test_duplicate_id_resolves_to_first_definition_and_says_so() -> None:
    m = parse_tool_output(f"Citation Marker: {marker('a')}\n[L1] first\n\n"
                          f"Citation Marker: {marker('a')}\n[L1] second")
    t = one(cite("a", locator="L1"), m)
    assert t.text == "first" and t.duplicates == 1 and "2 times" in t.detail


def test_resolve_accepts_plain_sources_and_keeps_order() -> None:
    src = file_source("notes", "a\nb\nc")
    res = resolve([cite("notes", locator="L2-L3"), cite("notes")], [src])
    assert [r.index for r in res] == [0, 1]
    assert res[0].targets[0].text == "b\nc"


# --------------------------------------------------------------------------- samples


def sample(name: str) -> tuple[Case, Material, list[Resolution]]:
    case = Case.from_dict(json.loads((SAMPLES / name).read_text(encoding="utf-8")))
    material = case_material(case)
    cits = scan(case.answer, known_ids=material.ids()).citations
    return case, material, resolve(cits, material)


def rows(res: list[Resolution]) -> list[tuple[str, str | None, str]]:
    return [(t.source_id, r.citation.locator, t.status.value) for r in res for t in r.targets]


def test_sample_handbook_line_level() -> None:
    _, m, res = sample("handbook-line-level.case.json")
    assert m.diagnostics == []
    assert rows(res) == [("turn0file0", "L1", "ok"), ("turn0file0", "L2-L5", "ok")]
    assert res[0].targets[0].text == "Employees may work remotely up to three days per week."
    assert res[1].targets[0].labels == (2, 3, 4, 5)
    assert res[1].targets[0].text.endswith("within five business days.")


def test_sample_handbook_rule_breaking() -> None:
    _, m, res = sample("handbook-rule-breaking.case.json")
    assert m.diagnostics == []
    table = rows(res)
    assert ("turn0file3", "L1", "unknown-source") in table
    assert ("turn0file0", "L12-L14", "line-out-of-range") in table
    assert ("turn0file1", "L6-L5", "reversed-range") in table
    bad = {(t.source_id, r.citation.locator): t for r in res for t in r.targets if not t.ok}
    assert len(bad) == 3
    oor = bad[("turn0file0", "L12-L14")]
    assert oor.out_of_range_end == "both" and "past the last line, L5" in oor.detail
    rev = bad[("turn0file1", "L6-L5")]
    assert rev.labels == (5, 6)
    # The rest resolve, including the citations inside bold and code (placement is lint's job).
    assert sum(1 for _, _, s in table if s == "ok") == len(table) - 3


def test_sample_transit_multi_turn_two_source_citation() -> None:
    _, m, res = sample("transit-multi-turn.case.json")
    assert [s.origin for s in m.sources] == ["tool_outputs[0]", "tool_outputs[0]",
                                             "tool_outputs[1]"]
    two = [r for r in res if len(r.targets) == 2]
    assert len(two) == 1
    assert [t.source_id for t in two[0].targets] == ["turn0search1", "turn1news0"]
    assert all(t.status is Status.WHOLE_SOURCE for t in two[0].targets)
    assert rows(res)[0] == ("turn0search0", "L1-L2", "ok")
    assert res[0].targets[0].text.endswith("Monthly passes stay at $127.")
    assert all(r.ok for r in res)


def test_sample_contract_block_level() -> None:
    _, m, res = sample("contract-block-level.case.json")
    assert [(s.kind, s.label) for s in m.sources] == [(SourceKind.BLOCK, "Block1"),
                                                      (SourceKind.BLOCK, "Block2")]
    assert rows(res) == [("turn0file0", None, "whole-source"), ("turn0file1", None,
                                                                "whole-source")]
    assert res[1].targets[0].text.startswith("Either party may terminate")


def test_sample_opinion_injected_context() -> None:
    _, m, res = sample("opinion-injected-context.case.json")
    assert [s.id for s in m.sources] == ["block4", "block5", "block6"]
    assert rows(res) == [("block5", None, "whole-source"), ("block4", None, "whole-source")]
    assert res[0].targets[0].source is not None
    assert res[0].targets[0].source.title == "Opinion, Part II"
    assert res[0].targets[0].text.startswith("We hold that the District Court")


def test_sample_chat_transcript_tool_message_resolves() -> None:
    chat = json.loads((SAMPLES / "handbook.chat.json").read_text(encoding="utf-8"))
    msgs = chat["messages"]
    # Read the transcript as a reviewer would: tool messages are the material, the last
    # assistant message is the answer.
    tools = [msg["content"] for msg in msgs if msg["role"] == "tool"]
    answer = [msg["content"] for msg in msgs if msg["role"] == "assistant" and msg["content"]][-1]
    m = Material()
    for i, t in enumerate(tools):
        m.extend(parse_tool_output(t, f"tool_outputs[{i}]"))
    res = resolve(scan(answer).citations, m)
    assert rows(res) == [("turn0file0", "L1", "ok"), ("turn0file0", "L2-L5", "ok")]


def test_sample_dataset_every_case_resolves_like_its_single_case_file() -> None:
    lines = (SAMPLES / "policies.dataset.jsonl").read_text(encoding="utf-8").splitlines()
    cases = [Case.from_dict(json.loads(line)) for line in lines if line.strip()]
    assert len(cases) == 5
    for case in cases:
        _, _, expected = sample(f"{case.id}.case.json")
        m = case_material(case)
        got = resolve(scan(case.answer).citations, m)
        assert rows(got) == rows(expected)


def test_context_material_line_locator_is_reported() -> None:
    m = parse_context('<block id="block5">Held.</block>')
    assert one(cite("block5", locator="L1"), m).status is Status.NO_LINES
