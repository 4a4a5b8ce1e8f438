"""Citations of model providers' APIs, read into one model (:mod:`.model`).

Formats: OpenAI Responses (``url_citation``, ``file_citation``, ``container_file_citation``;
file search results and web searches as sources) and Chat Completions (``url_citation``),
Anthropic Messages (``char_location``, ``page_location``, ``content_block_location``,
``search_result_location``, ``web_search_result_location``; web fetch results as sources),
Google Gemini (``groundingMetadata``, ``citationMetadata``) and its Interactions API, OpenAI
Assistants / Azure AI Agents thread messages, Perplexity (inline ``[n]``), Cohere v2 chat and
AWS Bedrock Converse (``citationsContent``): one module each.
A record may hold the request beside the response (``{"request": ..., "response": ...}``):
citations then resolve into the request's documents and search results.

A case keeps its provider payload in ``case.extra["response"]`` (and ``["request"]``), so it
survives the case JSON, sessions and exports unchanged; :func:`case_reading` reads it (the
analysis does, once per analysed case), taking the reading :func:`provider_case` made when the
case was just built from the response (``Case.reading_memo``) instead of reading it again.
:func:`provider_case` makes the case of a record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from citeview.core.cases import Case
from citeview.core.errors import InputError
from citeview.core.providers import anthropic
from citeview.core.providers.anthropic import read_anthropic
from citeview.core.providers.assistants import is_thread_message, read_thread_message
from citeview.core.providers.bedrock import is_bedrock, read_bedrock
from citeview.core.providers.cohere import is_cohere, read_cohere
from citeview.core.providers.gemini import read_gemini
from citeview.core.providers.interactions import is_interaction, read_interaction
from citeview.core.providers.model import (
    Problem,
    ProviderCitation,
    ProviderReading,
    check_overlaps,
    type_name,
)
from citeview.core.providers.openai import (
    chat_message_response,
    read_chat,
    read_responses,
)
from citeview.core.providers.perplexity import is_perplexity, read_perplexity
from citeview.core.providers.streams import stream_problems

#: Record kinds (:func:`citeview.core.transcripts.detect_kind`) this package reads.
RECORD_KINDS = ("chat-completion", "anthropic", "gemini", "exchange", "perplexity", "cohere",
                "bedrock", "openai-assistants", "gemini-interactions")
PROVIDERS = ("openai-responses", "openai-chat", "anthropic", "gemini", "perplexity", "cohere",
             "bedrock", "openai-assistants", "gemini-interactions")
_KIND = {"openai-chat": "chat-completion", "anthropic": "anthropic", "gemini": "gemini",
         "perplexity": "perplexity", "cohere": "cohere", "bedrock": "bedrock",
         "openai-assistants": "openai-assistants", "gemini-interactions": "gemini-interactions"}
_READERS: dict[str, Callable[[object], ProviderReading]] = {
    "openai-chat": read_chat, "gemini": read_gemini, "perplexity": read_perplexity,
    "cohere": read_cohere, "openai-assistants": read_thread_message,
    "gemini-interactions": read_interaction}


def detect_provider(obj: object) -> str | None:
    """Which provider's response ``obj`` is (one of :data:`PROVIDERS`), or None."""
    if not isinstance(obj, Mapping):
        return None
    if isinstance(obj.get("candidates"), list):
        return "gemini"
    if obj.get("object") == "chat.completion" or (
            isinstance(obj.get("choices"), list) and obj["choices"]
            and isinstance(obj["choices"][0], Mapping) and "message" in obj["choices"][0]):
        return "perplexity" if is_perplexity(obj) else "openai-chat"
    if isinstance(obj.get("output"), list):
        return "openai-responses"
    if is_bedrock(obj):
        return "bedrock"
    if is_thread_message(obj):
        return "openai-assistants"
    if is_cohere(obj):
        return "cohere"
    if is_interaction(obj):
        return "gemini-interactions"
    if (obj.get("type") == "message" and obj.get("role", "assistant") == "assistant"
            and isinstance(obj.get("content"), list)
            and (("model" in obj or "stop_reason" in obj)
                 or any(isinstance(b, Mapping) and b.get("type") == "text"
                        for b in obj["content"]))):
        # README's documented form, {"type": "message", "content": [...]}, needs neither
        # "role" nor "model" nor "stop_reason" when it has a text block; a Responses message
        # item has output_text parts instead.
        return "anthropic"
    return None


def record_kind(obj: object) -> str | None:
    """The record kind of a provider response or exchange (see :data:`RECORD_KINDS`); None
    for anything else (a Responses output is the transcripts' own "responses" kind)."""
    if not isinstance(obj, Mapping) or "answer" in obj:
        return None
    if "response" in obj and ("request" in obj or detect_provider(obj["response"])):
        return "exchange"
    return _KIND.get(detect_provider(obj) or "")


def read_payload(response: object, request: object | None = None, *,
                 read_pdf: bool = True) -> ProviderReading:
    """A provider's response (and the request beside it) in the common model. Bad input is
    an InputError; ``read_pdf=False`` (checking a record's shape, reading its answer) leaves
    PDF text unread and the claims' overlap check (CV607) out: only problems would change."""
    provider = detect_provider(response)
    if provider == "openai-responses" or (provider is None and isinstance(response, list)):
        reading = read_responses(response)
    elif provider == "anthropic":
        reading = read_anthropic(response, request, read_pdf=read_pdf)
    elif provider == "bedrock":
        reading = read_bedrock(response, request)
    elif provider in _READERS:
        reading = _READERS[provider](response)
    else:
        raise InputError(f"\"response\" is not a response of a known provider (OpenAI "
                         f"Responses, Chat Completions or Assistants, Anthropic Messages, "
                         f"Gemini, Perplexity, Cohere, Bedrock Converse): {_describe(response)}")
    if read_pdf:
        check_overlaps(reading.citations)
    return reading


def case_reading(case: Case) -> ProviderReading | None:
    """The provider citations of ``case`` (None when it holds no provider response). A case
    whose answer is not the response's text gets no citations and a CV609 problem."""
    response = case.extra.get("response")
    if response is None:
        return None
    request = case.extra.get("request")
    memo, case.reading_memo = case.reading_memo, None  # used once: it is completed in place
    if memo is not None and memo[0] is response and memo[1] is request:
        reading: ProviderReading = memo[2]  # what provider_case read: the overlap check is left
        check_overlaps(reading.citations)
    else:
        reading = read_payload(response, request)
    reading.problems.extend(stream_problems(case.extra.get("stream")))
    if reading.answer != case.answer:
        return ProviderReading(reading.provider, case.answer, problems=[Problem(
            "CV609", "the case's answer is not the text of its provider response; the "
            "response's citations are not read")])
    return reading


# The keys of a case's ``extra`` its provider reading and explicit claims are read from.
PAYLOAD_KEYS = ("response", "request", "claims", "stream")


def payload_key(case: Case) -> str:
    """A canonical text of what :func:`case_reading` and explicit claims depend on ("" when
    the case has none): part of the analysis cache key."""
    parts = [case.extra.get(k) for k in PAYLOAD_KEYS]
    if all(p is None for p in parts):
        return ""
    return json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)


def provider_case(obj: object, default_id: str) -> Case:
    """The case of a provider record: a response (Chat Completions, Anthropic, Gemini) or an
    exchange ``{"request": ..., "response": ...}`` (any provider, Responses too)."""
    if not isinstance(obj, Mapping):
        raise InputError(f"not a provider response: {_describe(obj)}")
    if "response" in obj and "answer" not in obj:
        response, request = obj["response"], obj.get("request")
        if request is not None and not isinstance(request, Mapping):
            raise InputError(f"\"request\" must be an object, not {type_name(request)}")
        rest = {k: v for k, v in obj.items() if k not in ("request", "response", "id")}
    else:
        response, request, rest = obj, None, {}
    reading = read_payload(response, request, read_pdf=False)
    extra: dict[str, Any] = {"format": reading.provider, **rest, "response": response}
    if request is not None:
        extra["request"] = request
    case = Case(record_case_id(obj, default_id), reading.answer, request_question(request),
                [], None, {}, extra)
    if request is None or detect_provider(response) != "anthropic":
        # Read whole (only an Anthropic request's PDF documents are left unread above): the
        # analysis takes this reading instead of reading the response a second time.
        case.reading_memo = (response, request, reading)
    return case


def record_case_id(obj: object, default_id: str) -> str:
    """A provider record's case id: its top-level ``id`` string, else ``metadata.case_id``,
    else ``default_id``."""
    if isinstance(obj, Mapping):
        if isinstance(obj.get("id"), str) and obj["id"]:
            return str(obj["id"])
        meta = obj.get("metadata")
        if isinstance(meta, Mapping):
            for key in ("case_id", "id"):
                if isinstance(meta.get(key), str) and meta[key]:
                    return str(meta[key])
    return default_id


def request_question(request: object) -> str | None:
    """The question of a request: its last user message (Messages, Chat Completions), its
    ``input`` (Responses) or its last user ``contents`` (Gemini)."""
    if not isinstance(request, Mapping):
        return None
    found = anthropic.request_question(request)  # "messages": Anthropic and Chat Completions alike
    if found is not None:
        return found
    inp = request.get("input")
    if isinstance(inp, str):
        return inp
    items = inp if isinstance(inp, list) else request.get("contents")
    if isinstance(items, list):
        for item in reversed(items):
            if isinstance(item, Mapping) and item.get("role") == "user":
                content = item.get("content", item.get("parts"))
                if isinstance(content, str):
                    return content
                if isinstance(content, list):
                    texts = [p["text"] for p in content if isinstance(p, Mapping)
                             and isinstance(p.get("text"), str)]
                    if texts:
                        return "\n".join(texts)
    return None


def chat_answer_response(messages: object) -> dict[str, Any] | None:
    """For a chat transcript whose answer message (the last assistant message with text)
    carries ``annotations``: that message as a Chat Completions response (checked: bad
    annotations are an InputError). None when it has none."""
    if not isinstance(messages, list):
        return None
    for m in reversed(messages):
        if not isinstance(m, Mapping) or m.get("role") != "assistant":
            continue
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p["text"] if isinstance(p, Mapping) and isinstance(p.get("text"), str)
                              else p if isinstance(p, str) else "" for p in content)
        if not content:
            continue
        if m.get("annotations") is None:
            return None
        response = chat_message_response({**m, "content": content})
        read_chat(response)
        return response
    return None


def responses_payload(obj: object) -> object | None:
    """A Responses output checked as a provider response (bad annotations are an InputError);
    itself when it has anything to cite (annotations, search results), else None."""
    reading = read_responses(obj)
    return obj if reading.citations or reading.sources else None


def check_case_payload(case: Case) -> None:
    """A case JSON that holds a provider response: its shape is checked when it is read."""
    if case.extra.get("response") is not None:
        request = case.extra.get("request")
        if request is not None and not isinstance(request, Mapping):
            raise InputError(f"case {case.id!r}: \"request\" must be an object, not "
                             f"{type_name(request)}")
        read_payload(case.extra["response"], request, read_pdf=False)


def _describe(value: object) -> str:
    if isinstance(value, Mapping):
        keys = ", ".join(repr(k) for k in list(value)[:5])
        return f"an object with keys {keys}" if keys else "an empty object"
    return type_name(value)


__all__ = ["PAYLOAD_KEYS", "PROVIDERS", "RECORD_KINDS", "ProviderCitation", "ProviderReading",
           "case_reading",
           "chat_answer_response", "check_case_payload", "detect_provider", "payload_key",
           "provider_case", "read_payload", "record_case_id", "record_kind",
           "request_question", "responses_payload"]
