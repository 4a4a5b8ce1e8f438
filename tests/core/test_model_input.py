"""What the model saw: material as given, the input's own instructions (system messages with
no id tags kept), else the recommended ones, labelled."""

from __future__ import annotations

from citeview.core.cases import Case
from citeview.core.model_input import model_input
from citeview.core.transcripts import chat_case

TOOL = "Citation Marker: turn0file0\nTitle: Notes\n[L1] Staff get 25 days.\n[L2] Five carry over."


def test_a_transcripts_system_messages_are_kept_even_without_id_tags() -> None:
    case = chat_case({"messages": [
        {"role": "system", "content": "Cite every claim with a marker."},
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "How many days?"},
        {"role": "tool", "content": TOOL},
        {"role": "assistant", "content": "25 days."},
    ]}, "c")
    seen = model_input(case)
    assert seen.instructions == [("system", "Cite every claim with a marker."),
                                 ("developer", "Be brief.")]
    assert not seen.recommended
    text = seen.text()
    assert text.index("Cite every claim") < text.index(TOOL) < text.index("How many days?")
    assert "[L1] Staff get 25 days." in text  # the material exactly as given


def test_without_instructions_the_recommended_ones_are_shown_and_labelled() -> None:
    seen = model_input(Case("c", "25 days.", "How many?", [TOOL]))
    assert seen.recommended and seen.unit == "line"
    assert "recommended by citeview prompt for line-level material" in seen.text()
    assert "L" in seen.instructions[0][1]  # line-level instructions mention line ranges
    assert model_input(Case("c", "No material.")).instructions == []


def test_a_responses_records_instructions_field_is_shown_as_the_inputs_own() -> None:
    from citeview.core.transcripts import responses_case

    case = responses_case({"instructions": "Answer with citations.", "input": "How many days?",
                           "output": [{"type": "message", "role": "assistant", "content": [
                               {"type": "output_text", "text": "25 days."}]}]}, "r")
    seen = model_input(case)
    assert seen.instructions == [("instructions", "Answer with citations.")]
    assert not seen.recommended
    assert "as the input carries them" in seen.text()


def test_a_system_message_holding_context_is_shown_once() -> None:
    ctx = 'Use these.\n<doc id="d1">Staff get 25 days.</doc>'
    case = chat_case({"messages": [
        {"role": "system", "content": ctx},
        {"role": "user", "content": "How many days?"},
        {"role": "assistant", "content": "25 days."},
    ]}, "c")
    assert case.context == ctx
    text = model_input(case).text()
    assert text.count("Staff get 25 days.") == 1
