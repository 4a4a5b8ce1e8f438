"""Regenerate the provider fixtures (run by hand; the outputs are committed).

Small responses written from the format descriptions in the provider-citations spec: one per
citation type and provider, each with non-ASCII and astral text before its spans, and one per
CV6xx rule that triggers it (``lint/``). Offsets are computed here, in each format's own unit
(code points of a part for OpenAI, characters of the document for Anthropic, UTF-8 bytes for
Gemini), so the fixtures say exactly what the formats say.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from _pdf import make_pdf  # noqa: E402


def span(text: str, needle: str) -> tuple[int, int]:
    s = text.index(needle)
    return s, s + len(needle)


def bspan(text: str, needle: str) -> tuple[int, int]:
    s = len(text[: text.index(needle)].encode("utf-8"))
    return s, s + len(needle.encode("utf-8"))


def write(name: str, obj: object) -> None:
    (HERE / name).write_text(json.dumps(obj, ensure_ascii=False, indent=1) + "\n",
                             encoding="utf-8")


# --------------------------------------------------------------------------- OpenAI


def responses_url() -> dict:
    p0 = "Le Mont Blanc 🏔️ culmine à 4 805 m ([summitpost.example](https://summitpost.example/mb)). "
    p1 = "En hiver — 𝔘 −20 °C au sommet ([meteo.example](https://meteo.example/mb))."
    a0 = span(p0, "([summitpost.example](https://summitpost.example/mb))")
    a1 = span(p1, "([meteo.example](https://meteo.example/mb))")
    return {"id": "responses-url", "object": "response", "model": "gpt-test", "output": [
        {"id": "ws_1", "type": "web_search_call", "status": "completed",
         "action": {"type": "search", "query": "Mont Blanc altitude",
                    "queries": ["Mont Blanc altitude", "Mont Blanc température"],
                    "sources": [{"type": "url", "url": "https://summitpost.example/mb"},
                                {"type": "url", "url": "https://other.example/alps"}]}},
        {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [
             {"type": "output_text", "text": p0, "logprobs": [], "annotations": [
                 {"type": "url_citation", "start_index": a0[0], "end_index": a0[1],
                  "title": "Mont Blanc | SummitPost", "url": "https://summitpost.example/mb"}]},
             {"type": "output_text", "text": p1, "logprobs": [], "annotations": [
                 {"type": "url_citation", "start_index": a1[0], "end_index": a1[1],
                  "title": "Météo du Mont Blanc", "url": "https://meteo.example/mb"}]}]}]}


def responses_file() -> dict:
    text = "Über die Rückgabe 🎉: refunds are paid within 14 days. Shipping is free above €50."
    i0 = text.index("days.") + 4
    i1 = len(text) - 1
    return {"id": "responses-file", "object": "response", "output": [
        {"id": "fs_1", "type": "file_search_call", "status": "completed",
         "queries": ["refund policy"], "results": [
             {"file_id": "file-Refunds01", "filename": "refunds.md", "score": 0.93,
              "attributes": {}, "vector_store_id": "vs_1",
              "text": "Refunds are paid within 14 days of receiving the return."},
             {"file_id": "file-Shipping02", "filename": "shipping.md", "score": 0.81,
              "attributes": {}, "vector_store_id": "vs_1",
              "text": "Orders above €50 ship free within the EU."},
             {"file_id": "file-Refunds01", "filename": "refunds.md", "score": 0.7,
              "attributes": {}, "vector_store_id": "vs_1",
              "text": "Refunds go to the original payment method."}]},
        {"id": "msg_1", "type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": text, "annotations": [
                {"type": "file_citation", "file_id": "file-Refunds01", "filename": "refunds.md",
                 "index": i0},
                {"type": "file_citation", "file_id": "file-Shipping02",
                 "filename": "shipping.md", "index": i1}]}]}]}


def responses_container() -> dict:
    text = "Voilà 📈 le graphique: chart.png shows the trend."
    a = span(text, "chart.png")
    return {"id": "responses-container", "object": "response", "output": [
        {"id": "ci_1", "type": "code_interpreter_call", "status": "completed",
         "container_id": "cntr_1", "code": "plot()"},
        {"id": "msg_1", "type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": text, "annotations": [
                {"type": "container_file_citation", "container_id": "cntr_1",
                 "file_id": "cfile_chart", "filename": "chart.png",
                 "start_index": a[0], "end_index": a[1]},
                {"type": "container_file_citation", "container_id": "cntr_1",
                 "file_id": "cfile_data", "filename": "data.csv",
                 "start_index": 0, "end_index": 0}]}]}]}


def chat_message() -> dict:
    text = "Paris 🗼 — la capitale française ([wikipedia.org](https://fr.wikipedia.org/wiki/Paris))."
    a = span(text, "([wikipedia.org](https://fr.wikipedia.org/wiki/Paris))")
    return {"role": "assistant", "content": text, "refusal": None, "annotations": [
        {"type": "url_citation", "url_citation": {
            "start_index": a[0], "end_index": a[1], "title": "Paris — Wikipédia",
            "url": "https://fr.wikipedia.org/wiki/Paris"}}]}


def chat_completion() -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600,
            "model": "gpt-4o-search-preview",
            "choices": [{"index": 0, "message": chat_message(), "finish_reason": "stop"}]}


def chat_transcript() -> dict:
    return {"id": "chat-transcript", "messages": [
        {"role": "system", "content": "Answer with web sources."},
        {"role": "user", "content": "Quelle est la capitale de la France ?"},
        chat_message()]}


# --------------------------------------------------------------------------- Anthropic


def _message(blocks: list[dict]) -> dict:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "stop_reason": "end_turn", "content": blocks,
            "usage": {"input_tokens": 100, "output_tokens": 20}}


def _request(blocks: list[dict], question: str) -> dict:
    return {"model": "claude-test", "max_tokens": 1024, "messages": [
        {"role": "user", "content": [*blocks, {"type": "text", "text": question}]}]}


def _text_doc(data: str, title: str) -> dict:
    return {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                           "data": data},
            "title": title, "citations": {"enabled": True}}


LEAVE = ("Politique de congés 🌴\r\nStaff receive 25 days of paid leave per year.\r\n"
         "Unused days expire on 31 March.")
TRAVEL = ("Reisen — 𝔗ravel policy\nTrains are booked in second class. Flights need written "
          "approval from a manager.")


def anthropic_char() -> dict:
    c0 = span(LEAVE, "Staff receive 25 days of paid leave per year.")
    c1 = span(TRAVEL, "Flights need written approval from a manager.")
    response = _message([
        {"type": "text", "text": "Résumé 📝 des règles.\n\n"},
        {"type": "text", "text": "Staff get 25 days of paid leave a year", "citations": [
            {"type": "char_location", "cited_text": LEAVE[c0[0]:c0[1]], "document_index": 0,
             "document_title": "Leave policy", "start_char_index": c0[0],
             "end_char_index": c0[1]}]},
        {"type": "text", "text": ", and unused days lapse at the end of March. "},
        {"type": "text", "text": "Flights need a manager's written approval.", "citations": [
            {"type": "char_location", "cited_text": TRAVEL[c1[0]:c1[1]], "document_index": 1,
             "document_title": "Travel policy", "start_char_index": c1[0],
             "end_char_index": c1[1]}]}])
    return {"id": "anthropic-char",
            "request": _request([_text_doc(LEAVE, "Leave policy"),
                                 _text_doc(TRAVEL, "Travel policy")],
                                "Summarise the leave and travel rules."),
            "response": response}


PDF_PAGES = [["Rapport annuel 2025", "Revenue grew by 12 percent."], [],
             ["Costs fell by 3 percent."]]


def anthropic_pages() -> dict:
    pdf = base64.b64encode(make_pdf(PDF_PAGES)).decode("ascii")
    response = _message([
        {"type": "text", "text": "D'après le rapport 📊, "},
        {"type": "text", "text": "revenue grew by 12 percent", "citations": [
            {"type": "page_location", "cited_text": "Rapport annuel 2025\nRevenue grew by 12 "
             "percent.", "document_index": 0, "document_title": "Annual report",
             "start_page_number": 1, "end_page_number": 2}]},
        {"type": "text", "text": "; the chart shows a dip in spring", "citations": [
            {"type": "page_location", "cited_text": "Figure 2: a dip in spring.",
             "document_index": 0, "document_title": "Annual report",
             "start_page_number": 2, "end_page_number": 3}]},
        {"type": "text", "text": " while costs fell by 3 percent.", "citations": [
            {"type": "page_location", "cited_text": "Costs fell by 3 percent.",
             "document_index": 0, "document_title": "Annual report",
             "start_page_number": 3, "end_page_number": 4}]}])
    doc = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                          "data": pdf},
           "title": "Annual report", "citations": {"enabled": True}}
    return {"id": "anthropic-pages", "request": _request([doc], "How did the year go?"),
            "response": response}


BLOCKS = ["Étape 1 🧪: preheat the oven to 200 °C.", "Step 2: mix flour and water.",
          "Step 3: bake for 20 minutes.", "Step 4: let it cool."]


def anthropic_blocks() -> dict:
    response = _message([
        {"type": "text", "text": "Recette 🍞: "},
        {"type": "text", "text": "mix, then bake for twenty minutes.", "citations": [
            {"type": "content_block_location", "cited_text": BLOCKS[1] + BLOCKS[2],
             "document_index": 0, "document_title": "Recipe", "start_block_index": 1,
             "end_block_index": 3}]}])
    doc = {"type": "document", "source": {"type": "content", "content": [
        {"type": "text", "text": b} for b in BLOCKS]}, "title": "Recipe",
        "citations": {"enabled": True}}
    return {"id": "anthropic-blocks", "request": _request([doc], "How do I bake it?"),
            "response": response}


def anthropic_web() -> dict:
    return {"id": "anthropic-web", "response": _message([
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
         "input": {"query": "Lyon météo"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
            {"type": "web_search_result", "url": "https://meteo.example/lyon",
             "title": "Météo Lyon", "encrypted_content": "EqQB...", "page_age": "1 day ago"},
            {"type": "web_search_result", "url": "https://news.example/lyon",
             "title": "Lyon news", "encrypted_content": "EqQC..."}]},
        {"type": "text", "text": "À Lyon ☀️ "},
        {"type": "text", "text": "it is 21 °C today", "citations": [
            {"type": "web_search_result_location", "url": "https://meteo.example/lyon",
             "title": "Météo Lyon", "encrypted_index": "Eo8B",
             "cited_text": "Lyon: 21 °C, sunny."}]},
        {"type": "text", "text": " and rain comes on Friday.", "citations": [
            {"type": "web_search_result_location", "url": "https://meteo.example/lyon",
             "title": "Météo Lyon", "encrypted_index": "Eo8C",
             "cited_text": "Rain expected on Friday."}]}])}


def anthropic_search_results() -> dict:
    r0 = {"type": "search_result", "source": "https://kb.example/vpn", "title": "VPN setup 🔐",
          "content": [{"type": "text", "text": "Install the client."},
                      {"type": "text", "text": "Sign in with your staff account."}],
          "citations": {"enabled": True}}
    r1 = {"type": "search_result", "source": "kb-42", "title": "Wi-Fi",
          "content": [{"type": "text", "text": "The guest network is «Gäste»."}],
          "citations": {"enabled": True}}
    request = {"model": "claude-test", "max_tokens": 512, "messages": [
        {"role": "user", "content": [r0, {"type": "text", "text": "How do I connect?"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "kb",
                                           "input": {"q": "wifi"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1",
                                      "content": [r1]}]}]}
    response = _message([
        {"type": "text", "text": "Zuerst 𝔙PN: "},
        {"type": "text", "text": "sign in with your staff account", "citations": [
            {"type": "search_result_location", "source": "https://kb.example/vpn",
             "title": "VPN setup 🔐", "search_result_index": 0, "start_block_index": 1,
             "end_block_index": 2, "cited_text": "Sign in with your staff account."}]},
        {"type": "text", "text": "; guests use «Gäste».", "citations": [
            {"type": "search_result_location", "source": "kb-42", "title": "Wi-Fi",
             "search_result_index": 1, "start_block_index": 0, "end_block_index": 1,
             "cited_text": "The guest network is «Gäste»."}]}])
    return {"id": "anthropic-search-results", "request": request, "response": response}


# --------------------------------------------------------------------------- Gemini


GEMINI_TEXT = "Lyon ☀️ 21°C — 𝔊ood day.\nRain is unlikely before Friday.\nWinds stay below 15 km/h."


def _gemini(parts: list[str], chunks: list[dict], supports: list[dict]) -> dict:
    return {"candidates": [{"content": {"parts": [{"text": p} for p in parts], "role": "model"},
                            "finishReason": "STOP", "index": 0,
                            "groundingMetadata": {
                                "webSearchQueries": ["Lyon météo"],
                                "searchEntryPoint": {"renderedContent": "<div>chips</div>"},
                                "groundingChunks": chunks, "groundingSupports": supports}}],
            "modelVersion": "gemini-test"}


def _support(text: str, needle: str, chunks: list[int], part: int | None = None) -> dict:
    s, e = bspan(text, needle)
    seg: dict = {"endIndex": e, "text": needle}
    if s:
        seg["startIndex"] = s
    if part:
        seg["partIndex"] = part
    return {"segment": seg, "groundingChunkIndices": chunks,
            "confidenceScores": [0.9] * len(chunks)}


WEB_CHUNKS = [{"web": {"uri": "https://meteo.example/lyon", "title": "meteo.example"}},
              {"web": {"uri": "https://weather.example/fr/lyon", "title": "weather.example"}},
              {"retrievedContext": {"uri": "gs://kb/lyon.txt", "title": "Lyon wind notes",
                                    "text": "Winds in Lyon stay below 15 km/h this week."}}]


def gemini_web() -> dict:
    t = GEMINI_TEXT
    return _gemini([t], WEB_CHUNKS, [
        _support(t, "Lyon ☀️ 21°C — 𝔊ood day.", [0]),
        _support(t, "Rain is unlikely before Friday.", [1, 0]),
        _support(t, "Winds stay below 15 km/h.", [2])])


def gemini_parts() -> dict:
    p0 = "Première partie 🎈: Lyon is sunny."
    p1 = " Deuxième — 𝔓art: rain on Friday."
    return _gemini([p0, p1], WEB_CHUNKS[:2], [
        _support(p0, "Lyon is sunny.", [0]),
        _support(p1, "rain on Friday.", [1], part=1)])


# --------------------------------------------------------------------------- lint triggers


def lint_fixtures() -> dict[str, object]:
    out: dict[str, object] = {}
    bad = responses_url()
    bad["id"] = "cv601"
    bad["output"][1]["content"][0]["annotations"][0]["end_index"] = 500
    out["cv601.json"] = bad
    t = GEMINI_TEXT
    g = gemini_web()
    s = g["candidates"][0]["groundingMetadata"]["groundingSupports"]
    s[0]["segment"]["endIndex"] = len(b"Lyon ") + 2  # inside ☀ (3 bytes)
    s[0]["segment"]["text"] = "Lyon ☀"
    s[1:] = []
    out["cv602.json"] = g
    g = gemini_web()
    g["candidates"][0]["groundingMetadata"]["groundingSupports"][1]["segment"]["text"] = \
        "Rain is likely before Friday."
    out["cv603.json"] = g
    a = anthropic_char()
    a["id"] = "cv604"
    a["response"]["content"][1]["citations"][0]["cited_text"] = "Staff receive 30 days."
    out["cv604.json"] = a
    g = gemini_web()
    g["candidates"][0]["groundingMetadata"]["groundingSupports"][2]["groundingChunkIndices"] = [7]
    out["cv605.json"] = g
    f = responses_file()
    f["id"] = "cv606"
    f["output"][1]["content"][0]["annotations"][1]["file_id"] = "file-Missing09"
    out["cv606.json"] = f
    sup = [_support(t, "Rain is unlikely before Friday.", [1]),
           _support(t, "before Friday.\nWinds", [0])]
    out["cv607.json"] = _gemini([t], WEB_CHUNKS, sup)
    a = anthropic_char()
    out["cv608.json"] = a["response"]
    a = anthropic_char()
    out["cv609.json"] = {"id": "cv609", "answer": "An answer somebody edited.",
                         "response": a["response"], "request": a["request"]}
    return out


def main() -> None:
    write("responses-url.json", responses_url())
    write("responses-file.json", responses_file())
    write("responses-container.json", responses_container())
    write("chat-completion.json", chat_completion())
    write("chat-transcript.json", chat_transcript())
    write("anthropic-char.json", anthropic_char())
    write("anthropic-pages.json", anthropic_pages())
    write("anthropic-blocks.json", anthropic_blocks())
    write("anthropic-web.json", anthropic_web())
    write("anthropic-search-results.json", anthropic_search_results())
    write("gemini-web.json", gemini_web())
    write("gemini-parts.json", gemini_parts())
    lines = [anthropic_char(), {"id": "gemini-in-jsonl", "response": gemini_web()}]
    (HERE / "exchanges.jsonl").write_text(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    for name, obj in lint_fixtures().items():
        write(f"lint/{name}", obj)


if __name__ == "__main__":
    main()
