"""A recorded stream replays as it arrived: one step per event, provider citations once their
event has arrived, the log's own timing, and the final frame is the case of the whole stream."""

from __future__ import annotations

from pathlib import Path

from citeview.core.inputs import load_input
from citeview.core.replay import RecordedReplay, recorded_events

DATA = Path(__file__).parent.parent / "data" / "streams"


def case_of(name: str):  # type: ignore[no-untyped-def]
    return next(iter(load_input(str(DATA / name)).iter_cases()))


def test_anthropic_citation_appears_when_its_citations_delta_arrives() -> None:
    case = case_of("anthropic-messages.sse")
    replay = RecordedReplay(case)
    frames = [replay.frame, *replay.frames()]
    assert [f.step for f in frames] == list(range(17))  # 16 events, a step each
    # Event 8 (index 7) is the citations_delta: no citation before it, one from it on.
    assert [f.citations for f in frames] == [0] * 8 + [1] * 9
    assert frames[8].event is not None and frames[8].event.data["delta"]["type"] == (
        "citations_delta")
    # The ping (step 3) changes nothing visible, yet it is a step of its own.
    assert frames[3].event is not None and frames[3].event.type == "ping"
    assert frames[3].case.answer == frames[2].case.answer == ""
    assert frames[4].case.answer == "According to "
    assert frames[10].case.answer == "According to the document, the grass is green"
    last = frames[-1]
    assert last.finished and last.case.answer == case.answer
    assert last.case.extra["response"] == case.extra["response"]


def test_openai_replay_keeps_the_logs_timing_scaled_by_a_factor() -> None:
    case = case_of("openai-responses.events.jsonl")
    replay = RecordedReplay(case)
    assert replay.delay() == 0.0  # the first event arrived at t=0
    replay.step()
    assert abs((replay.delay() or 0) - 0.1) < 1e-9
    assert abs((replay.delay(2.0) or 0) - 0.05) < 1e-9
    frames = [replay.frame, *replay.frames()]
    # The url_citation's annotation.added is event 7: its citation shows from that step.
    assert [f.citations for f in frames] == [0] * 6 + [1] * 5
    assert frames[5].case.answer == "Paris is the capital of France."
    assert replay.delay() is None  # nothing follows the last event


def test_a_log_without_times_has_no_delay_and_a_case_not_streamed_no_events() -> None:
    replay = RecordedReplay(case_of("gemini-stream.sse"))
    assert replay.delay() is None
    frames = list(replay.frames())
    assert [f.case.answer for f in frames] == ["The sky ", "The sky is blue."]
    assert [f.citations for f in frames] == [0, 1]
    assert recorded_events(case_of("gemini-stream.response.json")) == []
