"""Providers' citations through the command line: ``resolve --json``, ``screenshot --click N
--json``, ``lint`` (CV6xx), ``convert`` and bad input.

Fixtures: ``tests/data/providers`` (the shared samples, copied, and fixtures written from the
format descriptions by ``make_fixtures.py``; each has non-ASCII and astral text before its
spans). PDF text needs the optional pypdf: without it, page citations are unchecked.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from citeview.cli import main

DATA = Path(__file__).parent.parent / "data" / "providers"
LINT = DATA / "lint"
HAVE_PDF = importlib.util.find_spec("pypdf") is not None

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

W = "whole-source"
# file -> per citation: (claim text, [(source id, status, cited text)], chip position)
EXPECTED: dict[str, list[tuple[str, list[tuple[str, str, str]]]]] = {
    # The shared samples (copies).
    "openai-responses.web-search.json": [
        ("([summitpost.example](https://summitpost.example/mont-blanc))", [("url0", W, "")]),
        ("([alpinesurvey.example](https://alpinesurvey.example/2025))", [("url1", W, "")]),
    ],
    "openai-responses.file-search.json": [
        ("Refunds are paid within 14 days.",
         [("file-RefundPolicy01", W, "Refunds are paid within 14 days of receiving the return.")]),
        ("Shipping is free above €50.",
         [("file-Shipping02", W, "Orders above €50 ship free within the EU.")]),
    ],
    "anthropic-messages.documents.json": [
        ("Staff get 25 days of paid leave a year",
         [("doc0", "ok", "Staff receive 25 days of paid leave per year.")]),
        ("Flights need a manager's written approval.",
         [("doc1", "ok", "Flights need written approval from a manager.")]),
    ],
    "gemini.grounding.json": [
        ("Lyon is mild today ☀️ at 21°C.", [("chunk0", W, "")]),
        ("Rain is unlikely before Friday.", [("chunk1", W, "")]),
        ("Winds stay below 15 km/h.", [("chunk0", W, "")]),
    ],
    # Written from the descriptions.
    "responses-url.json": [
        ("([summitpost.example](https://summitpost.example/mb))", [("url0", W, "")]),
        ("([meteo.example](https://meteo.example/mb))", [("url2", W, "")]),
    ],
    "responses-file.json": [
        ("Über die Rückgabe 🎉: refunds are paid within 14 days.",
         [("file-Refunds01", W, "Refunds are paid within 14 days of receiving the return.\n\n"
                                "Refunds go to the original payment method.")]),
        ("Shipping is free above €50.",
         [("file-Shipping02", W, "Orders above €50 ship free within the EU.")]),
    ],
    "responses-container.json": [
        ("", [("cfile_data", W, "")]),
        ("chart.png", [("cfile_chart", W, "")]),
    ],
    "chat-completion.json": [
        ("([wikipedia.org](https://fr.wikipedia.org/wiki/Paris))", [("url0", W, "")]),
    ],
    "chat-transcript.json": [
        ("([wikipedia.org](https://fr.wikipedia.org/wiki/Paris))", [("url0", W, "")]),
    ],
    "anthropic-char.json": [
        ("Staff get 25 days of paid leave a year",
         [("doc0", "ok", "Staff receive 25 days of paid leave per year.")]),
        ("Flights need a manager's written approval.",
         [("doc1", "ok", "Flights need written approval from a manager.")]),
    ],
    "anthropic-blocks.json": [
        ("mix, then bake for twenty minutes.",
         [("doc0", "ok", "Step 2: mix flour and water.\nStep 3: bake for 20 minutes.")]),
    ],
    "anthropic-web.json": [
        ("it is 21 °C today", [("web0", "ok", "Lyon: 21 °C, sunny.")]),
        ("and rain comes on Friday.", [("web0", "ok", "Rain expected on Friday.")]),
    ],
    "anthropic-search-results.json": [
        ("sign in with your staff account",
         [("result0", "ok", "Sign in with your staff account.")]),
        ("; guests use «Gäste».", [("result1", "ok", "The guest network is «Gäste».")]),
    ],
    "gemini-web.json": [
        ("Lyon ☀️ 21°C — 𝔊ood day.", [("chunk0", W, "")]),
        ("Rain is unlikely before Friday.", [("chunk1", W, ""), ("chunk0", W, "")]),
        ("Winds stay below 15 km/h.",
         [("chunk2", W, "Winds in Lyon stay below 15 km/h this week.")]),
    ],
    "gemini-parts.json": [
        ("Lyon is sunny.", [("chunk0", W, "")]),
        ("rain on Friday.", [("chunk1", W, "")]),
    ],
}
PAGES = [  # anthropic-pages.json: page 2 has no text layer
    ("revenue grew by 12 percent",
     [("doc0", "ok", "Rapport annuel 2025\nRevenue grew by 12 percent.")]),
    ("; the chart shows a dip in spring", [("doc0", "unchecked", "Figure 2: a dip in spring.")]),
    ("while costs fell by 3 percent.", [("doc0", "ok", "Costs fell by 3 percent.")]),
]
if HAVE_PDF:
    EXPECTED["anthropic-pages.json"] = PAGES


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


def resolved(capsys: pytest.CaptureFixture[str], path: Path) -> list[dict]:
    rc, out, err = cli(capsys, "resolve", "--json", str(path))
    assert rc == 0 and err == "", err
    return json.loads(out)


def triples(items: list[dict]) -> list[tuple[str, list[tuple[str, str, str]]]]:
    return [(d["claim_text"], [(t["source_id"], t["status"], t["text"]) for t in d["targets"]])
            for d in items]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_resolve_json_gives_claims_targets_and_cited_text(capsys, name: str) -> None:
    items = resolved(capsys, DATA / name)
    assert triples(items) == EXPECTED[name]
    answer_of = _answer(name)
    for d in items:
        s, e = d["claim"]
        assert answer_of[s:e] == d["claim_text"]
        assert d["start"] == d["end"] == e  # the chip stands at the claim's end
        assert d["raw"] == "" and d["anchor"] == f"{d['kind']}@{e}-{e}"
        for t in d["targets"]:
            assert t["unit"] in ("chars", "pages", "blocks", "url", "whole")
    # Reading order by claim end: numbers follow the chip positions.
    assert [d["end"] for d in items] == sorted(d["end"] for d in items)


def _answer(name: str) -> str:
    from citeview.core.inputs import load_input

    return load_input(str(DATA / name)).get(0).answer


def test_claim_spans_are_code_points_after_astral_text(capsys) -> None:
    """Gemini counts UTF-8 bytes, OpenAI code points of a part, Anthropic whole blocks."""
    web = resolved(capsys, DATA / "gemini-web.json")
    text = _answer("gemini-web.json")
    assert [tuple(d["claim"]) for d in web] == [
        (0, 24), (text.index("Rain"), text.index("Rain") + 31),
        (text.index("Winds"), len(text))]
    url = resolved(capsys, DATA / "responses-url.json")
    first = _answer("responses-url.json")
    assert url[1]["claim"][0] == first.index("([meteo")  # the second part's offsets, shifted


def test_web_sources_list_every_search_result_with_title_and_url(capsys) -> None:
    rc, out, _ = cli(capsys, "convert", "--to", "json", str(DATA / "responses-url.json"))
    model = json.loads(out)
    assert [(s["id"], s["kind"], s["title"], s["url"]) for s in model["sources"]] == [
        ("url0", "web", "Mont Blanc | SummitPost", "https://summitpost.example/mb"),
        ("url1", "web", None, "https://other.example/alps"),  # searched, never cited
        ("url2", "web", "Météo du Mont Blanc", "https://meteo.example/mb"),
    ]
    assert ["Query", "Mont Blanc altitude; Mont Blanc température"] in model["sources"][0][
        "metadata"]


def test_jsonl_of_exchanges_reads_each_case(capsys) -> None:
    items = resolved(capsys, DATA / "exchanges.jsonl")
    assert [(d["case"], d["index"]) for d in items] == [
        ("anthropic-char", 1), ("anthropic-char", 2), ("gemini-in-jsonl", 1),
        ("gemini-in-jsonl", 2), ("gemini-in-jsonl", 3)]
    assert items[0]["targets"][0]["text"] == "Staff receive 25 days of paid leave per year."


# --------------------------------------------------------------------------- the window


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_screenshot_click_each_citation(qapp, capsys, tmp_path, name: str) -> None:
    from citeview.gui.answer_render import visible_text

    for n, (claim, targets) in enumerate(EXPECTED[name], 1):
        rc, out, err = cli(capsys, "screenshot", str(DATA / name), "--click", str(n),
                           "--size", "1000x600", "--out", str(tmp_path / "s.png"), "--json")
        assert rc == 0, err
        state = json.loads(out)
        assert state["citations"] == len(EXPECTED[name])
        assert state["active_citation"] == n
        assert state["claim"].replace("\n", " ") == visible_text(claim).replace("\n", " ")
        sid, status, text = targets[0]
        assert state["source_id"] == sid
        assert state["highlighted_text"] == text
        assert state["chip"].startswith(str(n))
        assert state["chip"].endswith("!") == (status not in ("ok", W))


def test_a_character_span_is_highlighted_exactly_not_its_line(qapp, capsys, tmp_path) -> None:
    rc, out, _ = cli(capsys, "screenshot", str(DATA / "anthropic-char.json"), "--click", "2",
                     "--out", str(tmp_path / "s.png"), "--json")
    state = json.loads(out)
    # Line 2 of the travel policy holds two sentences; only the cited one is highlighted.
    assert state["highlighted_text"] == "Flights need written approval from a manager."
    assert (state["first_line"], state["last_line"]) == ("L2", "L2")


# --------------------------------------------------------------------------- lint


CLEAN = [n for n in EXPECTED if n != "anthropic-pages.json"]


@pytest.mark.parametrize("code", [f"CV60{i}" for i in range(1, 10)])
def test_each_provider_rule_has_a_fixture_that_triggers_it(capsys, code: str) -> None:
    rc, out, _ = cli(capsys, "lint", "--format", "json", "--fail-on", "info",
                     str(LINT / f"{code.lower()}.json"))
    found = {f["code"] for case in json.loads(out)["cases"] for f in case["diagnostics"]}
    assert code in found
    assert rc == 1


def test_the_clean_fixtures_trigger_no_provider_rule(capsys) -> None:
    rc, out, _ = cli(capsys, "lint", "--format", "json", "--fail-on", "info",
                     *[str(DATA / n) for n in CLEAN])
    found = [f["code"] for case in json.loads(out)["cases"] for f in case["diagnostics"]]
    assert not [c for c in found if c.startswith("CV6")], found


def test_an_offset_inside_a_character_is_reported_and_the_claim_rounded(capsys) -> None:
    items = resolved(capsys, LINT / "cv602.json")
    assert items[0]["claim_text"] == "Lyon ☀"  # the end rounded up to the character's end
    rc, out, _ = cli(capsys, "lint", str(LINT / "cv602.json"))
    assert "endIndex 7 falls inside a multi-byte character" in out


def test_provider_findings_carry_their_citation_number(capsys) -> None:
    rc, out, _ = cli(capsys, "lint", "--format", "json", str(LINT / "cv603.json"))
    finding = json.loads(out)["cases"][0]["diagnostics"][0]
    assert (finding["code"], finding["citation"]) == ("CV603", 2)


# --------------------------------------------------------------------------- convert


def _norm(text: str) -> str:
    return " ".join(text.split())


ALLOWED_PLACEMENT = {  # where the provider's spans force a CV3xx finding
    "openai-responses.web-search.json": {"CV304"},  # a link's span ends before the full stop
    "responses-url.json": {"CV304"},
    "chat-completion.json": {"CV304"},
    "chat-transcript.json": {"CV304"},
    "responses-container.json": {"CV304", "CV305", "CV306", "CV308"},
    "anthropic-messages.documents.json": {"CV304", "CV306", "CV308"},  # a block ends mid-sentence
    "anthropic-char.json": {"CV304", "CV306", "CV308"},
    "anthropic-pages.json": {"CV304"},
    "anthropic-web.json": {"CV304"},
    "anthropic-search-results.json": {"CV304"},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_convert_to_markers_keeps_claims_sources_and_cited_text(capsys, tmp_path,
                                                                name: str) -> None:
    out_path = tmp_path / "converted.json"
    rc, _, err = cli(capsys, "convert", str(DATA / name), "--to", "markers", "-o",
                     str(out_path))
    assert rc == 0 and err == "", err
    converted = json.loads(out_path.read_text(encoding="utf-8"))
    assert "response" not in converted and "\ue200cite\ue202" in converted["answer"]
    rc, out, _ = cli(capsys, "lint", "--format", "json", str(out_path))
    codes = {f["code"] for case in json.loads(out)["cases"] for f in case["diagnostics"]}
    assert not {c for c in codes if c[:3] in ("CV1", "CV2")}, codes
    assert {c for c in codes if c.startswith("CV3")} <= ALLOWED_PLACEMENT.get(name, set())
    before = [(d["claim_text"], [(t["source_id"], _norm(t["text"])) for t in d["targets"]])
              for d in resolved(capsys, DATA / name)]
    after = [(d["claim_text"], [(t["source_id"], _norm(t["text"])) for t in d["targets"]])
             for d in resolved(capsys, out_path)]
    assert after == before


def test_convert_splits_lines_so_a_character_span_is_a_line_range(capsys) -> None:
    rc, out, _ = cli(capsys, "convert", str(DATA / "anthropic-char.json"), "--to", "markers")
    converted = json.loads(out)
    travel = converted["tool_outputs"][0].split("Citation Marker: ")[2]
    assert "[L2] Trains are booked in second class.\n[L3] Flights need written approval" in travel
    assert "\ue202doc1\ue202L3\ue201" in converted["answer"]
    assert converted["claims"][0] == [converted["answer"].index("Staff get"),
                                      converted["answer"].index(" a year") + 7]


def test_convert_a_dataset_writes_jsonl_and_a_plain_case_is_refused(capsys, tmp_path) -> None:
    rc, out, _ = cli(capsys, "convert", str(DATA / "exchanges.jsonl"), "--to", "json")
    assert rc == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [
        "anthropic-char", "gemini-in-jsonl"]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"id": "p", "answer": "No citations."}), encoding="utf-8")
    rc, _, err = cli(capsys, "convert", str(plain), "--to", "markers")
    assert rc == 2 and "holds no provider response" in err and err.count("\n") == 1


# --------------------------------------------------------------------------- bad input


def _bad(obj: object, tmp_path: Path) -> str:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    return str(path)


def _responses(annotations: object) -> dict:
    return {"object": "response", "output": [{"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": "Hi.",
                                                           "annotations": annotations}]}]}


BAD = {
    "annotations: 5": (_responses(5), "annotations must be a list, not a number"),
    "annotation not an object": (_responses(["x"]), "annotations[0] must be an object"),
    "url_citation without url": (
        _responses([{"type": "url_citation", "start_index": 0, "end_index": 2}]),
        "annotations[0].url is missing"),
    "start_index a string": (
        _responses([{"type": "url_citation", "start_index": "a", "end_index": 2,
                     "url": "https://x"}]), "start_index must be a whole number"),
    "anthropic citations: 5": (
        {"type": "message", "role": "assistant", "model": "m",
         "content": [{"type": "text", "text": "Hi", "citations": 5}]},
        "content[0].citations must be a list"),
    # (A char_location without document_index is read now, a CV610 finding on that citation
    # alone (issue 28): tests/core/test_providers_more.py.)
    "anthropic no text": ({"type": "message", "role": "assistant", "model": "m",
                           "content": []}, "no text block"),
    "gemini supports: {}": (
        {"candidates": [{"content": {"parts": [{"text": "Hi"}]},
                         "groundingMetadata": {"groundingSupports": {}}}]},
        "groundingSupports must be a list"),
    "gemini chunk index a string": (
        {"candidates": [{"content": {"parts": [{"text": "Hi"}]},
                         "groundingMetadata": {"groundingChunks": [], "groundingSupports": [
                             {"segment": {"endIndex": 2}, "groundingChunkIndices": ["0"]}]}}]},
        "groundingChunkIndices[0] must be a whole number"),
    "gemini no candidates": ({"candidates": []}, "no answer"),
    "chat content null": ({"object": "chat.completion",
                           "choices": [{"message": {"role": "assistant", "content": None}}]},
                          "no answer"),
    "chat annotations: 5": (
        {"object": "chat.completion",
         "choices": [{"message": {"role": "assistant", "content": "Hi", "annotations": 5}}]},
        "annotations must be a list"),
    "exchange request not an object": ({"request": 5, "response": {"candidates": []}},
                                       "\"request\" must be an object"),
    "exchange response unknown": ({"request": {}, "response": {"x": 1}},
                                  "not a response of a known provider"),
    "transcript annotations: 5": (
        {"messages": [{"role": "user", "content": "q"},
                      {"role": "assistant", "content": "Hi", "annotations": 5}]},
        "annotations must be a list"),
    "case with a bad response": ({"id": "c", "answer": "Hi", "response": {
        "type": "message", "role": "assistant", "model": "m", "content": 5}},
        "not a response of a known provider"),
    "case with a bad request": ({"id": "c", "answer": "Hi", "request": [], "response": {
        "type": "message", "role": "assistant", "model": "m", "content": []}},
        "\"request\" must be an object"),
}


@pytest.mark.parametrize("label", sorted(BAD))
def test_bad_provider_input_is_one_line_and_exit_2(capsys, tmp_path, label: str) -> None:
    obj, message = BAD[label]
    rc, out, err = cli(capsys, "resolve", _bad(obj, tmp_path))
    assert rc == 2, (out, err)
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_pdf_pages_without_pypdf_are_shown_unchecked(capsys, monkeypatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pypdf", None)  # import pypdf raises ImportError
    items = resolved(capsys, DATA / "anthropic-pages.json")
    assert [t["status"] for d in items for t in d["targets"]] == ["unchecked"] * 3
    assert [t["text"] for d in items for t in d["targets"]] == [
        "Rapport annuel 2025\nRevenue grew by 12 percent.", "Figure 2: a dip in spring.",
        "Costs fell by 3 percent."]
    assert "pypdf is not installed" in items[0]["targets"][0]["detail"]


def test_pdf_pages_are_read_and_checked_with_pypdf(capsys) -> None:
    pytest.importorskip("pypdf")
    items = resolved(capsys, DATA / "anthropic-pages.json")
    assert triples(items) == PAGES
    assert [t["pages"] for d in items for t in d["targets"]] == [[1, 1], [2, 2], [3, 3]]
    assert "page 2 has no text layer" in items[1]["targets"][0]["detail"]
