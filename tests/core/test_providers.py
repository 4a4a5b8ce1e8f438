"""core.providers: the common model, reading each provider, and how provider citations enter
the analysed case (numbering, claims, diagnostics, cache keys, the case JSON round trip)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.analysis import AnalysisCache, analyse, content_key
from citeview.core.cases import Case
from citeview.core.claims import sentence_at
from citeview.core.diagnostics import CitationDiagnostic, Severity
from citeview.core.inputs import load_input
from citeview.core.markers import DELIMITER, START, STOP
from citeview.core.policy import Policy
from citeview.core.providers import case_reading, detect_provider, read_payload
from citeview.core.providers.model import BreakMap, Utf8Offsets
from citeview.core.resolution import Status
from citeview.core.transcripts import detect_kind, record_to_case

DATA = Path(__file__).parent.parent / "data" / "providers"


def load(name: str) -> Case:
    return load_input(str(DATA / name)).get(0)


def cite(sid: str) -> str:
    return f"{START}cite{DELIMITER}{sid}{STOP}"


# --------------------------------------------------------------------------- helpers


@pytest.mark.parametrize("position, expected", [
    (31, "Refunds are paid within 14 days."),  # the full stop
    (32, "Refunds are paid within 14 days."),  # just after it
    (5, "Refunds are paid within 14 days."),  # inside
    (59, "Shipping is free above €50."),
    (60, "Shipping is free above €50."),  # the end of the answer
    (99, "Shipping is free above €50."),  # past it: clamped
])
def test_sentence_at_a_position(position: int, expected: str) -> None:
    text = "Refunds are paid within 14 days. Shipping is free above €50."
    s, e = sentence_at(text, position)
    assert text[s:e] == expected


def test_utf8_offsets_to_code_points_and_inside_a_character() -> None:
    text = "a°☀️𝔊b"  # 1 + 2 + 3 + 3 + 4 + 1 bytes
    off = Utf8Offsets(text)
    assert off.size == 14
    assert [off.to_code_point(b)[0] for b in (0, 1, 3, 6, 9, 13, 14)] == [0, 1, 2, 3, 4, 5, 6]
    assert off.to_code_point(2) == (1, False)  # inside °: its start
    assert off.to_code_point(2, round_up=True) == (2, False)  # or the next character
    assert Utf8Offsets("ascii").to_code_point(3) == (3, True)


def test_break_map_counts_crlf_once() -> None:
    m = BreakMap("ab\r\ncd\r\nef")
    assert m.text == "ab\ncd\nef"
    assert [m.to_text(o) for o in (0, 2, 4, 8, 10)] == [0, 2, 3, 6, 8]


# --------------------------------------------------------------------------- reading


def test_detection_of_each_provider_and_record_kind() -> None:
    def raw(name: str) -> object:
        return json.loads((DATA / name).read_text(encoding="utf-8"))

    assert detect_provider(raw("gemini-web.json")) == "gemini"
    assert detect_provider(raw("chat-completion.json")) == "openai-chat"
    assert detect_provider(raw("responses-url.json")) == "openai-responses"
    assert detect_provider(raw("anthropic-web.json")["response"]) == "anthropic"
    assert [detect_kind(raw(n)) for n in ("gemini-web.json", "chat-completion.json",
                                          "anthropic-char.json", "responses-url.json",
                                          "chat-transcript.json")] == [
        "gemini", "chat-completion", "exchange", "responses", "chat"]
    # A Responses message item is not an Anthropic message (no "model").
    assert detect_provider({"type": "message", "role": "assistant", "content": []}) is None


def test_a_json_array_of_anthropic_responses_is_a_dataset(tmp_path: Path) -> None:
    one = json.loads((DATA / "anthropic-web.json").read_text(encoding="utf-8"))["response"]
    path = tmp_path / "many.json"
    path.write_text(json.dumps([one, {**one, "id": "msg_2"}]), encoding="utf-8")
    ds = load_input(str(path))
    assert ds.kind == "json-array" and ds.case_ids() == ["msg_1", "msg_2"]
    assert len(analyse(ds.get(1)).citations) == 2


def test_a_case_keeps_its_provider_payload_through_the_case_json() -> None:
    case = load("anthropic-char.json")
    assert case.question == "Summarise the leave and travel rules."
    assert case.extra["format"] == "anthropic" and "request" in case.extra
    again = record_to_case(json.loads(json.dumps(case.to_dict())), "x")
    a, b = analyse(case), analyse(again)
    assert [(c.number, c.anchor, c.claim, c.source_ids) for c in a.citations] == [
        (c.number, c.anchor, c.claim, c.source_ids) for c in b.citations]


def test_a_chat_transcript_ending_in_an_annotated_message() -> None:
    case = load("chat-transcript.json")
    assert case.question == "Quelle est la capitale de la France ?"
    assert case.extra["response"]["object"] == "chat.completion"
    (c,) = analyse(case).citations
    assert c.claim_text.startswith("([wikipedia.org]")


def test_anthropic_without_the_request_shows_cited_text_unchecked() -> None:
    reading = read_payload(json.loads((DATA / "lint" / "cv608.json").read_text("utf-8")))
    t = reading.citations[0].targets[0]
    assert (t.status, t.source_id, t.text) == (
        Status.UNCHECKED, "doc0", "Staff receive 25 days of paid leave per year.")
    assert [p.code for c in reading.citations for p in c.problems] == ["CV608", "CV608"]


def test_anthropic_blocks_and_bad_block_ranges() -> None:
    raw = json.loads((DATA / "anthropic-blocks.json").read_text(encoding="utf-8"))
    reading = read_payload(raw["response"], raw["request"])
    t = reading.citations[0].targets[0]
    assert (t.unit, t.blocks, t.where) == ("blocks", (1, 2), "blocks 1-2")
    cit = raw["response"]["content"][1]["citations"][0]
    cit["end_block_index"] = 9
    reading = read_payload(raw["response"], raw["request"])
    t = reading.citations[0].targets[0]
    assert t.status is Status.BAD_LOCATION
    assert [p.code for p in reading.citations[0].problems] == ["CV601"]
    cit["end_block_index"], cit["document_index"] = 3, 4
    reading = read_payload(raw["response"], raw["request"])
    assert reading.citations[0].targets[0].status is Status.UNKNOWN_SOURCE
    assert [p.code for p in reading.citations[0].problems] == ["CV605"]


def test_gemini_snake_case_keys_read_the_same() -> None:
    raw = json.loads((DATA / "gemini-web.json").read_text(encoding="utf-8"))

    def snake(obj: object) -> object:
        if isinstance(obj, dict):
            return {"".join(f"_{c.lower()}" if c.isupper() else c for c in k): snake(v)
                    for k, v in obj.items()}
        if isinstance(obj, list):
            return [snake(x) for x in obj]
        return obj

    a, b = read_payload(raw), read_payload(snake(raw))
    assert [c.claim for c in a.citations] == [c.claim for c in b.citations]
    assert [s.id for s in a.sources] == [s.id for s in b.sources]


def test_gemini_offsets_into_the_joined_parts_are_recognised() -> None:
    """Without partIndex, offsets that only fit the joined text are read as such."""
    raw = json.loads((DATA / "gemini-parts.json").read_text(encoding="utf-8"))
    seg = raw["candidates"][0]["groundingMetadata"]["groundingSupports"][1]["segment"]
    parts = [p["text"] for p in raw["candidates"][0]["content"]["parts"]]
    joined = "".join(parts)
    start = len(joined[: joined.index("rain on")].encode())
    seg.pop("partIndex")
    seg["startIndex"], seg["endIndex"] = start, start + len(b"rain on Friday.")
    reading = read_payload(raw)
    c = reading.citations[1]
    assert joined[c.claim[0]:c.claim[1]] == "rain on Friday." and not c.problems


# --------------------------------------------------------------------------- the analysis


def test_markers_and_provider_citations_share_one_numbering() -> None:
    base = load("gemini-web.json")
    material = f"Citation Marker: {cite('note0')}\n\n[L1] Lyon is sunny today."
    answer = base.answer
    insert = answer.index("\nRain")
    mixed = Case("mixed", answer[:insert] + cite("note0") + answer[insert:],
                 tool_outputs=[material], extra=dict(base.extra))
    # The answer is not the response's text any more: CV609, no provider citations.
    got = analyse(mixed)
    assert [c.anchor for c in got.citations] == [cite("note0")]
    assert [d.code for d in got.lint.all] == ["CV609"]
    # With the marker placed where the response's text is unchanged: one numbering.
    same = Case("same", answer, tool_outputs=[material], extra=dict(base.extra))
    got = analyse(same)
    assert [c.citation.family for c in got.citations] == ["grounding_support"] * 3
    assert [c.number for c in got.citations] == [1, 2, 3]


def test_provider_diagnostics_follow_the_policy_and_their_citation() -> None:
    case = load_input(str(DATA / "lint" / "cv607.json")).get(0)
    a = analyse(case)
    (d,) = a.lint.diagnostics
    assert isinstance(d, CitationDiagnostic) and d.number == 2 and d.severity is Severity.WARNING
    assert a.citation_number(d) == 2
    assert a.citation_diagnostics()[1] == (d,) and a.citation_diagnostics()[0] == ()
    strict = analyse(case, Policy(severities={"CV607": Severity.ERROR}))
    graded = strict.lint.diagnostics
    assert isinstance(graded[0], CitationDiagnostic) and graded[0].severity is Severity.ERROR
    assert strict.problem(2) and not strict.problem(1)  # an error on it: its chip says "!"
    assert not a.problem(2)  # a warning does not
    assert analyse(case, Policy(ignore=frozenset({"CV607"}))).lint.diagnostics == ()


def test_the_cache_key_covers_the_response_and_the_request() -> None:
    case = load("anthropic-char.json")
    cache = AnalysisCache()
    first = analyse(case, cache=cache)
    changed = Case(case.id, case.answer, case.question, extra=json.loads(json.dumps(case.extra)))
    doc = changed.extra["request"]["messages"][0]["content"][0]["source"]
    doc["data"] = doc["data"].replace("25 days", "30 days")
    assert content_key(changed, Policy()) != content_key(case, Policy())
    second = analyse(changed, cache=cache)
    assert second is not first
    assert second.citations[0].targets[0].status is Status.MISMATCH
    assert analyse(case, cache=cache) is first


def test_case_reading_none_without_a_response() -> None:
    assert case_reading(Case("x", "text")) is None


def test_a_provider_chip_on_a_link_target_stands_after_the_link() -> None:
    """A container_file_citation whose claim ends inside a Markdown link's target: its chip
    goes after the link (in the target it was never shown), where ``convert`` puts its marker."""
    import json
    from pathlib import Path

    from citeview.core.analysis import analyse
    from citeview.core.transcripts import record_to_case

    path = (Path(__file__).parents[1] / "data" / "providers" / "edge"
            / "responses-container-link.json")
    case = record_to_case(json.loads(path.read_text(encoding="utf-8")), "link")
    answer = case.answer
    link_end = answer.index("chart.png)") + len("chart.png)")
    (c,) = analyse(case).citations
    assert c.citation.start == c.citation.end == link_end
    assert answer[:link_end].endswith("[Download the chart](sandbox:/mnt/data/chart.png)")
