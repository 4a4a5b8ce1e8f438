"""Issue 28's provider shapes: OpenAI Assistants / Azure AI Agents thread messages, xAI's
Responses-compatible output without offsets, Cohere v2 chat, Perplexity, Gemini Interactions,
AWS Bedrock Converse, Vertex ``citationMetadata``, and the Anthropic forms that were refused.

Each fixture (tests/data/providers/, sources in its README.md) is read into the common model and
checked against claims, sources and targets worked out by hand here; each works through the
CLI (resolve, lint, convert --to markers). Offsets below are counted by hand in the comments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.cli import main
from citeview.core.analysis import analyse
from citeview.core.errors import InputError
from citeview.core.inputs import load_input
from citeview.core.providers import detect_provider, read_payload
from citeview.core.transcripts import detect_kind

DATA = Path(__file__).parent.parent / "data" / "providers"
NEW = ["assistants-thread-message.json", "azure-agents-messages.json", "xai-responses.json",
       "cohere-chat.json", "perplexity-chat.json", "gemini-interactions.json",
       "gemini-interactions-steps.json", "bedrock-converse-citations.json",
       "vertex-citation-metadata.json", "anthropic-web-fetch.json"]


def raw(name: str) -> object:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def reading(name: str):  # type: ignore[no-untyped-def]
    obj = raw(name)
    if isinstance(obj, dict) and "response" in obj:
        return read_payload(obj["response"], obj.get("request"))
    return read_payload(obj)


def claims(name: str) -> list[tuple[tuple[int, int], str, list[str]]]:
    r = reading(name)
    return [(c.claim, r.answer[c.claim[0]:c.claim[1]], [t.source_id for t in c.targets])
            for c in r.citations]


def codes(name: str) -> list[list[str]]:
    return [[p.code for p in c.problems] for c in reading(name).citations]


# --------------------------------------------------------------------------- detection


def test_each_new_shape_is_detected_as_its_provider() -> None:
    assert [detect_provider(raw(n)) for n in NEW] == [
        "openai-assistants", "openai-assistants", "openai-responses", "cohere", "perplexity",
        "gemini-interactions", "gemini-interactions", "bedrock", "gemini", "anthropic"]
    # Each is a record a command reads (not "unknown format").
    assert "unknown" not in [detect_kind(raw(n)) for n in NEW]


def test_an_anthropic_message_needs_neither_role_nor_model_nor_stop_reason() -> None:
    text = {"type": "text", "text": "Hi."}
    assert detect_provider({"type": "message", "content": [text]}) == "anthropic"
    assert detect_provider({"type": "message", "role": "assistant", "content": [text]}) \
        == "anthropic"
    # A user message, and a Responses message item (output_text parts), are not responses.
    assert detect_provider({"type": "message", "role": "user", "content": [text]}) is None
    assert detect_provider({"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "Hi.", "annotations": []}]}) is None
    assert read_payload({"type": "message", "content": [text]}).answer == "Hi."


# --------------------------------------------------------------------------- each shape


def test_assistants_markers_leave_the_answer_and_become_citations() -> None:
    r = reading("assistants-thread-message.json")
    assert "\u3010" not in r.answer and "\u2020" not in r.answer
    assert r.answer == ("Refunds are paid within 14 days. Shipping is free above €50.\n\n"
                        "Download the [price list](sandbox:/mnt/data/prices.csv).")
    # "Refunds are paid within 14 days." is 32 characters; the marker stood before its ".",
    # so the claim is the sentence with its full stop. "Shipping ... €50." is 27 from 33.
    # The file_path covers the link target: the claim is the whole link, 14 + 28 = 42 long.
    link = r.answer.index("[price list]")
    assert claims("assistants-thread-message.json") == [
        ((0, 32), "Refunds are paid within 14 days.", ["file-policy"]),
        ((33, 60), "Shipping is free above €50.", ["file-shipping"]),
        ((link, link + 42), "[price list](sandbox:/mnt/data/prices.csv)", ["file-prices"])]
    # A file's text is not in the message: its citations say they are not checked.
    assert codes("assistants-thread-message.json") == [["CV608"], ["CV608"], []]
    assert [c.targets[0].status.value for c in r.citations] == [
        "unchecked", "unchecked", "whole-source"]


def test_a_marker_after_a_space_takes_the_space_with_it_before_punctuation() -> None:
    m = "\u30101:0\u2020source\u3011"
    value = f"Tea is hot {m}. Milk is cold {m} and white."
    anns = [{"type": "file_citation", "text": m, "start_index": value.index(m),
             "end_index": value.index(m) + len(m), "file_citation": {"file_id": "f1"}},
            {"type": "file_citation", "text": m, "start_index": value.rindex(m),
             "end_index": value.rindex(m) + len(m), "file_citation": {"file_id": "f2"}}]
    r = read_payload({"object": "thread.message", "role": "assistant", "content": [
        {"type": "text", "text": {"value": value, "annotations": anns}}]})
    # Before "." the space goes too; before " and" it stays (the words keep their space).
    assert r.answer == "Tea is hot. Milk is cold  and white."
    assert [r.answer[s:e] for s, e in (c.claim for c in r.citations)] == [
        "Tea is hot.", "Milk is cold  and white."]


def test_an_azure_agents_message_list_reads_its_assistant_message() -> None:
    r = reading("azure-agents-messages.json")
    assert r.answer == "The museum opens at 9:00 on weekdays."
    assert claims("azure-agents-messages.json") == [
        ((0, 37), "The museum opens at 9:00 on weekdays.", ["url0"])]
    assert (r.sources[0].url, r.sources[0].title) == ("https://museum.example/hours",
                                                      "Opening hours")


def test_xai_url_citations_without_offsets_are_placed_at_their_links() -> None:
    # "Mont Blanc is 4,806 m high " is 27 characters; "[[1]](https://summit.example/mb)"
    # is 5 + 26 + 1 = 32. The second link starts after "It was first climbed in 1786 ".
    text = reading("xai-responses.json").answer
    second = text.index("[[2]]")
    assert claims("xai-responses.json") == [
        ((27, 59), "[[1]](https://summit.example/mb)", ["url0"]),
        ((second, second + 35), "[[2]](https://history.example/1786)", ["url1"])]
    assert codes("xai-responses.json") == [[], []]


def test_an_xai_url_citation_whose_link_is_not_in_the_answer_goes_at_the_end() -> None:
    r = reading("lint/cv611.json")
    end = len(r.answer)
    assert [c.claim for c in r.citations] == [(21, 54), (end, end)]
    assert codes("lint/cv611.json") == [[], ["CV611"]]
    assert [s.url for s in r.sources] == ["https://meteo.example/lyon",
                                          "https://news.example/lyon"]


def test_cohere_citations_have_their_span_and_every_source() -> None:
    # "The tallest penguins are " is 25 characters, "emperor penguins" 16;
    # "only in Antarctica" starts after "... penguins. They live " (53).
    r = reading("cohere-chat.json")
    assert claims("cohere-chat.json") == [
        ((25, 41), "emperor penguins", ["doc0"]),
        ((53, 71), "only in Antarctica", ["doc1", "search0"])]
    assert [(s.id, s.title, s.text) for s in r.sources] == [
        ("doc0", "Tall penguins", "Emperor penguins are the tallest."),
        ("doc1", "Penguin habitats", "Emperor penguins only live in Antarctica."),
        ("search0", None, "Habitat: Antarctica (sea ice).")]
    assert ("Cohere id", "doc:0") in r.sources[0].metadata
    assert codes("cohere-chat.json") == [[], []]


def test_a_cohere_citation_whose_text_is_elsewhere_is_moved_there_with_cv603() -> None:
    response = {"id": "x", "finish_reason": "COMPLETE", "message": {
        "role": "assistant", "content": [{"type": "text", "text": "Oslo is cold. Rome is warm."}],
        "citations": [{"start": 12, "end": 24, "text": "Rome is warm", "sources": [
            {"type": "document", "id": "doc:0", "document": {"snippet": "Rome: 30 °C"}}]}]}}
    r = read_payload(response)
    assert r.citations[0].claim == (14, 26)  # where "Rome is warm" is, 2 characters on
    assert [p.code for p in r.citations[0].problems] == ["CV603"]


def test_cohere_content_index_offsets_and_thinking_citations() -> None:
    response = {"id": "x", "finish_reason": "COMPLETE", "message": {
        "role": "assistant", "content": [
            {"type": "thinking", "thinking": "Look up Oslo."},
            {"type": "text", "text": "Oslo is cold. "}, {"type": "text", "text": "Rome is warm."}],
        "citations": [
            {"start": 0, "end": 12, "text": "Rome is warm", "content_index": 2, "sources": [
                {"type": "document", "id": "doc:0", "document": {"snippet": "Rome: 30 °C"}}]},
            {"start": 0, "end": 4, "text": "Look", "type": "THINKING_CONTENT", "sources": [
                {"type": "document", "id": "doc:1", "document": {"snippet": "Oslo"}}]}]}}
    r = read_payload(response)
    # Item 2 starts after "Oslo is cold. " (14 characters): its 0-12 is the answer's 14-26.
    assert r.answer == "Oslo is cold. Rome is warm."
    assert [c.claim for c in r.citations] == [(14, 26)]
    assert r.citations[0].problems == []


def test_perplexity_inline_numbers_cite_search_results() -> None:
    # "The Eiffel Tower is 330 m tall[1]" is 33 characters; the next sentence starts at 35
    # ("[1]. " before it); "It was finished in 1889[2][3]" is 29: a run of numbers shares
    # one claim, to the end of the run.
    r = reading("perplexity-chat.json")
    assert claims("perplexity-chat.json") == [
        ((0, 33), "The Eiffel Tower is 330 m tall[1]", ["result1"]),
        ((35, 64), "It was finished in 1889[2][3]", ["result2"]),
        ((35, 64), "It was finished in 1889[2][3]", ["result3"])]
    assert [(s.title, s.url, s.text) for s in r.sources][1] == (
        "1889 World's Fair", "https://history.example/1889",
        "The tower was completed in March 1889.")
    assert ("Date", "2025-03-01") in r.sources[0].metadata


def test_a_perplexity_number_past_the_results_is_cv605() -> None:
    response = {"object": "chat.completion", "citations": ["https://a.example"],
                "choices": [{"message": {"role": "assistant", "content": "A[1]. B[2]."}}]}
    r = read_payload(response)
    assert [c.targets[0].source_id for c in r.citations] == ["result1", "result2"]
    assert [[p.code for p in c.problems] for c in r.citations] == [[], ["CV605"]]
    assert r.sources[0].url == "https://a.example"


def test_gemini_interactions_bytes_become_characters() -> None:
    out = raw("gemini-interactions.json")["outputs"][3]  # type: ignore[index]
    # "Zürich has 443,000 inhabitants." is 31 characters and 32 bytes (ü is 2); the second
    # annotation starts one space later: byte 33, character 32.
    assert [(a["start_index"], a["end_index"]) for a in out["annotations"]] == [(0, 32),
                                                                              (33, 56)]
    r = reading("gemini-interactions.json")
    assert claims("gemini-interactions.json") == [
        ((0, 31), "Zürich has 443,000 inhabitants.", ["src0"]),
        ((32, 55), "Its lake is 40 km long.", ["src1"])]
    assert [(s.id, s.url, s.title) for s in r.sources] == [
        ("src0", "https://stadt.example/zahlen", "Zürich in Zahlen"),
        ("src1", "https://lake.example/zurichsee", "Zürichsee")]


def test_gemini_interactions_steps_read_the_last_model_output() -> None:
    step = raw("gemini-interactions-steps.json")["steps"][4]  # type: ignore[index]
    # "Der Zürichsee ist 40 km lang." is 29 characters, 30 bytes (ü); "Laut Handbuch öffnet das
    # Bad um 9 Uhr." starts at character 30, byte 31, and is 38 characters, 39 bytes (ö).
    assert [(a["start_index"], a["end_index"]) for a in step["content"][0]["annotations"]] == [
        (0, 30), (31, 70)]
    r = reading("gemini-interactions-steps.json")
    assert r.answer == "Der Zürichsee ist 40 km lang. Laut Handbuch öffnet das Bad um 9 Uhr."
    assert claims("gemini-interactions-steps.json") == [
        ((0, 29), "Der Zürichsee ist 40 km lang.", ["src0"]),
        ((30, 68), "Laut Handbuch öffnet das Bad um 9 Uhr.", ["src1"])]
    assert [c.type for c in r.citations] == ["url_citation", "file_citation"]
    # The page read by url_context is the url_citation's source; the file keeps its page.
    assert [(s.title, s.url, s.metadata) for s in r.sources] == [
        ("Zürichsee", "https://lake.example/zurichsee", []),
        ("handbuch.pdf", None, [("Page", "3")])]


def test_bedrock_citations_content_blocks_cite_the_quoted_documents() -> None:
    # "According to the handbook, " is 27 characters; the first generated text 34; then " ".
    r = reading("bedrock-converse-citations.json")
    assert claims("bedrock-converse-citations.json") == [
        ((27, 61), "staff get 25 days of leave a year.", ["doc0"]),
        ((62, 92), "Days left over lapse in March.", ["doc0"]),
        ((62, 92), "Days left over lapse in March.", ["doc1"])]
    doc0 = r.sources[0]
    assert doc0.text == ("Staff receive 25 days of paid leave per year.\n"
                         "Unused days expire in March.")
    assert [(t.unit, t.status.value, t.cited_text) for c in r.citations for t in c.targets] == [
        ("chars", "unchecked", "Staff receive 25 days of paid leave per year."),
        ("chars", "unchecked", "Unused days expire in March."),
        ("pages", "unchecked", "March: leave resets.")]
    assert r.citations[1].targets[0].span == (46, 74)  # the second quote's own line


def test_bedrock_with_its_request_checks_document_characters() -> None:
    obj = raw("bedrock-converse.exchange.json")
    locs = [c["citations"][0]["location"]["documentChar"]  # type: ignore[index]
            for c in (b.get("citationsContent") for b in obj["response"]["output"][  # type: ignore[index]
                "message"]["content"]) if c]
    # The handbook's first sentence is 45 characters, then "\r\n": the second starts at 47
    # in the request's text, 46 once the break is one "\n".
    assert [(x["start"], x["end"]) for x in locs] == [(0, 45), (47, 75)]
    r = reading("bedrock-converse.exchange.json")
    assert [(c.claim, [(t.source_id, t.status.value, t.span) for t in c.targets])
            for c in r.citations] == [((0, 23), [("doc0", "ok", (0, 45))]),
                                      ((24, 45), [("doc0", "ok", (46, 74))])]
    assert codes("bedrock-converse.exchange.json") == [[], []]
    assert r.sources[0].title == "handbook"


def test_bedrock_quotes_that_differ_or_documents_that_are_missing_are_findings() -> None:
    obj = raw("bedrock-converse.exchange.json")
    response, request = obj["response"], obj["request"]  # type: ignore[index]
    blocks = response["output"]["message"]["content"]
    blocks[0]["citationsContent"]["citations"][0]["sourceContent"][0]["text"] = "Staff get 30."
    blocks[2]["citationsContent"]["citations"][0]["location"]["documentChar"][
        "documentIndex"] = 4
    r = read_payload(response, request)
    assert [[p.code for p in c.problems] for c in r.citations] == [["CV604"], ["CV605"]]
    assert [c.targets[0].status.value for c in r.citations] == ["cited-text-differs",
                                                                "unknown-source"]


def test_bedrock_web_and_search_result_locations() -> None:
    def cited(quote: str, location: dict) -> dict:
        return {"sourceContent": [{"text": quote}], "location": location}

    response = {"output": {"message": {"role": "assistant", "content": [
        {"citationsContent": {"content": [{"text": "Rain is due."}], "citations": [
            cited("Rain Friday.", {"web": {"url": "https://w.example/f", "domain": "w.example"}}),
            cited("Showers later.", {"web": {"url": "https://w.example/f"}}),
            cited("Rain: 80 %", {"searchResultLocation": {"searchResultIndex": 0, "start": 0,
                                                          "end": 1}}),
            {"sourceContent": [{"text": "no location"}]}]}}]}}, "stopReason": "end_turn"}
    r = read_payload(response)
    assert [(t.source_id, t.status.value, t.unit) for c in r.citations for t in c.targets] == [
        ("web0", "ok", "url"), ("web0", "ok", "url"), ("result0", "unchecked", "blocks"),
        ("doc-unknown", "unknown-source", "whole")]
    web = next(s for s in r.sources if s.id == "web0")
    assert (web.url, web.metadata, web.text) == ("https://w.example/f", [("Domain", "w.example")],
                                                 "Rain Friday.\nShowers later.")
    assert [[p.code for p in c.problems] for c in r.citations] == [[], [], ["CV608"],
                                                                   ["CV610"]]


def test_vertex_citation_metadata_is_read_in_bytes() -> None:
    cits = raw("vertex-citation-metadata.json")["candidates"][0][  # type: ignore[index]
        "citationMetadata"]["citations"]
    # 33 ASCII characters, then « (2 bytes) ... » (2 bytes): the quote is 68 characters,
    # 70 bytes; "Le livre ..." starts a space later.
    assert [(c["startIndex"], c["endIndex"]) for c in cits] == [(33, 103), (104, 127)]
    r = reading("vertex-citation-metadata.json")
    assert [c.claim for c in r.citations] == [(33, 101), (102, 125)]
    assert r.answer[33] == "«" and r.answer[100] == "»"
    assert [(s.id, s.title, s.url) for s in r.sources] == [
        ("cite0", "Le Petit Prince", "https://books.example/petit-prince"),
        ("cite1", None, "https://encyclo.example/saint-exupery")]
    assert r.sources[0].metadata == [("License", "public domain"), ("Published", "1943-04-06")]


def test_anthropic_web_fetch_pages_are_sources_and_cited_exactly() -> None:
    r = reading("anthropic-web-fetch.json")
    fetched = r.sources[0]
    assert (fetched.id, fetched.url, fetched.title) == ("fetch0",
                                                        "https://library.example/hours",
                                                        "Library hours")
    assert fetched.text == "Opening hours\nThe library opens at 8:00 and closes at 20:00."
    target = r.citations[0].targets[0]
    assert (target.source_id, target.status.value, target.span) == ("fetch0", "ok", (14, 60))


def test_an_anthropic_citation_without_its_index_or_offsets_is_a_finding_on_it_alone() -> None:
    r = reading("lint/cv610.json")
    assert [c.claim for c in r.citations] == [(0, 26), (27, 49), (50, 67)]
    assert codes("lint/cv610.json") == [[], ["CV610"], ["CV610"]]
    assert [(t.source_id, t.status.value) for c in r.citations for t in c.targets] == [
        ("doc0", "ok"), ("doc-unknown", "unknown-source"), ("doc0", "location-out-of-range")]
    # The other citations are read as before: the first one is exact.
    assert r.citations[0].targets[0].span == (0, 34)


def test_without_the_request_an_incomplete_citation_still_shows_its_cited_text() -> None:
    response = raw("lint/cv610.json")["response"]  # type: ignore[index]
    r = read_payload(response)
    assert [[p.code for p in c.problems] for c in r.citations] == [
        ["CV608"], ["CV610"], ["CV610", "CV608"]]
    third = r.citations[2].targets[0]
    assert (third.source_id, third.status.value) == ("doc0", "unchecked")
    assert third.source is not None and third.span is not None
    assert third.source.text[third.span[0]:third.span[1]] == "Flights need a manager's approval."


def test_the_analysed_case_numbers_and_reports_the_new_findings() -> None:
    a = analyse(load_input(str(DATA / "lint" / "cv610.json")).get(0))
    found = [(d.code, getattr(d, "number", None)) for d in a.lint.all
             if d.code.startswith("CV6")]
    assert found == [("CV610", 2), ("CV610", 3)]


# --------------------------------------------------------------------------- the CLI


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


CHIPS = {"assistants-thread-message.json": 3, "azure-agents-messages.json": 1,
         "xai-responses.json": 2, "cohere-chat.json": 2, "perplexity-chat.json": 3,
         "gemini-interactions.json": 2, "gemini-interactions-steps.json": 2,
         "bedrock-converse-citations.json": 3,
         "vertex-citation-metadata.json": 2, "anthropic-web-fetch.json": 1,
         "bedrock-converse.exchange.json": 2}


@pytest.mark.parametrize("name", [*NEW, "bedrock-converse.exchange.json"])
def test_resolve_lint_and_convert_each_new_shape(capsys, tmp_path, name: str) -> None:
    rc, out, err = cli(capsys, "resolve", "--json", str(DATA / name))
    assert rc == 0 and err == "", err
    items = json.loads(out)
    assert len(items) == CHIPS[name]
    assert [(tuple(d["claim"]), d["claim_text"]) for d in items] == sorted(
        [(c[0], c[1]) for c in claims(name)], key=lambda x: (x[0][1], x[0][0]))
    rc, out, _ = cli(capsys, "lint", "--format", "json", str(DATA / name))
    found = {f["code"] for case in json.loads(out)["cases"] for f in case["diagnostics"]}
    assert not {c for c in found if c.startswith("CV6") and c != "CV608"}, found
    converted = tmp_path / "converted.json"
    rc, _, err = cli(capsys, "convert", str(DATA / name), "--to", "markers", "-o",
                     str(converted))
    assert rc == 0 and err == "", err
    case = json.loads(converted.read_text(encoding="utf-8"))
    assert case["answer"].count("\ue200cite\ue202") == CHIPS[name]
    rc, out, _ = cli(capsys, "lint", "--format", "json", str(converted))
    found = {f["code"] for case in json.loads(out)["cases"] for f in case["diagnostics"]}
    # The provider's own spans may end before a full stop (CV304) or leave a paragraph
    # uncited (CV308); nothing else of the guide's rules.
    assert found <= {"CV304", "CV308"}, found
    after = json.loads(cli(capsys, "resolve", "--json", str(converted))[1])
    assert [d["claim_text"] for d in after] == [d["claim_text"] for d in items]


@pytest.mark.parametrize("name, code", [("lint/cv610.json", "CV610"),
                                        ("lint/cv611.json", "CV611")])
def test_the_new_rules_have_fixtures_that_trigger_them(capsys, name: str, code: str) -> None:
    rc, out, _ = cli(capsys, "lint", "--format", "json", str(DATA / name))
    found = [f["code"] for case in json.loads(out)["cases"] for f in case["diagnostics"]]
    assert code in found
    assert rc == 1 if code == "CV610" else rc == 0  # an error fails lint, a warning does not


# --------------------------------------------------------------------------- untrusted input


def _paths(obj: object, at: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every path to a value in ``obj`` (keys and indices)."""
    out: list[tuple[object, ...]] = [at] if at else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*at, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*at, i))
    return out


def _replaced(obj: object, path: tuple[object, ...], value: object) -> object:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        return {k: (_replaced(v, rest, value) if k == head else v) for k, v in obj.items()}
    assert isinstance(obj, list)
    return [(_replaced(v, rest, value) if i == head else v) for i, v in enumerate(obj)]


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.text(max_size=8),
                    st.just([]), st.just({}), st.just(["x"]), st.just([{}]))


@settings(max_examples=100, deadline=None)
@given(data=st.data(), name=st.sampled_from(NEW + ["bedrock-converse.exchange.json",
                                                  "lint/cv610.json", "lint/cv611.json"]))
def test_a_damaged_response_is_read_or_refused_in_one_line(data, name: str) -> None:
    """Any one value of a new shape's fixture replaced by a wrong one: the response is still
    read, its claims inside the answer, or refused with an InputError (a one-line message),
    never another exception."""
    obj = raw(name)
    path = data.draw(st.sampled_from(_paths(obj)))
    damaged = _replaced(obj, path, data.draw(_VALUES))
    try:
        if isinstance(damaged, dict) and "response" in damaged:
            r = read_payload(damaged["response"], damaged.get("request"))
        else:
            r = read_payload(damaged)
    except InputError as e:
        assert "\n" not in str(e)
        return
    for c in r.citations:
        assert 0 <= c.claim[0] <= c.claim[1] <= len(r.answer)
        for t in c.targets:
            if t.span is not None and t.source is not None:
                assert 0 <= t.span[0] <= t.span[1] <= len(t.source.text)


def test_a_superscript_digit_is_not_a_number_of_a_provider() -> None:
    """"²".isdigit() is true but int("²") fails: it is refused as not a whole number."""
    damaged = raw("assistants-thread-message.json")
    damaged["content"][0]["text"]["annotations"][1]["start_index"] = "²"  # type: ignore[index]
    with pytest.raises(InputError, match="start_index must be a whole number"):
        read_payload(damaged)


def test_an_xai_citation_is_found_by_its_title_when_its_link_uses_another_url() -> None:
    text = "See [Mont Blanc facts](https://summit.example/mb?ref=x) and [[2]](https://b.example)."
    response = {"output": [{"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": text, "annotations": [
            {"type": "url_citation", "url": "https://summit.example/mb",
             "title": "Mont Blanc facts"},
            {"type": "url_citation", "url": "https://b.example", "title": "2"},
            {"type": "url_citation", "url": "https://c.example", "title": "3"}]}]}]}
    r = read_payload(response)
    # "See " is 4 characters; the first link is 17 + 2 + 33 + 1 = 51 long (4-55); the second
    # is "[[2]](https://b.example)" at 60-84; a title of digits is never looked for: the
    # third goes at the end.
    assert [c.claim for c in r.citations] == [(4, 55), (60, 84), (85, 85)]
    assert [[p.code for p in c.problems] for c in r.citations] == [[], [], ["CV611"]]


def test_a_jsonl_of_the_new_shapes_is_a_dataset(capsys, tmp_path) -> None:
    names = ["cohere-chat.json", "perplexity-chat.json", "bedrock-converse-citations.json",
             "gemini-interactions.json", "assistants-thread-message.json"]
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps(raw(n)) + "\n" for n in names), encoding="utf-8")
    rc, out, err = cli(capsys, "resolve", "--json", str(path))
    assert rc == 0 and err == "", err
    per_case: dict[str, int] = {}
    for d in json.loads(out):
        per_case[d["case"]] = per_case.get(d["case"], 0) + 1
    # Cases are named by the record's id (Bedrock has none: its line number).
    assert list(per_case.values()) == [CHIPS[n] for n in names]
    assert list(per_case)[0] == "c14c80c3-18eb-4519-9460-6c92edd8cfb4"


def test_a_url_cited_twice_with_one_link_puts_both_chips_on_that_link() -> None:
    text = "Lyon is warm [[1]](https://m.example/lyon) and sunny."
    ann = {"type": "url_citation", "url": "https://m.example/lyon", "title": "1"}
    r = read_payload({"output": [{"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": text, "annotations": [ann, dict(ann)]}]}]})
    # "Lyon is warm " is 13 characters; the link is "[[1]]" (5), "(", the URL (22) and ")":
    # 29. Both chips stand after it, never inside its target.
    assert [c.claim for c in r.citations] == [(13, 42), (13, 42)]
    # The same claim and the same source twice: the second repeats the first (CV607), never
    # a CV611 at the end.
    assert [[p.code for p in c.problems] for c in r.citations] == [[], ["CV607"]]
