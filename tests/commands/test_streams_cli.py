"""lint, resolve and convert take a recorded stream like any other input, and never read an
SSE log as a plain answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.cli import main

STREAMS = Path(__file__).parent.parent / "data" / "streams"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("name", ["anthropic-messages.sse", "openai-responses.events.jsonl",
                                  "openai-responses.sse", "gemini-stream.sse",
                                  "gemini-stream.json"])
def test_resolve_and_convert_a_stream_as_its_response(capsys: pytest.CaptureFixture[str],
                                                      name: str) -> None:
    plain = {"anthropic": "anthropic-messages.response.json",
             "openai": "openai-responses.response.json",
             "gemini": "gemini-stream.response.json"}[name.split("-")[0]]
    rc, streamed, err = run(capsys, "resolve", str(STREAMS / name))
    assert rc == 0 and err == ""
    assert streamed.strip()  # one row per provider citation, not "0 citations"
    rc, whole, _ = run(capsys, "resolve", str(STREAMS / plain))
    assert streamed == whole
    rc, converted, _ = run(capsys, "convert", "--to", "markers", str(STREAMS / name))
    rc2, converted_whole, _ = run(capsys, "convert", "--to", "markers", str(STREAMS / plain))
    assert rc == rc2 == 0
    drop = lambda d: {k: v for k, v in d.items() if k != "id"}  # noqa: E731
    assert drop(json.loads(converted)) == drop(json.loads(converted_whole))


def test_lint_reports_a_stream_that_ended_early(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "lint", str(STREAMS / "anthropic-messages.truncated.sse"))
    assert rc == 1
    assert "CV612 stream-ended-early" in out


def test_an_sse_log_no_reader_knows_is_one_line(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    log = tmp_path / "chat.sse"
    log.write_text('data: {"object": "thing.chunk", "x": 1}\n\ndata: [DONE]\n\n')
    rc, out, err = run(capsys, "resolve", str(log))
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "stream log that cannot be read" in err
    rc, out, _ = run(capsys, "lint", str(log))
    assert "CV504" in out and "0 citations" not in out
