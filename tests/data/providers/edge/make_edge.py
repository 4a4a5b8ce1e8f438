"""Regenerate the edge-case provider fixtures of issue 28 (run by hand; outputs committed).

Each follows the structure of a public reference named in README.md here; the content is
synthetic. Offsets are computed in each format's own unit (UTF-8 bytes for Gemini, characters
of the document for Anthropic, code points for OpenAI).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent


def bspan(text: str, needle: str) -> tuple[int, int]:
    s = len(text[: text.index(needle)].encode("utf-8"))
    return s, s + len(needle.encode("utf-8"))


def span(text: str, needle: str) -> tuple[int, int]:
    s = text.index(needle)
    return s, s + len(needle)


def write(name: str, obj: object) -> None:
    (HERE / name).write_text(json.dumps(obj, ensure_ascii=False, indent=1) + "\n",
                             encoding="utf-8")


CHUNKS = [{"web": {"uri": "https://meteo.example/lyon", "title": "meteo.example"}},
          {"web": {"uri": "https://weather.example/fr/lyon", "title": "weather.example"}}]


def _gemini(parts: list[dict], supports: list[dict]) -> dict:
    return {"candidates": [{"content": {"parts": parts, "role": "model"},
                            "finishReason": "STOP", "index": 0,
                            "groundingMetadata": {
                                "webSearchQueries": ["Lyon météo"],
                                "groundingChunks": CHUNKS, "groundingSupports": supports}}],
            "modelVersion": "gemini-test"}


def _seg(text: str, needle: str, chunks: list[int], shift: int = 0) -> dict:
    s, e = bspan(text, needle)
    seg: dict = {"endIndex": e + shift, "text": needle}
    if s + shift:
        seg["startIndex"] = s + shift
    return {"segment": seg, "groundingChunkIndices": chunks, "confidenceScores": [0.9]}


# A thinking model's answer: a thought summary and a function call come before the text part;
# the supports omit partIndex and count bytes in the text part.
THOUGHTS_TEXT = "Lyon ☀️ stays dry today. Rain arrives on Friday."


def gemini_thoughts() -> dict:
    t = THOUGHTS_TEXT
    return _gemini([{"text": "**Checking the forecast** I should search for Lyon.",
                     "thought": True},
                    {"functionCall": {"name": "get_weather", "args": {"city": "Lyon"}}},
                    {"text": t}],
                   [_seg(t, "Lyon ☀️ stays dry today.", [0]),
                    _seg(t, "Rain arrives on Friday.", [1])])


# Vertex: offsets two bytes past segment.text in a Markdown list; the third support's text is
# nowhere near its offsets.
VERTEX_TEXT = "Météo à Lyon:\n\n- Sunny mornings all week.\n- Storms on Friday evening."


def gemini_vertex_offsets() -> dict:
    t = VERTEX_TEXT
    bad = _seg(t, "Storms on Friday evening.", [1])
    bad["segment"]["text"] = "Hail on Saturday."
    s, e = bspan(t, "Storms on Friday evening.")
    bad["segment"]["startIndex"], bad["segment"]["endIndex"] = s + 3, e - 6  # "rms ... eve"
    return _gemini([{"text": t}],
                   [_seg(t, "Sunny mornings all week.", [0], shift=2),
                    _seg(t, "Storms on Friday", [1], shift=-2),
                    bad])


# Anthropic: the bold span "**25 days of paid leave**" and a code span split across text
# blocks, each citation on the block inside the markup (the shape of the Messages API
# citations guide's example: text blocks with char_location citations).
LEAVE = "Leave policy\nStaff receive 25 days of paid leave per year.\n"


def anthropic_split_bold() -> dict:
    c = span(LEAVE, "Staff receive 25 days of paid leave per year.")
    return {"id": "anthropic-split-bold",
            "request": {"model": "claude-test", "max_tokens": 1024, "messages": [
                {"role": "user", "content": [
                    {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                                    "data": LEAVE},
                     "title": "Leave policy", "citations": {"enabled": True}},
                    {"type": "text", "text": "How much leave do staff get?"}]}]},
            "response": {"id": "msg_1", "type": "message", "role": "assistant",
                         "model": "claude-test", "stop_reason": "end_turn", "content": [
                             {"type": "text", "text": "Staff get **"},
                             {"type": "text", "text": "25 days of paid leave", "citations": [
                                 {"type": "char_location", "cited_text": LEAVE[c[0]:c[1]],
                                  "document_index": 0, "document_title": "Leave policy",
                                  "start_char_index": c[0], "end_char_index": c[1]}]},
                             {"type": "text", "text": "** a year; `"},
                             {"type": "text", "text": "leave.md", "citations": [
                                 {"type": "char_location", "cited_text": LEAVE[0:12],
                                  "document_index": 0, "document_title": "Leave policy",
                                  "start_char_index": 0, "end_char_index": 12}]},
                             {"type": "text", "text": "` says so."}],
                         "usage": {"input_tokens": 100, "output_tokens": 20}}}


# OpenAI Responses: a container_file_citation whose span is the link text of a sandbox link
# (the code interpreter guide's example: "[Download the chart](sandbox:/mnt/data/chart.png)").
LINK_TEXT = "Voilà 📈 le graphique: [Download the chart](sandbox:/mnt/data/chart.png) now."


def responses_container_link() -> dict:
    t = LINK_TEXT
    a = span(t, "sandbox:/mnt/data/chart.png")
    return {"id": "responses-container-link", "object": "response", "output": [
        {"id": "ci_1", "type": "code_interpreter_call", "status": "completed",
         "container_id": "cntr_1", "code": "plot()"},
        {"id": "msg_1", "type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": t, "annotations": [
                {"type": "container_file_citation", "container_id": "cntr_1",
                 "file_id": "cfile_chart", "filename": "chart.png",
                 "start_index": a[0], "end_index": a[1]}]}]}]}


def main() -> None:
    write("gemini-thoughts.json", gemini_thoughts())
    write("gemini-vertex-offsets.json", gemini_vertex_offsets())
    write("anthropic-split-bold.json", anthropic_split_bold())
    write("responses-container-link.json", responses_container_link())


if __name__ == "__main__":
    main()
