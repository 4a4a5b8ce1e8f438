"""Recorded streams of the providers' APIs, assembled into the final response.

Three shapes, each as its SDK assembles it:

- OpenAI Responses ``response.*`` events (JSON lines, a JSON list, or SSE ``data:`` lines): the
  snapshot grows with ``output_item.added``, ``content_part.added``, ``output_text.delta`` and
  ``output_text.annotation.added`` (openai-python's ``ResponseStreamState``); the final response
  is the one ``response.completed`` (or ``.incomplete`` / ``.failed``) carries.
- Anthropic Messages server-sent events: ``message_start`` gives the message, ``content_block_*``
  build its blocks (``text_delta`` appends text, ``citations_delta`` appends to the block's
  ``citations``), ``message_delta`` sets the stop reason and usage, ``message_stop`` ends it
  (anthropic-sdk-python's ``accumulate_event``).
- Gemini ``streamGenerateContent`` chunks (SSE ``data:`` lines or a JSON array): the text of the
  parts of each candidate is concatenated; the last chunk's metadata (grounding, finish reason,
  usage) stands, as google-genai's chat history keeps it.

A log's own order is kept (:attr:`StreamEvent.index`), and its time where a record carries one
(a number ``t`` or ``time``, seconds from the start). What is wrong with a stream is a
:class:`~citeview.core.providers.model.Problem`: CV612 (no final event: the stream ended early),
CV613 (a delta disagrees with the final message).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from citeview.core.errors import InputError
from citeview.core.numbering import number_at
from citeview.core.providers.model import Problem, type_name

_NON_SPACE_RE = re.compile(r"\S")

_ANTHROPIC_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta",
                               "content_block_stop", "message_delta", "message_stop", "ping",
                               "error"})
_OPENAI_FINAL = ("response.completed", "response.incomplete", "response.failed")


@dataclass(slots=True, frozen=True)
class StreamEvent:
    """One event as the log recorded it: its place in the log, type and data, and its arrival
    time in seconds when the log has one."""

    index: int
    type: str
    data: Mapping[str, Any]
    time: float | None = None

    @property
    def number(self) -> int:
        """Its number as people count events (from 1)."""
        return number_at(self.index)


@dataclass(slots=True)
class StreamReading:
    """A stream assembled: its provider, its events in arrival order, the final response as
    the SDK builds it, whether the final event arrived, and what is wrong with it."""

    provider: str  # "openai-responses", "anthropic" or "gemini"
    events: list[StreamEvent]
    response: dict[str, Any]
    complete: bool
    problems: list[Problem] = field(default_factory=list)


# --------------------------------------------------------------------------- raw text


def looks_like_sse(text: str) -> bool:
    """Whether ``text`` is server-sent events: its first field line (comment lines ``:`` may
    come before) is ``event:`` or ``data:``, and its first ``data:`` value is JSON (an object
    or a list) or ``[DONE]``; an answer that happens to start with "data: " is not."""
    text = text.lstrip("\ufeff")
    first = _NON_SPACE_RE.search(text)
    if first is None or not text.startswith((":", "event:", "data:"), first.start()):
        return False  # (its first line that is not blank decides: a big input is not split)
    field_seen = False
    for n, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if not stripped or stripped.startswith(":"):
            continue
        if not field_seen and not stripped.startswith(("event:", "data:")):
            return False
        field_seen = True
        if stripped.startswith("data:"):
            value = stripped[5:].strip()
            return value.startswith(("{", "[")) and value != "["
        if n > 50 or not stripped.startswith(("event:", "id:", "retry:")):
            return False
    return False


class SseDecoder:
    """Server-sent events decoded from bytes as they arrive, by the WHATWG rules: lines end
    with CRLF, LF or CR (a CR at the end of a chunk waits for the next byte), data lines join
    with newlines, one space after the colon is dropped, a blank line dispatches, comments and
    other fields are ignored, an event with no data is not dispatched. A line is decoded once
    it is whole (CR and LF never occur inside a UTF-8 sequence), so any chunking of the same
    bytes gives the same events."""

    __slots__ = ("_buf", "_data", "_name", "_started")

    def __init__(self) -> None:
        self._buf = b""
        self._name: str | None = None
        self._data: list[str] = []
        self._started = False

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        """The events completed by ``chunk``: (event name, data)."""
        self._buf += chunk
        out: list[tuple[str | None, str]] = []
        if not self._started:
            if len(self._buf) < 3 and b"\xef\xbb\xbf".startswith(self._buf):
                return out
            self._buf = self._buf.removeprefix(b"\xef\xbb\xbf")
            self._started = True
        pos = 0
        buf = self._buf
        while True:
            cr, lf = buf.find(b"\r", pos), buf.find(b"\n", pos)
            ends = [i for i in (cr, lf) if i >= 0]
            if not ends:
                break
            i = min(ends)
            if i == cr:
                if i + 1 == len(buf):
                    break  # a CR that may be the start of a CRLF
                end = i + 2 if buf[i + 1:i + 2] == b"\n" else i + 1
            else:
                end = i + 1
            self._line(buf[pos:i].decode("utf-8", "replace"), out)
            pos = end
        self._buf = buf[pos:]
        return out

    def finish(self) -> list[tuple[str | None, str]]:
        """The end of the stream: a last line without its line end, then the pending event."""
        out: list[tuple[str | None, str]] = []
        if self._buf:
            rest = self._buf.removesuffix(b"\r")
            self._buf = b""
            self._line(rest.decode("utf-8", "replace"), out)
        self._line("", out)
        return out

    def _line(self, line: str, out: list[tuple[str | None, str]]) -> None:
        if not line:
            if self._data:
                out.append((self._name, "\n".join(self._data)))
            self._name, self._data = None, []
            return
        if line.startswith(":"):
            return
        key, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if key == "event":
            self._name = value
        elif key == "data":
            self._data.append(value)


def parse_sse(data: str | bytes) -> list[tuple[str | None, str]]:
    """The events of server-sent event text or bytes, as (event name, data)."""
    decoder = SseDecoder()
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return [*decoder.feed(raw), *decoder.finish()]


def sse_events_to_records(events: Sequence[tuple[str | None, str]]) -> list[object]:
    """The JSON values of the ``data`` of server-sent events (``[DONE]`` ends the stream);
    bad JSON is an InputError naming the event. The event name fills a missing ``type``."""
    records: list[object] = []
    for n, (name, data) in enumerate(events, 1):
        if data.strip() == "[DONE]":
            break
        try:
            value = json.loads(data)
        except json.JSONDecodeError as err:
            raise InputError(f"event {n} ({name or 'message'}): its data is not JSON "
                             f"({err.msg})") from None
        if isinstance(value, dict) and name and "type" not in value and name != "message":
            value = {"type": name, **value}
        records.append(value)
    return records


def sse_records(text: str | bytes) -> list[object]:
    """The JSON values of the events of server-sent event text (see
    :func:`sse_events_to_records`)."""
    return sse_events_to_records(parse_sse(text))


# --------------------------------------------------------------------------- what a log is


def event_provider(obj: object) -> str | None:
    """The provider whose stream event ``obj`` is, or None."""
    if not isinstance(obj, Mapping):
        return None
    kind = obj.get("type")
    if isinstance(kind, str):
        if kind.startswith("response.") and "sequence_number" in obj or kind in (
                "response.created", "response.in_progress", *_OPENAI_FINAL):
            return "openai-responses"
        if kind.startswith("response.output_text.") or kind.startswith("response.output_item."):
            return "openai-responses"
        if kind in _ANTHROPIC_EVENTS and (kind != "error" or "error" in obj):
            return "anthropic"
    return None


def is_gemini_chunks(items: Sequence[object]) -> bool:
    """Whether a list is the chunks of one Gemini stream (not a dataset of responses): more
    than one response, and only the last has a finish reason (or all share one responseId)."""
    if len(items) < 2 or not all(isinstance(i, Mapping) and isinstance(i.get("candidates"), list)
                                 for i in items):
        return False
    ids = {i.get("responseId") for i in items if isinstance(i, Mapping)}
    if len(ids) == 1 and None not in ids:
        return True
    return all(not _finish(i) for i in items[:-1])


def stream_provider(items: Sequence[object]) -> str | None:
    """The provider whose stream the records ``items`` are, or None when they are not one."""
    if not items:
        return None
    first = event_provider(items[0])
    if first is not None:
        return first
    return "gemini" if is_gemini_chunks(items) else None


def _finish(chunk: object) -> bool:
    if not isinstance(chunk, Mapping):
        return False
    cands = chunk.get("candidates")
    return isinstance(cands, list) and any(isinstance(c, Mapping) and c.get("finishReason")
                                           for c in cands)


# --------------------------------------------------------------------------- assembly


def read_stream(records: Sequence[object], provider: str | None = None) -> StreamReading:
    """Assemble the records of a stream log (events or chunks, in arrival order)."""
    provider = provider or stream_provider(records)
    events: list[StreamEvent] = []
    for n, rec in enumerate(records):
        if not isinstance(rec, Mapping):
            raise InputError(f"event {n + 1} of the stream is {type_name(rec)}, not an object")
        kind = rec.get("type")
        stamp = next((rec[k] for k in ("t", "time") if isinstance(rec.get(k), (int, float))
                      and not isinstance(rec.get(k), bool)), None)
        events.append(StreamEvent(n, kind if isinstance(kind, str) else "chunk", rec,
                                  float(stamp) if stamp is not None else None))
    if provider == "openai-responses":
        return _openai(events)
    if provider == "anthropic":
        return _anthropic(events)
    if provider == "gemini":
        return _gemini(events)
    raise InputError("not a stream of OpenAI Responses events, Anthropic Messages events or "
                     "Gemini chunks")


def read_stream_text(text: str) -> StreamReading:
    """A stream log's text: server-sent events, a JSON list, or JSON lines."""
    stripped = text.lstrip("\ufeff").strip()
    if looks_like_sse(stripped):
        records = sse_records(stripped)
    elif stripped.startswith("["):
        try:
            value = json.loads(stripped)
        except json.JSONDecodeError as err:
            raise InputError(f"not JSON ({err.msg})") from None
        records = value if isinstance(value, list) else [value]
    else:
        records = []
        for n, line in enumerate(stripped.splitlines(), 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise InputError(f"line {n}: not JSON ({err.msg})") from None
    if not records:
        raise InputError("a stream with no events")
    return read_stream(records)


def _ended(name: str, final: str) -> Problem:
    return Problem("CV612", f"the {name} stream ended early: no {final} event; the response "
                   "is what had arrived")


def _openai(events: list[StreamEvent]) -> StreamReading:
    snapshot: dict[str, Any] | None = None
    final: dict[str, Any] | None = None
    problems: list[Problem] = []
    for ev in events:
        d = ev.data
        if ev.type in ("response.created", "response.in_progress") and isinstance(
                d.get("response"), Mapping):
            snapshot = copy.deepcopy(dict(d["response"]))
            snapshot["output"] = list(snapshot.get("output") or [])
            continue
        if ev.type in _OPENAI_FINAL and isinstance(d.get("response"), Mapping):
            final = copy.deepcopy(dict(d["response"]))
            continue
        if snapshot is None:
            snapshot = {"object": "response", "output": []}
        output: list[Any] = snapshot["output"]
        try:
            if ev.type == "response.output_item.added":
                output.append(copy.deepcopy(dict(d["item"])))
            elif ev.type == "response.content_part.added":
                output[d["output_index"]].setdefault("content", []).append(
                    copy.deepcopy(dict(d["part"])))
            elif ev.type == "response.output_text.delta":
                part = output[d["output_index"]]["content"][d["content_index"]]
                part["text"] = part.get("text", "") + str(d["delta"])
            elif ev.type == "response.output_text.annotation.added":
                part = output[d["output_index"]]["content"][d["content_index"]]
                anns = part.setdefault("annotations", [])
                at = d.get("annotation_index", len(anns))
                if at == len(anns):
                    anns.append(copy.deepcopy(d["annotation"]))
                elif isinstance(at, int) and 0 <= at < len(anns):
                    anns[at] = copy.deepcopy(d["annotation"])
                else:
                    problems.append(Problem("CV613", f"event {ev.number}: annotation_index "
                                            f"{at} skips annotations"))
            elif ev.type == "response.output_item.done":
                output[d["output_index"]] = copy.deepcopy(dict(d["item"]))
        except (KeyError, IndexError, TypeError):
            problems.append(Problem("CV613", f"event {ev.number} ({ev.type}): refers to an "
                                    "output item or content part that has not arrived"))
    built = snapshot or {"object": "response", "output": []}
    if final is None:
        problems.insert(0, _ended("OpenAI Responses", "response.completed"))
        return StreamReading("openai-responses", events, built, False, problems)
    problems.extend(_compare_openai(_deltas_only(events), final))
    return StreamReading("openai-responses", events, final, True, problems)


def _deltas_only(events: list[StreamEvent]) -> dict[tuple[int, int], tuple[str, list[Any]]]:
    """Text and annotations per (output index, content index) from the delta events alone."""
    parts: dict[tuple[int, int], tuple[str, list[Any]]] = {}
    for ev in events:
        d = ev.data
        oi, ci = d.get("output_index"), d.get("content_index")
        if not isinstance(oi, int) or not isinstance(ci, int):
            continue
        ikey = (oi, ci)
        text, anns = parts.get(ikey, ("", []))
        if ev.type == "response.output_text.delta":
            parts[ikey] = (text + str(d.get("delta", "")), anns)
        elif ev.type == "response.output_text.annotation.added":
            parts[ikey] = (text, [*anns, d.get("annotation")])
    return parts


def _compare_openai(parts: dict[tuple[int, int], tuple[str, list[Any]]],
                    final: Mapping[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    output = final.get("output")
    for (oi, ci), (text, anns) in sorted(parts.items()):
        try:
            part = output[oi]["content"][ci]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            problems.append(Problem("CV613", f"deltas for output {oi} part {ci}, which the "
                                    "final response does not have"))
            continue
        if part.get("text") != text:
            problems.append(Problem("CV613", f"output {oi} part {ci}: the text deltas make "
                                    f"{len(text)} characters, the final response's text "
                                    f"differs ({len(str(part.get('text', '')))} characters)"))
        if anns and part.get("annotations") != anns:
            problems.append(Problem("CV613", f"output {oi} part {ci}: the annotation events "
                                    "differ from the final response's annotations"))
    return problems


def _anthropic(events: list[StreamEvent]) -> StreamReading:
    message: dict[str, Any] | None = None
    problems: list[Problem] = []
    complete = False
    partial_json: dict[int, str] = {}
    for ev in events:
        d = ev.data
        if ev.type == "message_start" and isinstance(d.get("message"), Mapping):
            message = copy.deepcopy(dict(d["message"]))
            message["content"] = list(message.get("content") or [])
            continue
        if ev.type in ("ping",):
            continue
        if ev.type == "error":
            problems.append(Problem("CV612", f"event {ev.number}: the stream reported an "
                                    f"error: {json.dumps(d.get('error'))[:200]}"))
            continue
        if message is None:
            problems.append(Problem("CV613", f"event {ev.number} ({ev.type}) before "
                                    "message_start"))
            message = {"type": "message", "role": "assistant", "content": []}
        content: list[Any] = message["content"]
        try:
            if ev.type == "content_block_start":
                block = copy.deepcopy(dict(d["content_block"]))
                if d.get("index", len(content)) != len(content):
                    problems.append(Problem("CV613", f"event {ev.number}: block index "
                                            f"{d.get('index')} after {len(content)} blocks"))
                content.append(block)
            elif ev.type == "content_block_delta":
                block = content[d["index"]]
                delta = d["delta"]
                dt = delta.get("type")
                if dt == "text_delta":
                    block["text"] = block.get("text", "") + str(delta["text"])
                elif dt == "citations_delta":
                    block.setdefault("citations", [])
                    if block["citations"] is None:
                        block["citations"] = []
                    block["citations"].append(copy.deepcopy(delta["citation"]))
                elif dt == "input_json_delta":
                    partial_json[d["index"]] = partial_json.get(d["index"], "") + str(
                        delta.get("partial_json", ""))
                elif dt == "thinking_delta":
                    block["thinking"] = block.get("thinking", "") + str(delta["thinking"])
                elif dt == "signature_delta":
                    block["signature"] = delta["signature"]
            elif ev.type == "content_block_stop":
                idx = d["index"]
                if idx in partial_json:
                    try:
                        content[idx]["input"] = json.loads(partial_json[idx] or "{}")
                    except json.JSONDecodeError:
                        problems.append(Problem("CV613", f"block {idx}: its input_json_delta "
                                                "parts are not JSON"))
            elif ev.type == "message_delta":
                delta = d.get("delta") or {}
                for key in ("stop_reason", "stop_sequence"):
                    if key in delta:
                        message[key] = delta[key]
                usage = d.get("usage")
                if isinstance(usage, Mapping):
                    mine = message.setdefault("usage", {})
                    for key, value in usage.items():
                        if value is not None:
                            mine[key] = value
            elif ev.type == "message_stop":
                complete = True
        except (KeyError, IndexError, TypeError, AttributeError):
            problems.append(Problem("CV613", f"event {ev.number} ({ev.type}): refers to a "
                                    "content block that has not started"))
    built = message or {"type": "message", "role": "assistant", "content": []}
    if not complete:
        problems.insert(0, _ended("Anthropic Messages", "message_stop"))
    return StreamReading("anthropic", events, built, complete, problems)


def _gemini(events: list[StreamEvent]) -> StreamReading:
    texts: dict[int, list[str]] = {}
    final: dict[str, Any] = {}
    cands: dict[int, dict[str, Any]] = {}
    for ev in events:
        chunk = ev.data
        for key, value in chunk.items():
            if key not in ("candidates", "t", "time"):
                final[key] = copy.deepcopy(value)
        for pos, cand in enumerate(chunk.get("candidates") or []):
            if not isinstance(cand, Mapping):
                continue
            i = cand.get("index", pos)
            i = i if isinstance(i, int) else pos
            mine = cands.setdefault(i, {})
            for key, value in cand.items():
                if key != "content":
                    mine[key] = copy.deepcopy(value)
            content = cand.get("content")
            if isinstance(content, Mapping):
                mine.setdefault("content", {"role": content.get("role", "model"), "parts": []})
                for part in content.get("parts") or []:
                    if isinstance(part, Mapping) and isinstance(part.get("text"), str) and not (
                            part.get("thought")):
                        texts.setdefault(i, []).append(part["text"])
                    elif isinstance(part, Mapping):
                        mine["content"]["parts"].append(copy.deepcopy(dict(part)))
    for i, mine in cands.items():
        if i in texts:
            mine.setdefault("content", {"role": "model", "parts": []})
            mine["content"]["parts"].insert(0, {"text": "".join(texts[i])})
    final["candidates"] = [cands[i] for i in sorted(cands)]
    complete = any(c.get("finishReason") for c in cands.values())
    problems = [] if complete else [_ended("Gemini", "finishReason")]
    return StreamReading("gemini", events, final, complete, problems)


def stream_summary(reading: StreamReading) -> dict[str, Any]:
    """What a case keeps of its stream (``case.extra["stream"]``): the provider, whether it
    ended, its problems and its events in order (type, data, time): the replay plays them."""
    return {"provider": reading.provider, "complete": reading.complete,
            "problems": [[p.code, p.message] for p in reading.problems],
            "events": [{"type": e.type, "data": dict(e.data), **(
                {"t": e.time} if e.time is not None else {})} for e in reading.events]}


def stream_problems(stream: object) -> list[Problem]:
    """The problems kept in a case's ``extra["stream"]``."""
    if not isinstance(stream, Mapping) or not isinstance(stream.get("problems"), list):
        return []
    return [Problem(str(p[0]), str(p[1])) for p in stream["problems"]
            if isinstance(p, list) and len(p) == 2]


__all__ = ["SseDecoder", "StreamEvent", "StreamReading", "event_provider", "is_gemini_chunks",
           "looks_like_sse", "parse_sse", "read_stream", "read_stream_text",
           "sse_events_to_records", "sse_records",
           "stream_problems", "stream_provider", "stream_summary"]
