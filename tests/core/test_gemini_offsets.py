"""Gemini grounding offsets (issue 28): parts that are thoughts or function calls, and Vertex
offsets a few bytes off ``segment.text``. Fixtures: ``tests/data/providers/edge`` (see its
README for the public references they follow)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from citeview.core.providers import read_payload

EDGE = Path(__file__).parent.parent / "data" / "providers" / "edge"


def raw(name: str) -> dict:
    return json.loads((EDGE / name).read_text(encoding="utf-8"))


def test_supports_without_part_index_count_in_the_text_part_after_thoughts_and_calls() -> None:
    reading = read_payload(raw("gemini-thoughts.json"))
    answer = reading.answer
    assert answer == "Lyon ☀️ stays dry today. Rain arrives on Friday."
    # By hand: "Lyon ☀️ stays dry today." is code points 0-24 (☀️ is two code points, 6
    # bytes); " Rain arrives on Friday." follows at 25-48.
    assert [c.claim for c in reading.citations] == [(0, 24), (25, 48)]
    assert [p.code for c in reading.citations for p in c.problems] == []


def test_a_part_index_naming_a_thought_is_read_as_the_nth_text_part() -> None:
    data = raw("gemini-thoughts.json")
    for s in data["candidates"][0]["groundingMetadata"]["groundingSupports"]:
        s["segment"]["partIndex"] = 0  # the thought: the API counts text parts only
    reading = read_payload(data)
    assert [c.claim for c in reading.citations] == [(0, 24), (25, 48)]
    assert [p.code for c in reading.citations for p in c.problems] == []


def test_a_part_index_beyond_every_text_part_is_cv605_not_an_empty_claim_at_the_end() -> None:
    data = raw("gemini-thoughts.json")
    seg = data["candidates"][0]["groundingMetadata"]["groundingSupports"][1]["segment"]
    seg["partIndex"] = 7
    reading = read_payload(data)
    c = reading.citations[1]
    assert [p.code for p in c.problems] == ["CV605"]
    # The offsets are read in the answer (one text part): the claim is the sentence.
    assert c.claim == (25, 48)


def test_vertex_offsets_two_bytes_off_read_segment_text_nearby_and_keep_cv603() -> None:
    reading = read_payload(raw("gemini-vertex-offsets.json"))
    answer = reading.answer
    # "Météo à Lyon:\n\n" is 15 code points; "- " puts the first item at 17.
    first, second, third = reading.citations
    assert (first.claim, answer[17:41]) == ((17, 41), "Sunny mornings all week.")
    assert second.claim == (44, 60) and answer[44:60] == "Storms on Friday"
    assert [p.code for p in first.problems] == ["CV603"]
    assert "it stands 2 bytes earlier, read there" in first.problems[0].message
    assert "it stands 2 bytes later, read there" in second.problems[0].message
    # Not found nearby: the claim is widened to whole words, never cut mid-word ("rms ... ev").
    assert third.claim == (44, 68) and answer[44:68] == "Storms on Friday evening"
    assert [p.code for p in third.problems] == ["CV603"]


def test_segment_text_is_looked_for_within_the_window_only() -> None:
    data = raw("gemini-vertex-offsets.json")
    sup = data["candidates"][0]["groundingMetadata"]["groundingSupports"]
    far = copy.deepcopy(sup[0])
    far["segment"]["startIndex"], far["segment"]["endIndex"] = 0, 4  # "Mét" (é is 2 bytes)
    far["segment"]["text"] = "Storms"  # 44 characters on: within the 64 looked through
    data["candidates"][0]["groundingMetadata"]["groundingSupports"] = [far]
    (c,) = read_payload(data).citations
    assert c.claim == (44, 50)
    far["segment"]["text"] = "nowhere in the answer"
    (c,) = read_payload(data).citations
    # Not in the answer: bytes 0-4 ("Mét") widened to the whole word "Météo".
    assert c.claim == (0, 5) and [p.code for p in c.problems] == ["CV603"]
    far["segment"]["text"] = "Sunny"  # 17 characters on
    (c,) = read_payload(data).citations
    assert c.claim == (17, 22)


def test_lint_of_the_thinking_response_finds_nothing(capsys) -> None:
    from citeview.cli import main

    assert main(["lint", "--format", "json", str(EDGE / "gemini-thoughts.json")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [f["code"] for case in report["cases"] for f in case["diagnostics"]] == []
