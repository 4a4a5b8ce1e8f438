"""Regenerate the fixtures of the providers added for issue 28 (run by hand; the outputs are
committed). Each follows the structure of the public API reference named in README.md beside
it; the content is synthetic. Offsets are computed here in each format's own unit: code points
of the text for Assistants (a marker's ``start_index``/``end_index``) and Cohere, UTF-8 bytes
for Gemini's Interactions annotations and Vertex ``citationMetadata``, characters of the
document for Bedrock's ``documentChar``.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent


def span(text: str, needle: str) -> tuple[int, int]:
    s = text.index(needle)
    return s, s + len(needle)


def bspan(text: str, needle: str) -> tuple[int, int]:
    s = len(text[: text.index(needle)].encode("utf-8"))
    return s, s + len(needle.encode("utf-8"))


def write(name: str, obj: object) -> None:
    (HERE / name).write_text(json.dumps(obj, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")


def assistants() -> None:
    m1, m2 = "\u30104:0\u2020policy.md\u3011", "\u30104:1\u2020shipping.md\u3011"
    value = (f"Refunds are paid within 14 days{m1}. Shipping is free above €50.{m2}\n\n"
             "Download the [price list](sandbox:/mnt/data/prices.csv).")
    a1, a2 = span(value, m1), span(value, m2)
    a3 = span(value, "sandbox:/mnt/data/prices.csv")
    write("assistants-thread-message.json", {
        "id": "msg_abc123", "object": "thread.message", "created_at": 1735689600,
        "assistant_id": "asst_abc123", "thread_id": "thread_abc123", "run_id": "run_abc123",
        "role": "assistant", "attachments": [], "metadata": {},
        "content": [{"type": "text", "text": {"value": value, "annotations": [
            {"type": "file_citation", "text": m1, "start_index": a1[0], "end_index": a1[1],
             "file_citation": {"file_id": "file-policy"}},
            {"type": "file_citation", "text": m2, "start_index": a2[0], "end_index": a2[1],
             "file_citation": {"file_id": "file-shipping"}},
            {"type": "file_path", "text": "sandbox:/mnt/data/prices.csv",
             "start_index": a3[0], "end_index": a3[1],
             "file_path": {"file_id": "file-prices"}}]}}]})
    mark = "\u30103:0\u2020source\u3011"
    value = f"The museum opens at 9:00 on weekdays{mark}."
    a = span(value, mark)
    write("azure-agents-messages.json", {
        "object": "list", "first_id": "msg_2", "last_id": "msg_1", "has_more": False,
        "data": [
            {"id": "msg_2", "object": "thread.message", "created_at": 1735689700,
             "thread_id": "thread_1", "role": "assistant", "agent_id": "asst_1",
             "run_id": "run_1", "attachments": [], "metadata": {},
             "content": [{"type": "text", "text": {"value": value, "annotations": [
                 {"type": "url_citation", "text": mark, "start_index": a[0], "end_index": a[1],
                  "url_citation": {"url": "https://museum.example/hours",
                                   "title": "Opening hours"}}]}}]},
            {"id": "msg_1", "object": "thread.message", "created_at": 1735689600,
             "thread_id": "thread_1", "role": "user", "attachments": [], "metadata": {},
             "content": [{"type": "text", "text": {"value": "When does the museum open?",
                                                   "annotations": []}}]}]})


def xai() -> None:
    text = ("Mont Blanc is 4,806 m high [[1]](https://summit.example/mb). "
            "It was first climbed in 1786 [[2]](https://history.example/1786).")
    write("xai-responses.json", {
        "id": "resp_xai_1", "object": "response", "model": "grok-4", "status": "completed",
        "output": [
            {"type": "web_search_call", "id": "ws_1", "status": "completed",
             "action": {"type": "search", "query": "Mont Blanc height first ascent"}},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": text, "logprobs": [], "annotations": [
                 {"type": "url_citation", "url": "https://summit.example/mb", "title": "1"},
                 {"type": "url_citation", "url": "https://history.example/1786",
                  "title": "2"}]}]}]})
    write("lint/cv611.json", {
        "id": "resp_xai_2", "object": "response", "model": "grok-4", "status": "completed",
        "output": [{"type": "message", "id": "msg_1", "role": "assistant",
                    "status": "completed", "content": [{
                        "type": "output_text", "text": "Lyon had 21 °C today [[1]](https://meteo.example/lyon).",
                        "annotations": [
                            {"type": "url_citation", "url": "https://meteo.example/lyon",
                             "title": "1"},
                            {"type": "url_citation", "url": "https://news.example/lyon",
                             "title": "2"}]}]}]})


def cohere() -> None:
    text = "The tallest penguins are emperor penguins. They live only in Antarctica."
    c1 = span(text, "emperor penguins")
    c2 = span(text, "only in Antarctica")
    write("cohere-chat.json", {
        "id": "c14c80c3-18eb-4519-9460-6c92edd8cfb4", "finish_reason": "COMPLETE",
        "message": {"role": "assistant",
                    "content": [{"type": "text", "text": text}],
                    "citations": [
                        {"start": c1[0], "end": c1[1], "text": "emperor penguins",
                         "type": "TEXT_CONTENT", "sources": [
                             {"type": "document", "id": "doc:0", "document": {
                                 "id": "doc:0", "title": "Tall penguins",
                                 "snippet": "Emperor penguins are the tallest."}}]},
                        {"start": c2[0], "end": c2[1], "text": "only in Antarctica",
                         "type": "TEXT_CONTENT", "sources": [
                             {"type": "document", "id": "doc:1", "document": {
                                 "id": "doc:1", "title": "Penguin habitats",
                                 "snippet": "Emperor penguins only live in Antarctica."}},
                             {"type": "tool", "id": "search:0", "tool_output": {
                                 "id": "search:0", "text": "Habitat: Antarctica (sea ice)."}}]},
                    ]},
        "usage": {"billed_units": {"input_tokens": 21, "output_tokens": 15},
                  "tokens": {"input_tokens": 860, "output_tokens": 70}}})


def perplexity() -> None:
    text = ("The Eiffel Tower is 330 m tall[1]. It was finished in 1889[2][3].\n\n"
            "It is repainted every seven years.")
    write("perplexity-chat.json", {
        "id": "3c90c3cc-0d44-4b50-8888-8dd25736052a", "model": "sonar",
        "object": "chat.completion", "created": 1735689600,
        "usage": {"prompt_tokens": 9, "completion_tokens": 30, "total_tokens": 39,
                  "search_context_size": "low"},
        "citations": ["https://tower.example/facts", "https://history.example/1889",
                      "https://paris.example/eiffel"],
        "search_results": [
            {"title": "Eiffel Tower facts", "url": "https://tower.example/facts",
             "date": "2025-03-01", "snippet": "Height: 330 metres (with antennas)."},
            {"title": "1889 World's Fair", "url": "https://history.example/1889",
             "date": "2024-11-20", "snippet": "The tower was completed in March 1889."},
            {"title": "Eiffel Tower", "url": "https://paris.example/eiffel",
             "date": None, "snippet": "Construction ended in 1889."}],
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}]})


def interactions() -> None:
    text = "Zürich has 443,000 inhabitants. Its lake is 40 km long."
    a1 = bspan(text, "Zürich has 443,000 inhabitants.")
    a2 = bspan(text, "Its lake is 40 km long.")
    write("gemini-interactions.json", {
        "id": "v1_ChdIR3dYY3ZDVUJOZ2dqeWpaOC1aQTZBURIXSEd3WGN2Q1VCTmdnandqWjgtWkE2QVE",
        "object": "interaction", "model": "gemini-2.5-flash", "status": "completed",
        "role": "model", "created": "2025-12-11T10:00:00Z", "updated": "2025-12-11T10:00:04Z",
        "outputs": [
            {"type": "thought", "signature": "CoMDAXLI2nyx..."},
            {"type": "google_search_call", "id": "gs_1",
             "arguments": {"queries": ["Zürich population", "Lake Zurich length"]}},
            {"type": "google_search_result", "call_id": "gs_1", "result": [
                {"url": "https://stadt.example/zahlen", "title": "Zürich in Zahlen"},
                {"url": "https://lake.example/zurichsee", "title": "Zürichsee"}]},
            {"type": "text", "text": text, "annotations": [
                {"start_index": a1[0], "end_index": a1[1],
                 "source": "https://stadt.example/zahlen"},
                {"start_index": a2[0], "end_index": a2[1],
                 "source": "https://lake.example/zurichsee"}]}],
        "usage": {"total_input_tokens": 12, "total_output_tokens": 20,
                  "total_tokens": 32}})


def interaction_steps() -> None:
    text = "Der Zürichsee ist 40 km lang. Laut Handbuch öffnet das Bad um 9 Uhr."
    a1 = bspan(text, "Der Zürichsee ist 40 km lang.")
    a2 = bspan(text, "Laut Handbuch öffnet das Bad um 9 Uhr.")
    write("gemini-interactions-steps.json", {
        "id": "v1_steps_1", "object": "interaction", "model": "gemini-3-flash",
        "status": "completed", "created": "2026-06-01T10:00:00Z",
        "updated": "2026-06-01T10:00:05Z",
        "steps": [
            {"type": "user_input", "content": [{"type": "text", "text": "Zürichsee?"}]},
            {"type": "thought", "signature": "CoMDAXLI2nyx...", "summary": []},
            {"type": "url_context_call", "id": "uc_1",
             "arguments": {"urls": ["https://lake.example/zurichsee"]}},
            {"type": "url_context_result", "call_id": "uc_1",
             "result": {"url": "https://lake.example/zurichsee", "status": "success"}},
            {"type": "model_output", "content": [{"type": "text", "text": text, "annotations": [
                {"type": "url_citation", "url": "https://lake.example/zurichsee",
                 "title": "Zürichsee", "start_index": a1[0], "end_index": a1[1]},
                {"type": "file_citation", "document_uri": "fileSearchStores/bad/documents/h1",
                 "file_name": "handbuch.pdf", "page_number": 3,
                 "start_index": a2[0], "end_index": a2[1]}]}]}],
        "usage": {"total_input_tokens": 30, "total_output_tokens": 25, "total_tokens": 55}})


def bedrock() -> None:
    doc = "Staff receive 25 days of paid leave per year. Unused days expire in March."
    q1, q2 = "Staff receive 25 days of paid leave per year.", "Unused days expire in March."
    write("bedrock-converse-citations.json", {
        "output": {"message": {"role": "assistant", "content": [
            {"text": "According to the handbook, "},
            {"citationsContent": {
                "content": [{"text": "staff get 25 days of leave a year."}],
                "citations": [{"title": "handbook", "sourceContent": [{"text": q1}],
                               "location": {"documentChar": {
                                   "documentIndex": 0, "start": span(doc, q1)[0],
                                   "end": span(doc, q1)[1]}}}]}},
            {"text": " "},
            {"citationsContent": {
                "content": [{"text": "Days left over lapse in March."}],
                "citations": [
                    {"title": "handbook", "sourceContent": [{"text": q2}],
                     "location": {"documentChar": {"documentIndex": 0,
                                                   "start": span(doc, q2)[0],
                                                   "end": span(doc, q2)[1]}}},
                    {"title": "calendar", "sourceContent": [{"text": "March: leave resets."}],
                     "location": {"documentPage": {"documentIndex": 1, "start": 2,
                                                   "end": 2}}}]}}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 210, "outputTokens": 30, "totalTokens": 240},
        "metrics": {"latencyMs": 812}})


def bedrock_exchange() -> None:
    doc = "Staff receive 25 days of paid leave per year.\r\nUnused days expire in March."
    q1, q2 = "Staff receive 25 days of paid leave per year.", "Unused days expire in March."
    write("bedrock-converse.exchange.json", {
        "id": "bedrock-exchange",
        "request": {"modelId": "anthropic.claude-3-5-sonnet", "messages": [{
            "role": "user", "content": [
                {"document": {"format": "txt", "name": "handbook",
                              "source": {"text": doc}, "citations": {"enabled": True}}},
                {"text": "How much leave do I get, and when does it expire?"}]}]},
        "response": {
            "output": {"message": {"role": "assistant", "content": [
                {"citationsContent": {
                    "content": [{"text": "You get 25 days a year."}],
                    "citations": [{"title": "handbook", "sourceContent": [{"text": q1}],
                                   "location": {"documentChar": {
                                       "documentIndex": 0, "start": span(doc, q1)[0],
                                       "end": span(doc, q1)[1]}}}]}},
                {"text": " "},
                {"citationsContent": {
                    "content": [{"text": "They expire in March."}],
                    "citations": [{"title": "handbook", "sourceContent": [{"text": q2}],
                                   "location": {"documentChar": {
                                       "documentIndex": 0, "start": span(doc, q2)[0],
                                       "end": span(doc, q2)[1]}}}]}}]}},
            "stopReason": "end_turn",
            "usage": {"inputTokens": 120, "outputTokens": 14, "totalTokens": 134}}})


def vertex() -> None:
    text = ("Le Petit Prince commence ainsi : « Lorsque j'avais six ans j'ai vu, une fois, "
            "une magnifique image. » Le livre parut en 1943.")
    c1 = bspan(text, "« Lorsque j'avais six ans j'ai vu, une fois, une magnifique image. »")
    c2 = bspan(text, "Le livre parut en 1943.")
    write("vertex-citation-metadata.json", {
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": text}]},
            "finishReason": "STOP", "avgLogprobs": -0.21,
            "citationMetadata": {"citations": [
                {"startIndex": c1[0], "endIndex": c1[1],
                 "uri": "https://books.example/petit-prince", "title": "Le Petit Prince",
                 "license": "public domain",
                 "publicationDate": {"year": 1943, "month": 4, "day": 6}},
                {"startIndex": c2[0], "endIndex": c2[1],
                 "uri": "https://encyclo.example/saint-exupery"}]}}],
        "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 40,
                          "totalTokenCount": 48},
        "modelVersion": "gemini-2.0-flash-001", "createTime": "2025-01-01T00:00:00Z",
        "responseId": "vx-1"})


def anthropic() -> None:
    page = "Opening hours\nThe library opens at 8:00 and closes at 20:00."
    write("anthropic-web-fetch.json", {
        "type": "message",
        "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch",
             "input": {"url": "https://library.example/hours"}},
            {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_1", "content": {
                "type": "web_fetch_result", "url": "https://library.example/hours",
                "retrieved_at": "2025-08-25T10:30:00Z",
                "content": {"type": "document", "title": "Library hours",
                            "source": {"type": "text", "media_type": "text/plain",
                                       "data": page},
                            "citations": {"enabled": True}}}},
            {"type": "text", "text": "The library opens at 8:00.",
             "citations": [{"type": "web_search_result_location",
                            "url": "https://library.example/hours", "title": "Library hours",
                            "encrypted_index": "Eo8B",
                            "cited_text": "The library opens at 8:00 and closes at 20:00."}]}]})
    doc = "Trains are booked in second class. Flights need a manager's approval."
    write("lint/cv610.json", {
        "request": {"model": "claude-test", "max_tokens": 512, "messages": [
            {"role": "user", "content": [
                {"type": "document", "title": "Travel policy",
                 "source": {"type": "text", "media_type": "text/plain", "data": doc},
                 "citations": {"enabled": True}},
                {"type": "text", "text": "How do I travel?"}]}]},
        "response": {"type": "message", "role": "assistant", "content": [
            {"type": "text", "text": "Trains go in second class.", "citations": [
                {"type": "char_location", "cited_text": "Trains are booked in second class.",
                 "document_index": 0, "start_char_index": 0, "end_char_index": 34}]},
            {"type": "text", "text": " Flights need approval.", "citations": [
                {"type": "char_location", "cited_text": "Flights need a manager's approval.",
                 "document_title": "Travel policy", "start_char_index": 35,
                 "end_char_index": 69}]},
            {"type": "text", "text": " Ask your manager.", "citations": [
                {"type": "char_location", "cited_text": "Flights need a manager's approval.",
                 "document_index": 0}]}]}})


if __name__ == "__main__":
    assistants()
    xai()
    cohere()
    perplexity()
    interactions()
    interaction_steps()
    bedrock()
    bedrock_exchange()
    vertex()
    anthropic()
