"""Records as cases: what a parsed JSON record is (:func:`detect_kind`) and how it becomes a
:class:`Case` (:func:`record_to_case`): a case JSON, an OpenAI Chat Completions transcript (an
object with ``messages`` or a bare message list) or OpenAI Responses API output (an object with
``output`` or the bare output list).

Failures are :class:`InputError` messages without a file name; the dataset that read the record
prefixes where it was.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from citeview.core import providers
from citeview.core.cases import Case
from citeview.core.errors import InputError
from citeview.core.providers import streams

_RESPONSES_TYPES = frozenset({
    "message", "function_call", "function_call_output", "file_search_call", "web_search_call",
    "reasoning", "computer_call", "computer_call_output", "code_interpreter_call",
    "custom_tool_call", "custom_tool_call_output", "mcp_call", "image_generation_call",
    "local_shell_call", "local_shell_call_output",
})
# A tag with an id attribute: injected context (the guide's "<block id=...>").
_CONTEXT_TAG_RE = re.compile(r"<[A-Za-z][\w.-]*\s[^<>]*\bid\s*=\s*[\"']?[^\s\"'<>]")


def detect_kind(obj: object) -> str:
    """"case", "chat", "responses", "json-array", a provider's kind
    (:data:`citeview.core.providers.RECORD_KINDS`) or "unknown" for a parsed JSON value."""
    if isinstance(obj, Mapping):
        if "answer" in obj:
            return "case"
        if "messages" in obj:
            return "chat"
        if "output" in obj and isinstance(obj.get("output"), list):
            return "responses"
        return providers.record_kind(obj) or "unknown"
    if isinstance(obj, list):
        if not obj:
            return "unknown"
        if streams.stream_provider(obj):
            return "stream"  # a provider's recorded stream: events or chunks, in order
        dicts = [o for o in obj if isinstance(o, Mapping)]
        if len(dicts) != len(obj):
            return "json-array" if all(isinstance(o, (list, Mapping)) for o in obj) else "unknown"
        if all(providers.record_kind(o) for o in dicts):
            return "json-array"  # provider responses (an Anthropic one has "type": "message")
        if any(_is_responses_item(o) for o in dicts):
            return "responses"
        if all("role" in o and "answer" not in o for o in dicts):
            return "chat"
        return "json-array"
    return "unknown"


def _is_responses_item(item: Mapping[str, Any]) -> bool:
    kind = item.get("type")
    return isinstance(kind, str) and kind in _RESPONSES_TYPES and "answer" not in item


def record_to_case(obj: object, default_id: str) -> Case:
    """One record (case, chat transcript or Responses output) as a :class:`Case`."""
    kind = detect_kind(obj)
    if kind == "case":
        case = Case.from_dict(obj, default_id)
        providers.check_case_payload(case)
        return case
    if kind == "chat":
        case = chat_case(obj, default_id)
        _with_payload(case, providers.chat_answer_response(
            obj.get("messages") if isinstance(obj, Mapping) else obj))
        return case
    if kind == "responses":
        payload = providers.responses_payload(obj)  # checks annotations before they are used
        case = responses_case(obj, default_id)
        _with_payload(case, payload)
        return case
    if kind in providers.RECORD_KINDS:
        return providers.provider_case(obj, default_id)
    if kind == "stream":
        assert isinstance(obj, list)
        return stream_case(streams.read_stream(obj), default_id)
    raise InputError(f"unknown format: {describe_value(obj)}")


def stream_case(reading: streams.StreamReading, default_id: str) -> Case:
    """The case of a recorded stream: the case its final response makes, with the stream's
    events and problems in ``extra["stream"]`` (the analysis reports the problems, the replay
    plays the events)."""
    case = record_to_case(reading.response, default_id)
    case.extra["stream"] = streams.stream_summary(reading)
    return case


def _with_payload(case: Case, response: object | None) -> None:
    """Keep a transcript's provider response in the case: the analysis reads its citations."""
    if response is not None:
        case.extra["response"] = response


def record_id(obj: object, default_id: str) -> str:
    """The case id of a record without building the case: a case's ``id`` (a number becomes a
    string), a transcript's id (see :func:`chat_case`), else ``default_id``."""
    kind = detect_kind(obj)
    if kind == "case":
        assert isinstance(obj, Mapping)
        cid = obj.get("id", default_id)
        if isinstance(cid, int) and not isinstance(cid, bool):
            cid = str(cid)
        if not isinstance(cid, str) or not cid:
            raise InputError("case \"id\" must be a non-empty string")
        return cid
    if kind in ("chat", "responses"):
        meta = obj.get("metadata") if isinstance(obj, Mapping) else None
        return _meta_id(meta if isinstance(meta, Mapping) else {}, obj, default_id)
    if kind in providers.RECORD_KINDS:
        return providers.record_case_id(obj, default_id)
    if kind == "stream":
        return default_id
    raise InputError(f"not a case, chat transcript or Responses output ({describe_value(obj)})")


# --------------------------------------------------------------------------- chat transcripts


def chat_case(obj: object, default_id: str) -> Case:
    """An OpenAI Chat Completions transcript: tool messages are the tool outputs (in order), the
    answer is the last assistant message with text, the question the last user message before
    it. System/developer messages holding tags with ids become the injected context."""
    meta: Mapping[str, Any] = {}
    if isinstance(obj, Mapping):
        messages = obj.get("messages")
        raw_meta = obj.get("metadata")
        meta = raw_meta if isinstance(raw_meta, Mapping) else {}
    else:
        messages = obj
    if not isinstance(messages, list) or not messages:
        raise InputError("chat transcript: \"messages\" must be a non-empty list")
    for n, m in enumerate(messages, 1):
        if not isinstance(m, Mapping) or not isinstance(m.get("role"), str):
            raise InputError(f"chat transcript: message {n} must be an object with a \"role\"")
    answer_at = -1
    answer = ""
    for n in range(len(messages) - 1, -1, -1):
        m = messages[n]
        if m["role"] == "assistant":
            text = _content_text(m.get("content"), f"message {n + 1}")
            if text:
                answer_at, answer = n, text
                break
    if answer_at < 0:
        raise InputError("chat transcript: no assistant message with text content (no answer)")
    question = None
    for m in reversed(messages[:answer_at]):
        if m["role"] == "user":
            question = _content_text(m.get("content"), "user message")
            break
    tool_outputs: list[str] = []
    contexts: list[str] = []
    tool_calls: list[dict[str, Any]] = []
    instructions: list[dict[str, str]] = []
    for n, m in enumerate(messages[:answer_at], 1):
        role = m["role"]
        if role in ("tool", "function"):
            tool_outputs.append(_content_text(m.get("content"), f"message {n}") or "")
        elif role in ("system", "developer"):
            text = _content_text(m.get("content"), f"message {n}") or ""
            instructions.append({"role": role, "text": text})  # what the model was told
            if _CONTEXT_TAG_RE.search(text):
                contexts.append(text)
        elif role == "assistant" and isinstance(m.get("tool_calls"), list):
            for call in m["tool_calls"]:
                if isinstance(call, Mapping):
                    fn = call.get("function")
                    fn = fn if isinstance(fn, Mapping) else {}
                    tool_calls.append({"id": call.get("id"), "name": fn.get("name"),
                                       "arguments": fn.get("arguments")})
    extra: dict[str, Any] = {"format": "chat"}
    if tool_calls:
        extra["tool_calls"] = tool_calls
    if instructions:
        extra["instructions"] = instructions
    if isinstance(obj, Mapping):
        extra.update({k: v for k, v in obj.items() if k not in ("messages", "id")})
    cid = _meta_id(meta, obj, default_id)
    return Case(cid, answer, question, tool_outputs,
                "\n".join(contexts) if contexts else None, {}, extra)


def _content_text(content: object, where: str) -> str | None:
    """Text of a message content: a string, null, or a list of parts with ``text``."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part, Mapping) and isinstance(part.get("refusal"), str):
                texts.append(part["refusal"])
        return "".join(texts)
    raise InputError(f"chat transcript: {where}: \"content\" must be a string, a list of parts "
                     f"or null, not {describe_value(content)}")


# --------------------------------------------------------------------------- Responses API


def responses_case(obj: object, default_id: str) -> Case:
    """An OpenAI Responses API response: ``function_call_output`` items and ``file_search_call``
    results are the tool outputs (in order); the ``output_text`` parts of the last ``message``
    item are the answer. Their annotations (url_citation, file_citation, ...) are kept in
    ``extra["annotations"]`` with indices shifted to the joined answer."""
    meta: Mapping[str, Any] = {}
    inputs: list[Any] = []
    question: str | None = None
    if isinstance(obj, Mapping):
        items = obj.get("output")
        raw_meta = obj.get("metadata")
        meta = raw_meta if isinstance(raw_meta, Mapping) else {}
        raw_input = obj.get("input")
        if isinstance(raw_input, str):
            question = raw_input
        elif isinstance(raw_input, list):
            inputs = raw_input
    else:
        items = obj
    if not isinstance(items, list):
        raise InputError("Responses output: \"output\" must be a list of items")
    for n, item in enumerate(items, 1):
        if not isinstance(item, Mapping):
            raise InputError(f"Responses output: item {n} must be an object, not "
                             f"{describe_value(item)}")
    last_message = None
    for item in reversed(items):
        if item.get("type") == "message" or (item.get("type") is None and "role" in item
                                             and item.get("role") == "assistant"):
            last_message = item
            break
    if last_message is None:
        raise InputError("Responses output: no \"message\" item (no answer)")
    content = last_message.get("content")
    if isinstance(content, str):
        content = [{"type": "output_text", "text": content}]
    if not isinstance(content, list):
        raise InputError("Responses output: the message \"content\" must be a list of parts")
    answer_parts: list[str] = []
    annotations: list[Any] = []
    offset = 0
    for part in content:
        if not isinstance(part, Mapping) or part.get("type") != "output_text":
            continue
        text = part.get("text")
        if not isinstance(text, str):
            raise InputError("Responses output: an output_text part has no \"text\" string")
        anns = part.get("annotations")
        if anns is not None and not isinstance(anns, list):
            raise InputError("Responses output: an output_text part's \"annotations\" must be "
                             f"a list, not {describe_value(anns)}")
        for ann in anns or []:
            annotations.append(_shift_annotation(ann, offset))
        answer_parts.append(text)
        offset += len(text)
    if not answer_parts:
        raise InputError("Responses output: the last message has no output_text (no answer)")
    for item in inputs:
        if isinstance(item, Mapping) and item.get("role") == "user":
            question = _content_text(item.get("content"), "input message")
    tool_outputs: list[str] = []
    tool_calls: list[dict[str, Any]] = []
    for item in [*inputs, *items]:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind in ("function_call_output", "custom_tool_call_output"):
            tool_outputs.append(_output_text(item.get("output")))
        elif kind == "file_search_call" and isinstance(item.get("results"), list):
            texts = [r["text"] for r in item["results"]
                     if isinstance(r, Mapping) and isinstance(r.get("text"), str)]
            tool_outputs.append("\n\n".join(texts))
        elif kind == "function_call":
            tool_calls.append({"id": item.get("call_id"), "name": item.get("name"),
                               "arguments": item.get("arguments")})
    extra: dict[str, Any] = {"format": "responses"}
    if annotations:
        extra["annotations"] = annotations
    if tool_calls:
        extra["tool_calls"] = tool_calls
    if isinstance(obj, Mapping):
        extra.update({k: v for k, v in obj.items() if k not in ("output", "input", "id")})
        file_results = [item.get("results") for item in items
                        if item.get("type") == "file_search_call" and item.get("results")]
        if file_results:
            extra["file_search_results"] = file_results
    cid = _meta_id(meta, obj, default_id)
    return Case(cid, "".join(answer_parts), question, tool_outputs, None, {}, extra)


def _output_text(output: object) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "".join(p["text"] for p in output
                       if isinstance(p, Mapping) and isinstance(p.get("text"), str))
    raise InputError(f"Responses output: function_call_output \"output\" must be a string, "
                     f"not {describe_value(output)}")


def _shift_annotation(ann: object, offset: int) -> object:
    if not offset or not isinstance(ann, Mapping):
        return ann
    out = dict(ann)
    for key in ("start_index", "end_index", "index"):
        value = out.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            out[key] = value + offset
    return out


def _meta_id(meta: Mapping[str, Any], obj: object, default_id: str) -> str:
    """A transcript's case id: a top-level ``id`` string (what the JSONL index reads without
    parsing), else ``metadata.case_id`` / ``metadata.id``, else the default."""
    if isinstance(obj, Mapping) and isinstance(obj.get("id"), str) and obj["id"]:
        return str(obj["id"])
    for key in ("case_id", "id"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value
    return default_id


def describe_value(value: object) -> str:
    """A JSON value in a few words for a message: "an object with keys 'a', 'b'", "null"."""
    if isinstance(value, Mapping):
        keys = ", ".join(repr(k) for k in list(value)[:5])
        return f"an object with keys {keys}" if keys else "an empty object"
    if isinstance(value, list):
        return "an empty list" if not value else f"a list of {len(value)} items"
    return {str: "a string", int: "a number", float: "a number", bool: "a boolean",
            type(None): "null"}.get(type(value), type(value).__name__)
