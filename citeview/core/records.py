"""The streaming record reader: the cases of an input one at a time, read once from the start.

``citeview lint`` (and anything else that walks every case of a big input without holding it)
reads through :func:`iter_records`. What an input is, is decided where
:func:`~citeview.core.inputs.load_input` decides it: binary inputs by
:func:`~citeview.core.inputs.binary_loader` (sessions through the ``loaders`` passed in),
text as :func:`~citeview.core.inputs.load_text` reads it, JSONL by
:func:`~citeview.core.datasets.named_jsonl` or by a second value on its own line. A JSONL file is
streamed line by line (memory does not grow with the file; each line is parsed by whoever takes
the record, e.g. a worker process).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from citeview.core.cases import Case
from citeview.core.datasets import case_id_from_path, named_jsonl
from citeview.core.errors import InputError
from citeview.core.files import InputSource, decode_text, input_name, parse_json
from citeview.core.inputs import (
    InputLoader,
    InputLoaders,
    binary_loader,
    load_input,
    load_text,
    may_be_plain,
)
from citeview.core.transcripts import describe_value, detect_kind, record_to_case


@dataclass(slots=True, frozen=True)
class Record:
    """One case of an input: its raw JSON text (a JSONL line, parsed by the taker), or a ready
    :class:`Case` (a JSON document already parsed here, or inputs that
    :func:`~citeview.core.inputs.load_input` reads), or the error that made the record (or the
    whole input, ``record`` None) unreadable; and where it came from."""

    path: str
    record: int | None
    raw: str | None
    default_id: str
    error: str | None = None
    case: Case | None = None


def _built(path: str, n: int | None, obj: object, default_id: str) -> Record:
    """A record from a JSON value already parsed (no second parse in the worker)."""
    try:
        return Record(path, n, None, default_id, case=record_to_case(obj, default_id))
    except InputError as err:
        return Record(path, n, None, default_id, error=str(err))


def _unprefixed(message: str, name: str) -> str:
    return message.removeprefix(f"{name}: ")


def iter_records(path: str, loaders: InputLoaders | Iterable[InputLoader] = (), *,
                 notes: Callable[[str], None] | None = None) -> Iterator[Record]:
    """The cases of ``path`` (``-``: standard input) one at a time, read once from the start
    (a pipe works like a file).

    JSON and JSONL inputs are streamed here: a JSONL file line by line (memory does not grow
    with the file), a JSON document (a case, a transcript, an array of cases) whole. Each record
    may be a case, a chat transcript or a Responses output. Other inputs (plain text answers,
    binary inputs such as citeview sessions, read by ``loaders``) go through
    :func:`~citeview.core.inputs.load_input`. An input that cannot be read (or stops being
    readable part way) ends with a record holding the error. ``notes`` is given the info lines
    of how an input was read (text that starts with a bracket read as a plain answer)."""
    registry = loaders if isinstance(loaders, InputLoaders) else InputLoaders(loaders)
    stem = case_id_from_path(path)
    name = input_name(path)
    try:
        with InputSource(path) as src:
            yield from _records(src, path, stem, registry, notes)
    except InputError as err:
        yield Record(path, None, None, stem, error=_unprefixed(str(err), name))


def _records(src: InputSource, path: str, stem: str, loaders: InputLoaders,
             notes: Callable[[str], None] | None) -> Iterator[Record]:
    if binary_loader(src, loaders) is not None:
        src.close()
        yield from _loaded(path, loaders)
        return
    lines = src.lines()
    first: list[tuple[int, bytes]] = []  # the first non-blank lines, to decide the format
    seen: list[bytes] = []  # every line read so far (blank ones too)
    lineno = 0
    for raw in lines:
        lineno += 1
        seen.append(raw)
        if raw.strip():
            first.append((lineno, raw))
            if len(first) == 2:
                break
    if not first:
        raise InputError(f"{src.name}: empty file, no case to lint")
    lead = first[0][1].lstrip().removeprefix(b"\xef\xbb\xbf").lstrip()
    if not lead.startswith((b"{", b"[")):
        # Not JSON: a plain text answer (read as load_input reads it), or something unreadable.
        data = b"".join(seen) + src.read_all()
        del raw, first, seen, lead
        dataset = load_text(data, src.name, stream=not src.regular)
        del data  # the dataset has what it needs
        for i, case in enumerate(dataset.iter_cases(), start=1):
            yield Record(path, i if len(dataset) > 1 else None, None, case.id, case=case)
        return
    value: Any = None
    with contextlib.suppress(InputError):
        value = parse_json(decode_text(first[0][1], src.name), src.name)
    first_ok = isinstance(value, dict)
    jsonl = named_jsonl(path) or (first_ok and len(first) == 2)
    if not jsonl and not first_ok and may_be_plain(
            b"".join(raw for _, raw in first).decode("utf-8", "replace").lstrip(), path):
        # Not JSON but maybe an answer that starts with a bracket: read as load_input reads it.
        data = b"".join(seen) + src.read_all()
        del raw, first, seen, lead
        dataset = load_text(data, src.name, stream=not src.regular)
        del data
        for note in dataset.notes:
            if notes is not None:
                notes(note)
        for i, case in enumerate(dataset.iter_cases(), start=1):
            yield Record(path, i if len(dataset) > 1 else None, None, case.id, case=case)
        return
    if not jsonl and not first_ok:
        # A pretty-printed case or an array of cases: one JSON document.
        data = b"".join(seen) + src.read_all()
        del raw, first, seen, lead  # the bytes are in data: not kept twice while linting
        records = _document(data, src.name, path, stem)
        del data  # _document lets go of the bytes once it has decoded them
        yield from records
        return
    if not jsonl:
        rec = _built(path, None, value, stem)
        # Only the case is kept while it is linted, not the bytes of its line or the JSON value.
        del raw, first, seen, lead, value
        yield rec
        return
    for n, raw in first:
        yield _line_record(path, n, raw, stem)
    for raw in lines:
        lineno += 1
        if raw.strip():
            yield _line_record(path, lineno, raw, stem)


def _loaded(path: str, loaders: InputLoaders) -> Iterator[Record]:
    """Records of a binary input (a session database), through load_input."""
    dataset = load_input(path, loaders)
    try:
        many = len(dataset) > 1 or dataset.kind not in ("plain", "case")
        for i, case in enumerate(dataset.iter_cases(), start=1):
            yield Record(path, i if many else None, None, case.id, case=case)
    finally:
        dataset.close()


def _line_record(path: str, n: int, raw: bytes, stem: str) -> Record:
    try:
        text = decode_text(raw, path, n)
    except InputError as err:
        return Record(path, n, None, f"{stem}#{n}", _unprefixed(str(err), f"{path} line {n}"))
    return Record(path, n, text, f"{stem}#{n}")


def _document(data: bytes, name: str, path: str, stem: str) -> Iterator[Record]:
    text = decode_text(data, name)
    del data  # the caller keeps no reference: the bytes go before the text is parsed
    doc = parse_json(text, name)
    del text  # only the parsed value is kept while its records are linted
    kind = detect_kind(doc)
    if kind == "json-array":
        for i, item in enumerate(doc, start=1):
            yield _built(path, i, item, f"{stem}#{i}")
    elif kind == "unknown":
        raise InputError(f"{name}: not a case, transcript or dataset ({describe_value(doc)})")
    else:
        yield _built(path, None, doc, stem)


__all__ = ["Record", "iter_records"]
