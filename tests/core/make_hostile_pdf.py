"""A request/response exchange citing a PDF whose first page holds a huge number of text
operators (issue 31, item 5). Run as a script to write it:

    python tests/core/make_hostile_pdf.py OUT.json [LINES]
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "data" / "providers"))
from _pdf import make_pdf  # noqa: E402

NORMAL = ["Costs fell by 3 percent."]


def heavy_pdf(lines: int = 100_000) -> bytes:
    """Page 1: ``lines`` text lines (two text operators each: ``Tj`` and ``T*``); page 2: one."""
    return make_pdf([[f"w{i}" for i in range(lines)], NORMAL])


def exchange(pdf: bytes) -> dict:
    def cite(text: str, cited: str, page: int) -> dict:
        return {"type": "text", "text": text, "citations": [{
            "type": "page_location", "cited_text": cited, "document_index": 0,
            "document_title": "Report", "start_page_number": page,
            "end_page_number": page + 1}]}

    doc = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                          "data": base64.b64encode(pdf).decode("ascii")},
           "title": "Report", "citations": {"enabled": True}}
    return {"id": "heavy-pdf",
            "request": {"model": "m", "max_tokens": 10, "messages": [
                {"role": "user", "content": [doc, {"type": "text", "text": "How?"}]}]},
            "response": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                         "stop_reason": "end_turn", "content": [
                             {"type": "text", "text": "In short: "},
                             cite("the first word is w0", "w0", 1),
                             cite(" and costs fell.", NORMAL[0], 2)]}}


if __name__ == "__main__":
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    Path(sys.argv[1]).write_text(json.dumps(exchange(heavy_pdf(lines))), encoding="utf-8")
