"""Recorded provider streams (tests/data/streams): each assembles the response its SDK builds,
reads as the case of the same response not streamed, and what is wrong with one is linted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.analysis import analyse
from citeview.core.errors import InputError
from citeview.core.inputs import load_input
from citeview.core.lint import lint
from citeview.core.providers.streams import (
    SseDecoder,
    looks_like_sse,
    parse_sse,
    read_stream,
    read_stream_text,
    sse_events_to_records,
)
from citeview.core.records import iter_records

DATA = Path(__file__).parent.parent / "data" / "streams"

PAIRS = [("anthropic-messages.sse", "anthropic-messages.response.json"),
         ("openai-responses.events.jsonl", "openai-responses.response.json"),
         ("openai-responses.sse", "openai-responses.response.json"),
         ("gemini-stream.sse", "gemini-stream.response.json"),
         ("gemini-stream.json", "gemini-stream.response.json")]


def only_case(name: str):  # type: ignore[no-untyped-def]
    dataset = load_input(str(DATA / name))
    assert len(dataset) == 1
    return next(iter(dataset.iter_cases()))


def claims(case) -> list[tuple[tuple[int, int], str]]:  # type: ignore[no-untyped-def]
    a = analyse(case)
    return [(c.claim, c.citation.source_ids[0] if c.citation.source_ids else "")
            for c in a.citations]


def test_anthropic_stream_is_assembled_as_the_sdk_does() -> None:
    reading = read_stream_text((DATA / "anthropic-messages.sse").read_text())
    assert reading.provider == "anthropic" and reading.complete and not reading.problems
    blocks = reading.response["content"]
    # Worked out by hand: three text blocks; the citations_delta went to block 1's list.
    assert [b["text"] for b in blocks] == ["According to the document, ", "the grass is green",
                                           "."]
    assert [c["cited_text"] for c in blocks[1]["citations"]] == ["The grass is green. "]
    assert "citations" not in blocks[0]
    assert reading.response["stop_reason"] == "end_turn"
    assert reading.response["usage"] == {"input_tokens": 42, "output_tokens": 15}
    # Every event in arrival order, ping too (16 events in the log).
    assert [e.index for e in reading.events] == list(range(16))
    assert reading.events[2].type == "ping"


def test_stream_case_cites_what_was_worked_out_by_hand() -> None:
    case = only_case("anthropic-messages.sse")
    assert case.answer == "According to the document, the grass is green."
    # "According to the document, " is 27 code points; "the grass is green" 18 more.
    assert [c for c, _ in claims(case)] == [(27, 45)]
    openai = only_case("openai-responses.events.jsonl")
    assert openai.answer == "Paris is the capital of France."
    assert [c for c, _ in claims(openai)] == [(0, 31)]
    gemini = only_case("gemini-stream.sse")
    assert gemini.answer == "The sky is blue."
    assert [c for c, _ in claims(gemini)] == [(0, 16)]


@pytest.mark.parametrize(("stream", "plain"), PAIRS)
def test_stream_reads_as_the_case_of_the_same_response_not_streamed(stream: str,
                                                                      plain: str) -> None:
    streamed, whole = only_case(stream), only_case(plain)
    assert streamed.answer == whole.answer
    assert streamed.extra["response"] == whole.extra["response"]
    assert {k: v for k, v in streamed.extra.items() if k != "stream"} == whole.extra
    assert claims(streamed) == claims(whole)
    assert streamed.extra["stream"]["complete"] is True


def test_openai_events_keep_their_order_and_arrival_time() -> None:
    reading = read_stream_text((DATA / "openai-responses.events.jsonl").read_text())
    assert [e.data["sequence_number"] for e in reading.events] == list(range(11))
    assert [e.time for e in reading.events][:3] == [0.0, 0.1, 0.2]
    assert reading.events[-1].type == "response.completed"
    sse = read_stream_text((DATA / "openai-responses.sse").read_text())
    assert [e.time for e in sse.events] == [None] * 11  # SSE carries no time


def test_a_stream_cut_short_is_linted_as_ended_early() -> None:
    case = only_case("anthropic-messages.truncated.sse")
    # What had arrived: block 0 and the start of block 1 with its citation.
    assert case.answer == "According to the document, the grass "
    codes = [d.code for d in lint(case)]
    assert "CV612" in codes
    # The block so far is "the grass " (27-37); its claim leaves the trailing space out.
    assert [c for c, _ in claims(case)] == [(27, 36)]


def test_deltas_that_disagree_with_the_final_response_are_linted() -> None:
    events = [json.loads(line) for line in
              (DATA / "openai-responses.events.jsonl").read_text().splitlines()]
    events[5]["delta"] = "the capital of Spain."
    reading = read_stream(events)
    assert [p.code for p in reading.problems] == ["CV613"]
    events = [json.loads(line) for line in
              (DATA / "openai-responses.events.jsonl").read_text().splitlines()]
    del events[-1]  # no response.completed
    reading = read_stream(events)
    assert [p.code for p in reading.problems] == ["CV612"]
    assert reading.response["output"][0]["content"][0]["text"] == "Paris is the capital of France."


def test_an_answer_that_starts_with_data_is_still_a_plain_answer(tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("data: the survey says yes\n")
    case = next(iter(load_input(str(answer)).iter_cases()))
    assert case.answer == "data: the survey says yes\n" and "stream" not in case.extra


def test_lint_reads_an_sse_log_as_a_stream_not_a_plain_answer() -> None:
    for name in ("anthropic-messages.sse", "gemini-stream.sse", "openai-responses.events.jsonl"):
        records = list(iter_records(str(DATA / name)))
        assert len(records) == 1 and records[0].case is not None, name
        assert records[0].case.extra["format"] != "plain"
        assert "stream" in records[0].case.extra


def test_an_sse_log_that_is_no_known_stream_is_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "log.sse"
    bad.write_text('event: hello\ndata: {"type": "hello"}\n\n')
    with pytest.raises(InputError, match="stream log that cannot be read") as err:
        load_input(str(bad))
    assert "\n" not in str(err.value)
    broken = tmp_path / "broken.sse"
    broken.write_text('event: message_start\ndata: {"type": "message_st\n\n')
    with pytest.raises(InputError, match="event 1 .*not JSON"):
        load_input(str(broken))
    records = list(iter_records(str(broken)))
    assert len(records) == 1 and records[0].error and "not JSON" in records[0].error


def test_a_list_of_gemini_responses_is_still_a_dataset(tmp_path: Path) -> None:
    whole = json.loads((DATA / "gemini-stream.response.json").read_text())
    other = {**whole, "responseId": "another"}
    path = tmp_path / "two.json"
    path.write_text(json.dumps([whole, other]))
    assert len(load_input(str(path))) == 2


def test_sse_rules_for_names_comments_and_line_ends() -> None:
    text = ": comment\r\nevent: a\r\ndata:x\r\ndata: y\r\n\r\nevent: empty\n\ndata: z"
    assert parse_sse(text) == [("a", "x\ny"), (None, "z")]
    assert looks_like_sse(": keepalive\nevent: ping\ndata: {}\n")
    assert not looks_like_sse("data is what we cite")
    # An answer that starts like a field is still an answer: no JSON data follows.
    assert not looks_like_sse("data: the survey (n=30) says yes\n\nmore text")
    assert not looks_like_sse("event: launch day\nwe met at noon")
    assert looks_like_sse("data: [DONE]\n\n") and looks_like_sse("data: [{}]\n")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["anthropic-messages.sse", "openai-responses.sse", "gemini-stream.sse"]),
       st.lists(st.integers(min_value=0, max_value=10_000), max_size=40))
def test_any_chunking_of_the_sse_bytes_assembles_the_same_response(name: str,
                                                                   cuts: list[int]) -> None:
    data = (DATA / name).read_bytes()
    whole = read_stream(sse_events_to_records(parse_sse(data))).response
    decoder = SseDecoder()
    events = []
    points = sorted({c % (len(data) + 1) for c in cuts})
    for a, b in zip([0, *points], [*points, len(data)], strict=True):
        events.extend(decoder.feed(data[a:b]))
    events.extend(decoder.finish())
    assert read_stream(sse_events_to_records(events)).response == whole


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab é\r\n:"), max_size=60),
       st.lists(st.integers(min_value=0, max_value=200), max_size=10))
def test_sse_decoding_does_not_depend_on_chunking(text: str, cuts: list[int]) -> None:
    data = ("data: " + text).encode()
    decoder = SseDecoder()
    got = []
    points = sorted({c % (len(data) + 1) for c in cuts})
    for a, b in zip([0, *points], [*points, len(data)], strict=True):
        got.extend(decoder.feed(data[a:b]))
    got.extend(decoder.finish())
    assert got == parse_sse(data)


def test_anthropic_events_as_a_json_list_or_json_lines_read_as_the_sse(tmp_path: Path) -> None:
    records = sse_events_to_records(parse_sse((DATA / "anthropic-messages.sse").read_bytes()))
    as_list, as_lines = tmp_path / "events.json", tmp_path / "events.jsonl"
    as_list.write_text(json.dumps(records))
    as_lines.write_text("".join(json.dumps(r) + "\n" for r in records))
    sse = only_case("anthropic-messages.sse")
    for path in (as_list, as_lines):
        case = next(iter(load_input(str(path)).iter_cases()))
        assert case.answer == sse.answer and case.extra == sse.extra
        assert [r.case.answer for r in iter_records(str(path)) if r.case] == [sse.answer]


def test_an_anthropic_delta_for_a_block_that_never_started_is_linted() -> None:
    records = sse_events_to_records(parse_sse((DATA / "anthropic-messages.sse").read_bytes()))
    records.insert(4, {"type": "content_block_delta", "index": 5,
                       "delta": {"type": "text_delta", "text": "lost"}})
    reading = read_stream(records)
    assert [p.code for p in reading.problems] == ["CV613"]
    assert "lost" not in json.dumps(reading.response)
