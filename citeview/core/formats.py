"""Input formats: detect what a file holds by its content and load it as a :class:`Dataset`.

Formats: a case JSON, a JSONL dataset (one record a line, indexed by line offset and parsed
only when a case is needed), a JSON array of cases, OpenAI Chat Completions transcripts (an
object with ``messages`` or a bare message list; a JSONL of transcripts is a dataset), OpenAI
Responses API output (an object with ``output`` or the bare output list), plain text (an answer
on its own), plain files given separately (:func:`plain_files_case`) and citeview sessions
(SQLite). Where a record carries no case id, the id is the file name, plus ``#N`` (the record
number, from 1) in a dataset.

Every failure is an :class:`InputError` with a one-line message naming the file (and line).
"""

from __future__ import annotations

import importlib
import json
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from citeview.core.cases import Case
from citeview.core.errors import InputError
from citeview.core.markers import SOURCE_ID_RE
from citeview.core.text import may_hold_surrogates, scrub_surrogates

SQLITE_MAGIC = b"SQLite format 3\x00"
SESSION_SUFFIX = ".citeview"
# Suffixes dropped from a file name to make a case id ("handbook.chat.json" -> "handbook").
_ID_SUFFIXES = (".json", ".jsonl", ".ndjson", ".txt", ".md", ".case", ".chat", ".dataset",
                ".responses", ".transcript")
# Single JSON documents larger than this are refused (a dataset should be JSONL, read lazily).
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024
_RESPONSES_TYPES = frozenset({
    "message", "function_call", "function_call_output", "file_search_call", "web_search_call",
    "reasoning", "computer_call", "computer_call_output", "code_interpreter_call",
    "custom_tool_call", "custom_tool_call_output", "mcp_call", "image_generation_call",
    "local_shell_call", "local_shell_call_output",
})
# A tag with an id attribute: injected context (the guide's "<block id=...>").
_CONTEXT_TAG_RE = re.compile(r"<[A-Za-z][\w.-]*\s[^<>]*\bid\s*=\s*[\"']?[^\s\"'<>]")
_NON_SPACE_RE = re.compile(r"\S")
# Fast path for JSONL case lines written as {"id": "...", ...}: no JSON parse needed to list ids.
_FAST_ID_RE = re.compile(rb'\A[ \t]*\{[ \t]*"id"[ \t]*:[ \t]*"([^"\\\x00-\x1f]+)"[ \t]*,')


class Dataset:
    """An ordered collection of cases, loaded lazily: ids are cheap, a case is built on demand."""

    path: str | None
    kind: str

    def __len__(self) -> int:
        return len(self.case_ids())

    def watch_paths(self) -> list[str]:
        """The files this dataset was read from: a viewer reloads when one changes."""
        return [self.path] if self.path else []

    def reload(self) -> Dataset:
        """The dataset read again from its files (after one changed on disk)."""
        if not self.path:
            raise InputError("this input was not read from a file; nothing to reload")
        return load_input(self.path)

    def case_ids(self) -> list[str]:
        raise NotImplementedError

    def get(self, index: int) -> Case:
        raise NotImplementedError

    def index_of(self, case_id: str) -> int:
        """Position of ``case_id``; :class:`KeyError` if absent."""
        index = self._id_index().get(case_id)
        if index is None:
            raise KeyError(case_id)
        return index

    def _id_index(self) -> dict[str, int]:
        cached: dict[str, int] | None = getattr(self, "_ids_cache", None)
        if cached is None:
            cached = {cid: i for i, cid in enumerate(self.case_ids())}
            self._ids_cache = cached
        return cached

    def close(self) -> None:
        """Release what the dataset holds open (a session's database); nothing by default."""

    def iter_cases(self) -> Iterator[Case]:
        """Every case in order (subclasses may read faster than ``get`` one by one)."""
        return (self.get(i) for i in range(len(self)))

    def __iter__(self) -> Iterator[Case]:
        return self.iter_cases()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.kind} {self.path!r} ({len(self)} cases)>"


class ListDataset(Dataset):
    """Cases already in memory (a case file, a JSON array, plain files)."""

    #: Plain files: every file read and how to read them again (set by :func:`plain_files`).
    _files: list[str] | None = None
    _rebuild: Callable[[], Dataset] | None = None

    def watch_paths(self) -> list[str]:
        return list(self._files) if self._files is not None else super().watch_paths()

    def reload(self) -> Dataset:
        return self._rebuild() if self._rebuild is not None else super().reload()

    def __init__(self, cases: list[Case], path: str | None = None, kind: str = "case") -> None:
        self.path = path
        self.kind = kind
        self.cases = list(cases)
        self._ids = [c.id for c in self.cases]
        self._ids_cache = _unique_index(self._ids, path)

    def __len__(self) -> int:
        return len(self.cases)

    def case_ids(self) -> list[str]:
        return list(self._ids)

    def get(self, index: int) -> Case:
        return self.cases[index]


class JsonlDataset(Dataset):
    """A JSONL file: line offsets and ids are indexed once; a record is parsed when asked for.

    Records may be cases, chat transcripts or Responses outputs (each line detected on its own).
    """

    _CACHE = 64

    def __init__(self, path: str, data: bytes | None = None) -> None:
        self.path = path
        self.kind = "jsonl"
        self._stem = case_id_from_path(path)
        self._offsets: list[int] = []
        self._lines: list[int] = []  # 1-based line number of each record (for messages)
        self._ids: list[str] = []
        self._cache: OrderedDict[int, Case] = OrderedDict()
        if data is None:
            data = read_file_bytes(path)
        self._index(data)
        self._ids_cache = _unique_index(self._ids, path, self._lines)

    def _index(self, data: bytes) -> None:
        pos = 0
        lineno = 0
        size = len(data)
        if data.startswith(b"\xef\xbb\xbf"):
            pos = 3
        fast = _FAST_ID_RE.match
        while pos < size:
            nl = data.find(b"\n", pos)
            end = size if nl < 0 else nl
            lineno += 1
            line = data[pos:end]
            if line and not line.isspace():
                number = len(self._offsets) + 1
                m = fast(line)
                if m is not None and (line.endswith((b"}", b"}\r"))
                                      or line.rstrip().endswith(b"}")):
                    try:
                        cid = m.group(1).decode("utf-8")
                    except UnicodeDecodeError:
                        cid = _decode(m.group(1), self.path, lineno)  # raises with the line
                else:
                    obj = _parse_line(line, self.path, lineno)
                    cid = _record_id(obj, f"{self._stem}#{number}", self.path, lineno)
                self._offsets.append(pos)
                self._lines.append(lineno)
                self._ids.append(cid)
            pos = end + 1

    def __len__(self) -> int:
        return len(self._offsets)

    def case_ids(self) -> list[str]:
        return list(self._ids)

    def line_of(self, index: int) -> int:
        return self._lines[index]

    def iter_cases(self) -> Iterator[Case]:
        """Every case in order, reading the file once (copying a dataset into a session)."""
        assert self.path is not None
        try:
            with open(self.path, "rb") as fh:
                for index, offset in enumerate(self._offsets):
                    fh.seek(offset)
                    yield self._build(index, fh.readline())
        except OSError as err:
            raise InputError(f"{self.path}: cannot read ({err.strerror or err})") from None

    def _build(self, index: int, line: bytes) -> Case:
        lineno = self._lines[index]
        obj = _parse_line(line, self.path, lineno)
        case = _with_context(f"{self.path} line {lineno}", record_to_case, obj, self._ids[index])
        case.id = self._ids[index]
        return case

    def get(self, index: int) -> Case:
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            return cached
        offset = self._offsets[index]
        assert self.path is not None
        try:
            with open(self.path, "rb") as fh:
                fh.seek(offset)
                line = fh.readline()
        except OSError as err:
            raise InputError(f"{self.path}: cannot read ({err.strerror or err})") from None
        case = self._build(index, line)
        self._cache[index] = case
        if len(self._cache) > self._CACHE:
            self._cache.popitem(last=False)
        return case


# --------------------------------------------------------------------------- loading


def case_id_from_path(path: str) -> str:
    """The id of a case that carries none: the file name without its known suffixes."""
    name = Path(path).name
    lowered = name.lower()
    changed = True
    while changed:
        changed = False
        for suffix in _ID_SUFFIXES:
            if lowered.endswith(suffix) and len(lowered) > len(suffix):
                name, lowered = name[: -len(suffix)], lowered[: -len(suffix)]
                changed = True
    return name or "case"


def load_input(path: str) -> Dataset:
    """Load any supported input, detected by content (the extension only breaks ties)."""
    head = _check_file(path)
    if head.startswith(SQLITE_MAGIC):
        # Imported by name: the session package builds on core, not the other way round.
        store = importlib.import_module("citeview.session.store")
        dataset: Dataset = store.open_session_dataset(path)
        return dataset
    if path.lower().endswith(SESSION_SUFFIX):
        raise InputError(f"{path}: not a citeview session (not an SQLite database)")
    data = read_file_bytes(path)
    text = _decode(data, path)
    first_char = _NON_SPACE_RE.search(text)
    if first_char is None:
        raise InputError(f"{path}: file is empty (only whitespace)")
    start = first_char.start()
    if text[start] not in "{[":
        if text[start] == "<" or path.lower().endswith((".json", ".jsonl")):
            raise InputError(f"{path}: unknown format (expected JSON, JSONL or plain text)")
        return ListDataset([Case(case_id_from_path(path), text)], path, "plain")
    decoder = json.JSONDecoder()
    try:
        first, end = decoder.raw_decode(text, start)
    except json.JSONDecodeError as err:
        raise InputError(_json_error(path, err, text)) from None
    if may_hold_surrogates(text):
        first = scrub_surrogates(first)
    more = _NON_SPACE_RE.search(text, end)
    if more is not None:
        # More after the first value: a JSONL dataset if the first value ended its line.
        if "\n" not in text[end:more.start()]:
            raise InputError(_json_error(path, _extra_data(text, end), text))
        return JsonlDataset(path, data)
    if path.lower().endswith((".jsonl", ".ndjson")):
        return JsonlDataset(path, data)
    return document_dataset(first, path)


def document_dataset(obj: object, path: str) -> Dataset:
    """A dataset from one parsed JSON document (case, array, transcript or Responses output)."""
    stem = case_id_from_path(path)
    kind = detect_kind(obj)
    if kind == "json-array":
        assert isinstance(obj, list)
        cases = []
        for n, item in enumerate(obj, 1):
            rkind = detect_kind(item)
            if rkind not in ("case", "chat", "responses"):
                raise InputError(f"{path}: item {n} of the array is not a case "
                                 f"({_describe(item)})")
            cases.append(_with_context(f"{path} item {n}", record_to_case, item, f"{stem}#{n}"))
        return ListDataset(cases, path, "json-array")
    if kind == "unknown":
        raise InputError(f"{path}: unknown format: {_describe(obj)}")
    return ListDataset([_with_context(path, record_to_case, obj, stem)], path, kind)


def detect_kind(obj: object) -> str:
    """"case", "chat", "responses", "json-array" or "unknown" for a parsed JSON value."""
    if isinstance(obj, Mapping):
        if "answer" in obj:
            return "case"
        if "messages" in obj:
            return "chat"
        if "output" in obj and isinstance(obj.get("output"), list):
            return "responses"
        return "unknown"
    if isinstance(obj, list):
        if not obj:
            return "unknown"
        dicts = [o for o in obj if isinstance(o, Mapping)]
        if len(dicts) != len(obj):
            return "json-array" if all(isinstance(o, (list, Mapping)) for o in obj) else "unknown"
        if any(o.get("type") in _RESPONSES_TYPES and "answer" not in o for o in dicts):
            return "responses"
        if all("role" in o and "answer" not in o for o in dicts):
            return "chat"
        return "json-array"
    return "unknown"


def record_to_case(obj: object, default_id: str) -> Case:
    """One record (case, chat transcript or Responses output) as a :class:`Case`."""
    kind = detect_kind(obj)
    if kind == "case":
        return Case.from_dict(obj, default_id)
    if kind == "chat":
        return chat_case(obj, default_id)
    if kind == "responses":
        return responses_case(obj, default_id)
    raise InputError(f"unknown format: {_describe(obj)}")


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
    for n, m in enumerate(messages[:answer_at], 1):
        role = m["role"]
        if role in ("tool", "function"):
            tool_outputs.append(_content_text(m.get("content"), f"message {n}") or "")
        elif role in ("system", "developer"):
            text = _content_text(m.get("content"), f"message {n}") or ""
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
                     f"or null, not {_describe(content)}")


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
                             f"{_describe(item)}")
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
        for ann in part.get("annotations") or []:
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
                     f"not {_describe(output)}")


def _shift_annotation(ann: object, offset: int) -> object:
    if not offset or not isinstance(ann, Mapping):
        return ann
    out = dict(ann)
    for key in ("start_index", "end_index", "index"):
        if isinstance(out.get(key), int):
            out[key] += offset
    return out


# --------------------------------------------------------------------------- plain files


def plain_files_case(materials: list[str], contexts: list[str], documents: dict[str, str],
                     answer: str, case_id: str) -> Case:
    """A case from plain text files (paths): each material file is one tool output in order,
    context files are joined as injected context, ``documents`` maps a source id to a file given
    whole as that source, ``answer`` is the answer file."""
    read = _read_text_file
    outputs = [read(p) for p in materials]
    context = "\n".join(read(p) for p in contexts) if contexts else None
    docs = {doc_id: read(p) for doc_id, p in documents.items()}
    for doc_id in docs:
        if not SOURCE_ID_RE.fullmatch(doc_id):
            raise InputError(f"--document {doc_id}: a source id is letters, digits, _ and -")
    return Case(case_id, read(answer), None, outputs, context, docs, {"format": "plain"})


def plain_files(materials: list[str], contexts: list[str], documents: dict[str, str],
                answer: str, case_id: str) -> ListDataset:
    """A one-case dataset from plain files that knows every file it read, so a viewer watches
    them all and a reload reads them all again (not just the answer)."""
    case = plain_files_case(materials, contexts, documents, answer, case_id)
    dataset = ListDataset([case], answer, "plain")
    dataset._files = [*materials, *contexts, *documents.values(), answer]
    dataset._rebuild = lambda: plain_files(materials, contexts, documents, answer, case_id)
    return dataset


def parse_document_option(value: str) -> tuple[str, str]:
    """``ID=PATH`` of ``--document`` as (id, path)."""
    doc_id, sep, path = value.partition("=")
    if not sep or not doc_id or not path:
        raise InputError(f"--document {value}: expected ID=PATH")
    return doc_id, path


# --------------------------------------------------------------------------- helpers


def _check_file(path: str) -> bytes:
    """The first bytes of ``path``; missing, directory, unreadable and empty files fail here."""
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a file")
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or err})") from None
    if not head:
        raise InputError(f"{path}: file is empty (0 bytes)")
    return head


def read_file_bytes(path: str) -> bytes:
    """All bytes of an existing file; too large or unreadable raises a one-line InputError."""
    try:
        size = os.path.getsize(path)
        if size > MAX_DOCUMENT_BYTES:
            raise InputError(f"{path}: file too large ({size} bytes)")
        with open(path, "rb") as fh:
            return fh.read()
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or err})") from None


def _read_text_file(path: str) -> str:
    _check_file(path)
    return _decode(read_file_bytes(path), path)


def decode_text(data: bytes, path: str | None, lineno: int | None = None) -> str:
    """UTF-8 text (a BOM is dropped) of a file or of one JSONL line; binary data or invalid
    UTF-8 raises a one-line InputError naming ``path`` (and the line)."""
    where = f"{path} line {lineno}" if lineno else f"{path}"
    if lineno is None and b"\x00" in data[:8192]:
        raise InputError(f"{where}: binary file (contains NUL bytes), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{where}: invalid UTF-8 at byte {err.start}") from None
    return text.removeprefix("\ufeff")


_decode = decode_text  # the name the session package imports


def _parse_line(line: bytes, path: str | None, lineno: int) -> object:
    text = _decode(line, path, lineno)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{path} line {lineno}: invalid JSON at column {err.colno}: "
                         f"{err.msg}") from None
    return scrub_surrogates(obj) if may_hold_surrogates(text) else obj


def _record_id(obj: object, default_id: str, path: str | None, lineno: int) -> str:
    kind = detect_kind(obj)
    if kind == "case":
        assert isinstance(obj, Mapping)
        cid = obj.get("id", default_id)
        if isinstance(cid, int) and not isinstance(cid, bool):
            cid = str(cid)
        if not isinstance(cid, str) or not cid:
            raise InputError(f"{path} line {lineno}: case \"id\" must be a non-empty string")
        return cid
    if kind in ("chat", "responses"):
        meta = obj.get("metadata") if isinstance(obj, Mapping) else None
        return _meta_id(meta if isinstance(meta, Mapping) else {}, obj, default_id)
    raise InputError(f"{path} line {lineno}: not a case, chat transcript or Responses output "
                     f"({_describe(obj)})")


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


def _unique_index(ids: Sequence[str], path: str | None,
                  lines: Sequence[int] | None = None) -> dict[str, int]:
    index: dict[str, int] = {}
    for i, cid in enumerate(ids):
        if cid in index:
            where = (f"lines {lines[index[cid]]} and {lines[i]}" if lines
                     else f"records {index[cid] + 1} and {i + 1}")
            raise InputError(f"{path or 'dataset'}: duplicate case id {cid!r} ({where})")
        index[cid] = i
    return index


def _with_context(where: str, build: Callable[[object, str], Case], obj: object,
                  default_id: str) -> Case:
    """``build(obj, default_id)``, its InputError message prefixed with where it happened."""
    try:
        return build(obj, default_id)
    except InputError as err:
        raise InputError(f"{where}: {err}") from None


def _json_error(path: str, err: json.JSONDecodeError, text: str) -> str:
    # An unterminated string runs to the end of the file, so it is truncation too.
    if err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string"):
        return f"{path}: truncated JSON (the file ends before the value starting at line " \
            f"{_first_line(text)} is complete)"
    return f"{path}: invalid JSON at line {err.lineno} column {err.colno}: {err.msg}"


def _first_line(text: str) -> int:
    stripped = text.lstrip()
    return text[: len(text) - len(stripped)].count("\n") + 1


def _extra_data(text: str, pos: int) -> json.JSONDecodeError:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return json.JSONDecodeError("extra data after the JSON value", text, pos)


def _describe(value: object) -> str:
    if isinstance(value, Mapping):
        keys = ", ".join(repr(k) for k in list(value)[:5])
        return f"an object with keys {keys}" if keys else "an empty object"
    if isinstance(value, list):
        return "an empty list" if not value else f"a list of {len(value)} items"
    return {str: "a string", int: "a number", float: "a number", bool: "a boolean",
            type(None): "null"}.get(type(value), type(value).__name__)
