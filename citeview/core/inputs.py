"""Inputs: detect what a file holds by its content and load it as a :class:`Dataset`.

Text formats are built in: a case JSON, a JSONL dataset (lazily indexed), a JSON array of
cases, Chat Completions transcripts, Responses API output (:mod:`citeview.core.transcripts`)
and plain text (an answer on its own); plain files given separately make one case
(:func:`plain_files`). Binary formats are read by :class:`InputLoader` s, recognised by the
bytes a file starts with (:func:`binary_loader`, the one sniff of an input's bytes). The core has
none of its own and nothing registers one on import: the caller passes them
(``load_input(path, citeview.session.SESSION_LOADERS)``, as the CLI and the window do), so
whether a ``.citeview`` file loads never depends on what was imported before.
:func:`citeview.core.records.iter_records` streams the same formats record by record.

A new input format goes here: a text format as a branch of :func:`load_input` (or a record kind
in :mod:`citeview.core.transcripts`), a binary format as an :class:`InputLoader` defined by the
package that reads it and passed by the entry points.

Every failure is an :class:`InputError` with a one-line message naming the file (and line).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from citeview.core.cases import Case
from citeview.core.datasets import (
    Dataset,
    JsonlDataset,
    ListDataset,
    case_id_from_path,
    document_dataset,
    indexed_jsonl,
    named_json,
    named_jsonl,
)
from citeview.core.errors import InputError
from citeview.core.files import (
    STDIN,
    InputSource,
    decode_text,
    extra_data_error,
    is_regular_file,
    json_error_message,
    json_value,
    read_text_file,
)
from citeview.core.markers import SOURCE_ID_RE
from citeview.core.providers import streams
from citeview.core.transcripts import stream_case

SQLITE_MAGIC = b"SQLite format 3\x00"
SESSION_SUFFIX = ".citeview"
# Bytes read first to tell a binary input (a loader's magic, NUL bytes) without reading it all.
SNIFF_BYTES = 8192
# Text that can only be meant as JSON: an object with a key (or empty), an array of values.
_LOOKS_LIKE_JSON_RE = re.compile(r'\s*(?:\{\s*["}]|\[\s*[\[{"\]])')
_NON_SPACE_RE = re.compile(r"\S")


def may_be_plain(head: str, name: str) -> bool:
    """Whether text starting with ``head`` (its first two non-blank lines are enough) that
    does not parse as JSON is a plain answer: an answer may start with a bracket
    (``[OpenAI](https://...) says``, ``[1] is``, ``[cite_start]``) where no JSON document
    could; a ``.json`` / ``.jsonl`` file never is."""
    return not named_json(name) and not _LOOKS_LIKE_JSON_RE.match(head.lstrip("\ufeff"))


def plain_note(name: str, text: str) -> str:
    """The info line of an answer read as plain text though it starts like JSON."""
    first = _NON_SPACE_RE.search(text)
    ch = text[first.start()] if first else "?"
    return f"{name}: info: starts with {ch!r} but is not JSON: read as a plain answer"


# --------------------------------------------------------------------------- loader registry


@dataclass(frozen=True, slots=True)
class InputLoader:
    """Reads one binary input format: a file that starts with ``magic`` is ``load(path)``."""

    name: str  # what it reads, for messages: "citeview session"
    magic: bytes
    load: Callable[[str], Dataset]


class InputLoaders:
    """The binary-format loaders :func:`load_input` tries, by the first bytes of the file,
    before the built-in text formats. At most one loader per ``magic``."""

    def __init__(self, loaders: Iterable[InputLoader] = ()) -> None:
        self._loaders: dict[bytes, InputLoader] = {}
        for loader in loaders:
            self.register(loader)

    def register(self, loader: InputLoader) -> None:
        """Add ``loader``. It replaces a loader of the same name (a module imported again);
        another loader already claiming the same magic bytes is a :class:`ValueError`."""
        old = self._loaders.get(loader.magic)
        if old is not None and old.name != loader.name:
            raise ValueError(f"{old.name!r} already reads files starting with {loader.magic!r}")
        self._loaders[loader.magic] = loader

    def unregister(self, name: str) -> None:
        """Remove the loader called ``name`` (if any)."""
        self._loaders = {m: x for m, x in self._loaders.items() if x.name != name}

    def find(self, head: bytes) -> InputLoader | None:
        """The loader for a file whose first bytes are ``head``, or None."""
        for magic, loader in self._loaders.items():
            if head.startswith(magic):
                return loader
        return None

    def __iter__(self) -> Iterator[InputLoader]:
        return iter(list(self._loaders.values()))

    def __len__(self) -> int:
        return len(self._loaders)

    def __repr__(self) -> str:
        return f"InputLoaders({[x.name for x in self]!r})"


#: The loaders :func:`load_input` uses when given none: empty unless a library user registers
#: one (citeview itself passes its loaders explicitly).
DEFAULT_LOADERS = InputLoaders()


def register_loader(loader: InputLoader) -> None:
    """Add ``loader`` to :data:`DEFAULT_LOADERS`."""
    DEFAULT_LOADERS.register(loader)


# --------------------------------------------------------------------------- loading


def as_loaders(loaders: InputLoaders | Iterable[InputLoader] | None) -> InputLoaders:
    """``loaders`` as a registry (None: :data:`DEFAULT_LOADERS`)."""
    if loaders is None:
        return DEFAULT_LOADERS
    return loaders if isinstance(loaders, InputLoaders) else InputLoaders(loaders)


def binary_loader(src: InputSource, loaders: InputLoaders, *,
                  session_name: bool = False) -> InputLoader | None:
    """The loader of a binary input (by its first bytes), or None for text. The one place an
    input's bytes are sniffed: :func:`load_input` and the streaming record reader
    (:func:`citeview.core.records.iter_records`) both ask here. A session file with no session
    loader, a loader's format on a pipe and other binary bytes (NUL) are InputErrors; with
    ``session_name``, so is a ``.citeview`` file that is not a session."""
    head = src.head(SNIFF_BYTES)
    loader = loaders.find(head)
    if loader is None and head.startswith(SQLITE_MAGIC):
        raise InputError(f"{src.name}: a citeview session: open it with citeview.session "
                         "(pass citeview.session.SESSION_LOADERS as loaders)")
    if loader is not None and not src.regular:
        raise InputError(f"{src.name}: a {loader.name} cannot be read from a pipe or "
                         "standard input; give its file name")
    if loader is None and session_name and src.name.lower().endswith(SESSION_SUFFIX):
        raise InputError(f"{src.name}: not a citeview session (not an SQLite database)")
    if loader is None and b"\x00" in head:  # binary: no need to read the rest
        raise InputError(f"{src.name}: binary file (contains NUL bytes), not text")
    return loader


def starts_as_sqlite(path: str) -> bool:
    """Whether the existing file at ``path`` starts as an SQLite database (a session) does, for
    code that must know before reading it (whether an output would replace a session); False
    when it cannot be read. Reading an input is :func:`load_input`'s."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def load_input(path: str, loaders: InputLoaders | Iterable[InputLoader] | None = None, *,
               plain_text: bool = False, copy_once: bool = False) -> Dataset:
    """Load any supported input, detected by content (the extension only breaks ties).

    ``path`` may be ``-`` (standard input), a pipe or a process substitution: every input is
    read once, from its first byte. Such a dataset has no ``path`` (there is no file to watch,
    read again or keep a review session beside); its messages name it (``<stdin>``).

    ``plain_text`` (how ``citeview parse`` and ``strip`` read): text that is no structured input
    is one plain answer, even when it is empty or starts like markup or a bracket; text that
    looks like JSON (or a ``.json`` / ``.jsonl`` file) must still be a valid input.

    Binary files are read by ``loaders`` (default :data:`DEFAULT_LOADERS`); a session file with
    no session loader is an InputError that says how to get one. The dataset's
    :meth:`~Dataset.reload` reads the file again with the same loaders.

    ``copy_once``: the input is read to be copied into a session (a big JSONL file is then
    indexed as it is copied, read once: its errors are met there, not here)."""
    registry = as_loaders(loaders)
    if not plain_text:
        big = indexed_jsonl(path, deferred=copy_once)
        if big is not None:
            big.reader = lambda: load_input(path, registry)
            return big
    with InputSource(path) as src:
        if not src.head(SNIFF_BYTES) and not plain_text:
            raise InputError(f"{src.name}: file is empty (0 bytes)")
        loader = binary_loader(src, registry, session_name=True)
        data = src.read_all(text=True) if loader is None else b""
        regular = src.regular
    if loader is not None:
        dataset = loader.load(path)
    elif plain_text:
        dataset = _load_answer_text(data, src.name, stream=not regular)
    else:
        dataset = load_text(data, src.name, stream=not regular)
    if dataset.reader is None and regular:
        dataset.reader = lambda: load_input(path, registry, plain_text=plain_text)
    return dataset


def _load_answer_text(data: bytes, name: str, *, stream: bool) -> Dataset:
    text = decode_text(data, name)
    first = _NON_SPACE_RE.search(text)
    if first is not None and text[first.start()] in "{[":
        try:
            return load_text(data, name, stream=stream)
        except InputError:
            if not may_be_plain(text[first.start():first.start() + 2048], name):
                raise
    return ListDataset([Case(case_id_from_path(name), text)], None if stream else name,
                       "plain")


def load_text(data: bytes, name: str, *, stream: bool = False) -> Dataset:
    """The dataset of a text input's bytes ``data`` (a case, a JSONL dataset, a JSON array, a
    transcript, Responses output or a plain answer), named ``name`` in messages.

    ``stream``: the bytes came from a pipe or standard input, so the dataset keeps what it needs
    in memory and has no ``path``."""
    text = decode_text(data, name)
    first_char = _NON_SPACE_RE.search(text)
    if first_char is None:
        raise InputError(f"{name}: file is empty (only whitespace)")
    start = first_char.start()
    dataset: Dataset
    if streams.looks_like_sse(text):
        # A provider's server-sent events: a stream, never a plain answer.
        dataset = stream_dataset(text, name)
    elif text[start] not in "{[":
        if text[start] == "<" or named_json(name):
            raise InputError(f"{name}: unknown format (expected JSON, JSONL or plain text)")
        dataset = ListDataset([Case(case_id_from_path(name), text)], name, "plain")
    else:
        try:
            first, end = json_value(text, name, start)
            more = _NON_SPACE_RE.search(text, end)
            # More after the first value: a JSONL dataset if the first value ended its line.
            if more is not None and "\n" not in text[end:more.start()]:
                raise InputError(json_error_message(name, extra_data_error(text, end), text))
        except InputError:
            if not may_be_plain(text[start:start + 2048], name):
                raise
            dataset = ListDataset([Case(case_id_from_path(name), text)],
                                  None if stream else name, "plain")
            dataset.notes = (plain_note(name, text),)
            return dataset
        if more is not None and streams.event_provider(first) is not None:
            dataset = stream_dataset(text, name)  # events as JSON lines: one stream
            if stream:
                dataset.path = None
            return dataset
        if more is not None:
            return JsonlDataset(name, data, stream=stream)
        if named_jsonl(name):
            return JsonlDataset(name, data, stream=stream)
        dataset = document_dataset(first, name)
    if stream:
        dataset.path = None
    return dataset


def stream_dataset(text: str, name: str) -> Dataset:
    """The one case of a recorded stream log (SSE text, JSON lines or a JSON list of events);
    a log that is no stream this reads is an InputError saying why."""
    try:
        reading = streams.read_stream_text(text)
        case = stream_case(reading, case_id_from_path(name))
    except InputError as err:
        raise InputError(f"{name}: a stream log that cannot be read: {err}") from None
    return ListDataset([case], name, "stream")


# --------------------------------------------------------------------------- plain files


def plain_files_case(materials: list[str], contexts: list[str], documents: dict[str, str],
                     answer: str, case_id: str) -> Case:
    """A case from plain text files (paths; ``-`` is standard input, once): each material file
    is one tool output in order, context files are joined as injected context, ``documents``
    maps a source id to a file given whole as that source, ``answer`` is the answer file."""
    for doc_id in documents:
        if not SOURCE_ID_RE.fullmatch(doc_id):
            raise InputError(f"--document {doc_id}: a source id is letters, digits, _ and -")
    if [*materials, *contexts, *documents.values(), answer].count(STDIN) > 1:
        raise InputError("standard input (-) can be given only once")
    read = read_text_file
    outputs = [read(p) for p in materials]
    context = "\n".join(read(p) for p in contexts) if contexts else None
    docs = {doc_id: read(p) for doc_id, p in documents.items()}
    return Case(case_id, read(answer), None, outputs, context, docs, {"format": "plain"})


def plain_files(materials: list[str], contexts: list[str], documents: dict[str, str],
                answer: str, case_id: str) -> ListDataset:
    """A one-case dataset from plain files that knows every file it read, so a viewer watches
    them all and a reload reads them all again (not just the answer). When one of them is a
    pipe or standard input, nothing can be read again: the dataset has no path."""
    case = plain_files_case(materials, contexts, documents, answer, case_id)
    files = [*materials, *contexts, *documents.values(), answer]
    if not all(is_regular_file(p) for p in files):
        return ListDataset([case], None, "plain")
    return ListDataset([case], answer, "plain", files=files,
                       reader=lambda: plain_files(materials, contexts, documents, answer,
                                                  case_id))


def parse_document_option(value: str) -> tuple[str, str]:
    """``ID=PATH`` of ``--document`` as (id, path)."""
    doc_id, sep, path = value.partition("=")
    if not sep or not doc_id or not path:
        raise InputError(f"--document {value}: expected ID=PATH")
    return doc_id, path
