"""Crafted provider records whose id and answer carry HTML that would load from ``url`` if it
ran (issue 31, item 3): a bare Anthropic message, a Chat Completions response, a Gemini response
and a request/response exchange. Run as a script to write them to a folder:

    python tests/commands/make_hostile_inputs.py OUT_DIR http://127.0.0.1:8000
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def payload(url: str) -> str:
    return (f"<img src={url}/img.png><script>fetch('{url}/script')</script>"
            f"<iframe src={url}/frame></iframe><link rel=stylesheet href={url}/css>")


def records(url: str) -> dict[str, dict[str, Any]]:
    """name -> record; each id and answer text holds :func:`payload`."""
    bad = payload(url)
    anthropic = {"id": f"msg{bad}", "type": "message", "role": "assistant", "model": "m",
                 "stop_reason": "end_turn",
                 "content": [{"type": "text", "text": f"An answer {bad} here."}]}
    return {
        "anthropic": anthropic,
        "chat-completion": {
            "id": f"chatcmpl{bad}", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": f"An answer {bad} here."}}]},
        "gemini": {"responseId": f"g{bad}", "candidates": [{"content": {
            "role": "model", "parts": [{"text": f"An answer {bad} here."}]}}]},
        "exchange": {"id": f"ex{bad}", "request": {"model": "m", "max_tokens": 10, "messages": [
            {"role": "user", "content": f"Question {bad}?"}]}, "response": anthropic},
    }


def write(folder: Path, url: str) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, record in records(url).items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        out[name] = path
    return out


if __name__ == "__main__":
    print(json.dumps({k: str(v) for k, v in write(Path(sys.argv[1]), sys.argv[2]).items()}))
