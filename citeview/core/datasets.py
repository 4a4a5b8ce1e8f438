"""Datasets: an ordered collection of cases, loaded lazily (ids are cheap, a case is built when
asked for). :class:`ListDataset` holds cases in memory (a case file, a JSON array, plain files);
:class:`JsonlDataset` indexes a JSONL file by line offset and parses a record only when its case
is needed. Where a record carries no case id, the id is the file name (:func:`case_id_from_path`)
plus ``#N`` (the record number, from 1).

Which file holds which dataset is decided by :func:`citeview.core.inputs.load_input`.
"""

from __future__ import annotations

import json
import os
import re
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from citeview.core.cases import Case
from citeview.core.chunks import line_chunk
from citeview.core.errors import InputError
from citeview.core.files import (
    MAX_JSON_DEPTH,
    STDIN,
    STDIN_NAME,
    decode_text,
    max_input_bytes,
    parse_json,
    printable,
    read_input,
    too_large,
)
from citeview.core.providers import RECORD_KINDS
from citeview.core.text import may_hold_surrogates
from citeview.core.transcripts import describe_value, detect_kind, record_id, record_to_case

# Suffixes dropped from a file name to make a case id ("handbook.chat.json" -> "handbook").
#: The suffixes of a JSONL file (one record a line), and of any JSON input: the one place the
#: suffix rule is written (a tie-breaker only: inputs are told by their content).
JSONL_SUFFIXES = (".jsonl", ".ndjson")
JSON_SUFFIXES = (".json", *JSONL_SUFFIXES)


def named_jsonl(name: str) -> bool:
    """Whether ``name`` is a JSONL file's name (``.jsonl``, ``.ndjson``)."""
    return name.lower().endswith(JSONL_SUFFIXES)


def named_json(name: str) -> bool:
    """Whether ``name`` is a JSON or JSONL file's name."""
    return name.lower().endswith(JSON_SUFFIXES)


_ID_SUFFIXES = (*JSON_SUFFIXES, ".txt", ".md", ".case", ".chat", ".dataset", ".responses",
                ".transcript")
# Fast path for JSONL case lines written as {"id": "...", ...}: no JSON parse needed to list ids.
_FAST_ID_RE = re.compile(rb'\A[ \t]*\{[ \t]*"id"[ \t]*:[ \t]*"([^"\\\x00-\x1f]+)"[ \t]*,')
_T = TypeVar("_T")
# A JSONL file at least this big may be shown from its first record (jsonl_first_record).
FIRST_RECORD_BYTES = 4 << 20
# A JSONL file at least this big (or past the size limit) is indexed as it is read in pieces of
# INDEX_CHUNK bytes, never held whole: memory follows the record count, not the file's size,
# and the size limit applies to each record (issue 26).
INDEXED_BYTES = 64 << 20
INDEX_CHUNK = 8 << 20


class Dataset:
    """An ordered collection of cases, loaded lazily: ids are cheap, a case is built on demand."""

    path: str | None
    kind: str
    #: Reads the input again: set by whoever read it (:func:`citeview.core.inputs.load_input`
    #: sets it to load the same path with the same loaders). :meth:`reload` calls it.
    reader: Callable[[], Dataset] | None = None
    #: Info lines about how the input was read (a command prints them on stderr).
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.case_ids())

    def watch_paths(self) -> list[str]:
        """The files this dataset was read from: a viewer reloads when one changes."""
        return [self.path] if self.path else []

    def reload(self) -> Dataset:
        """The dataset read again from its files (after one changed on disk)."""
        if self.reader is not None:
            return self.reader()
        if not self.path:
            raise InputError("this input was not read from a file; nothing to reload")
        raise InputError(f"{self.path}: not read by load_input, so it cannot read itself again")

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

    def ids_starting(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` case ids that start with ``prefix`` (any case of letters), in id
        order: what Go to Case lists as a key is typed. A scan here; a session answers from
        its index of ids."""
        low = prefix.casefold()
        return sorted(cid for cid in self.case_ids() if cid.casefold().startswith(low))[:limit]

    def close(self) -> None:
        """Release what the dataset holds open (a session's database); nothing by default."""

    def stale(self) -> bool:
        """Whether the input changed since it was read, so that what this dataset reads of it
        now may be another version's records (a JSONL file's index). Never for cases held in
        memory: the default."""
        return False

    def iter_cases(self) -> Iterator[Case]:
        """Every case in order (subclasses may read faster than ``get`` one by one)."""
        return (self.get(i) for i in range(len(self)))

    def __iter__(self) -> Iterator[Case]:
        return self.iter_cases()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.kind} {self.path!r} ({len(self)} cases)>"


class ListDataset(Dataset):
    """Cases already in memory (a case file, a JSON array, plain files). ``files`` lists every
    file the cases were read from when that is more than ``path`` (plain files)."""

    def __init__(self, cases: list[Case], path: str | None = None, kind: str = "case", *,
                 files: Sequence[str] | None = None,
                 reader: Callable[[], Dataset] | None = None) -> None:
        self.path = path
        self.kind = kind
        self.cases = list(cases)
        self.files = list(files) if files is not None else None
        self.reader = reader
        self._ids = [c.id for c in self.cases]
        self._ids_cache = _unique_index(self._ids, path)

    def watch_paths(self) -> list[str]:
        return list(self.files) if self.files is not None else super().watch_paths()

    def __len__(self) -> int:
        return len(self.cases)

    def case_ids(self) -> list[str]:
        return list(self._ids)

    def get(self, index: int) -> Case:
        return self.cases[index]


FileIdentity = tuple[int, int, int]


def file_identity(path: str) -> FileIdentity | None:
    """What tells one version of file ``path`` from another: its size, modification time (ns)
    and inode (a file replaced by a rename); None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class JsonlDataset(Dataset):
    """A JSONL file: line offsets and ids are indexed once; a record is parsed when asked for.

    Records may be cases, chat transcripts or Responses outputs (each line detected on its own).
    ``stream``: ``data`` came from a pipe or standard input (named ``path`` in messages), so it
    is kept in memory and the dataset has no path; a file is read again by offset instead.
    """

    _CACHE = 64

    def __init__(self, path: str, data: bytes | None = None, *, stream: bool = False,
                 indexed: bool = False, deferred: bool = False) -> None:
        self.path = None if stream else path
        self.name = path
        self.kind = "jsonl"
        self._stem = case_id_from_path(path)
        # Offsets and line numbers as machine integers (8 bytes a record, not 36).
        self._offsets: array[int] = array("q")
        self._lines: array[int] = array("q")  # 1-based line number of each record (messages)
        self._ids: list[str] = []
        self._lineno = 0
        self._cache: OrderedDict[int, Case] = OrderedDict()
        # The file as it was read (before reading: a change meanwhile is seen); a file's
        # records are read again by offset, so its index holds while the file keeps this.
        self._identity = None if stream else file_identity(path)
        # An indexed file is indexed at once; ``deferred``, by its first reader instead:
        # iter_case_texts indexes it as it copies it into a session (one read and one parse a
        # record), anything else by _index_file first (errors are then met on first use).
        self._unindexed = indexed and not stream
        if self._unindexed:
            self._data = None
            if not deferred:
                self._indexed()
        else:
            if data is None:
                data = read_input(path)
            self._data = data if stream else None
            self._index(data)
            self._ids_cache = _unique_index(self._ids, path, self._lines)

    def _indexed(self) -> None:
        """Index the file now unless it is (the first use of an indexed dataset)."""
        if self._unindexed:
            assert self.path is not None
            self._reset_index()
            self._identity = file_identity(self.path)
            self._index_file(self.path)
            self._ids_cache = _unique_index(self._ids, self.name, self._lines)
            self._unindexed = False

    def _reset_index(self) -> None:
        self._offsets, self._lines, self._ids = array("q"), array("q"), []
        self._lineno = 0

    def _index_file(self, path: str) -> None:
        """Index the file ``path`` read in pieces (never whole); a record longer than the size
        limit is refused."""
        limit = max_input_bytes()
        base = 0
        carry = b""
        try:
            with open(path, "rb") as fh:
                while True:
                    chunk = fh.read(INDEX_CHUNK)
                    if not chunk:
                        break
                    buf = carry + chunk if carry else chunk
                    last = buf.rfind(b"\n")
                    if last < 0:
                        carry = buf
                    else:
                        self._index(buf[:last + 1], base)
                        base += last + 1
                        carry = buf[last + 1:]
                    if len(carry) > limit:
                        raise too_large(f"{self.name} line {self._lineno + 1}", limit)
        except OSError as err:
            raise InputError(f"{path}: cannot read ({err.strerror or err})") from None
        if carry:
            self._index(carry, base)

    def _index(self, data: bytes, base: int = 0) -> None:
        """Index the whole lines of ``data``, which starts at byte ``base`` of the input."""
        pos = 0
        lineno = self._lineno
        size = len(data)
        if base == 0 and data.startswith(b"\xef\xbb\xbf"):
            pos = 3
        fast = _FAST_ID_RE.match
        offsets, lines, ids = self._offsets, self._lines, self._ids
        while pos < size:
            nl = data.find(b"\n", pos)
            end = size if nl < 0 else nl
            lineno += 1
            line = data[pos:end]
            if line and not line.isspace():
                cid = self._line_id(line, lineno, len(offsets) + 1, fast)
                offsets.append(base + pos)
                lines.append(lineno)
                ids.append(cid)
            pos = end + 1
        self._lineno = lineno

    def _line_id(self, line: bytes, lineno: int, number: int,
                 fast: Callable[[bytes], re.Match[bytes] | None] = _FAST_ID_RE.match) -> str:
        """The case id of the record ``line`` (without its newline), record ``number``."""
        m = fast(line)
        if m is not None and (line.endswith((b"}", b"}\r")) or line.rstrip().endswith(b"}")):
            try:
                return m.group(1).decode("utf-8")
            except UnicodeDecodeError:
                return decode_text(m.group(1), self.name, lineno)  # raises with the line
        obj = parse_jsonl_line(line, self.name, lineno)
        return _with_context(f"{self.name} line {lineno}", record_id, obj,
                             f"{self._stem}#{number}")

    def __len__(self) -> int:
        self._indexed()
        return len(self._offsets)

    @property
    def indexed(self) -> bool:
        """Whether the file is indexed yet (a deferred dataset is not until its first use)."""
        return not self._unindexed

    def stale(self) -> bool:
        """Whether the file changed (size, modification time or inode), or went, since it was
        read: since it was indexed, or, not indexed yet, since this dataset was made. Its
        offsets may then point into other records (a read fails as invalid JSON, or gives
        another case). Never for data read from a stream (held in memory)."""
        return self.path is not None and file_identity(self.path) != self._identity

    def case_ids(self) -> list[str]:
        self._indexed()
        return list(self._ids)

    def index_of(self, case_id: str) -> int:
        self._indexed()
        return super().index_of(case_id)

    def line_of(self, index: int) -> int:
        self._indexed()
        return self._lines[index]

    def _line_in_memory(self, offset: int) -> bytes:
        assert self._data is not None
        end = self._data.find(b"\n", offset)
        return self._data[offset:] if end < 0 else self._data[offset:end + 1]

    def iter_cases(self) -> Iterator[Case]:
        """Every case in order, reading the file once (copying a dataset into a session)."""
        self._indexed()
        if self._data is not None:
            for index, offset in enumerate(self._offsets):
                yield self._build(index, self._line_in_memory(offset))
            return
        assert self.path is not None
        try:
            with open(self.path, "rb") as fh:
                for index, offset in enumerate(self._offsets):
                    fh.seek(offset)
                    yield self._build(index, fh.readline())
        except OSError as err:
            raise InputError(f"{self.path}: cannot read ({err.strerror or err})") from None

    def iter_case_texts(self) -> Iterator[tuple[str, str | Case]]:
        """Every record in order as ``(case id, its case JSON text)`` when the line already is
        the JSON a case gives back (``Case.to_dict`` would write the same object: keys in its
        order, nothing to normalise or check), else ``(case id, Case)``: a session copies a
        million plain case lines with one JSON parse each, never a build and a dump. Read in
        order, in pieces (one seek per piece, not per record); errors as :meth:`get`'s. A file
        not indexed yet is indexed as it is read (its only read: issue 26)."""
        if self._unindexed:
            yield from self._texts_indexing()
            return
        if self._data is not None:
            for index, offset in enumerate(self._offsets):
                yield self._case_text(index, self._line_in_memory(offset))
            return
        assert self.path is not None
        offsets = self._offsets
        count = len(offsets)
        try:
            with open(self.path, "rb") as fh:
                index = 0
                while index < count:
                    start = offsets[index]
                    fh.seek(start)
                    buf = fh.read(INDEX_CHUNK)
                    nl = buf.find(b"\n")
                    if nl < 0 or not buf:  # a record longer than a piece, or the last one
                        fh.seek(start)
                        yield self._case_text(index, fh.readline())
                        index += 1
                        continue
                    end = len(buf)
                    while index < count:
                        pos = offsets[index] - start
                        if pos >= end:
                            break
                        stop = buf.find(b"\n", pos)
                        if stop < 0:
                            break  # cut by the piece: read again from its start
                        yield self._case_text(index, buf[pos:stop + 1])
                        index += 1
        except OSError as err:
            raise InputError(f"{self.path}: cannot read ({err.strerror or err})") from None

    def _texts_indexing(self) -> Iterator[tuple[str, str | Case]]:
        """:meth:`iter_case_texts` of a file not indexed yet: read once in pieces, each record
        parsed once, its offset, line and id kept as :meth:`_index_file` keeps them."""
        assert self.path is not None
        self._reset_index()
        self._identity = file_identity(self.path)
        limit = max_input_bytes()
        seen: dict[str, int] = {}
        offsets, lines, ids = self._offsets, self._lines, self._ids
        lineno = 0
        base = 0
        carry = b""
        try:
            with open(self.path, "rb") as fh:
                while True:
                    chunk = fh.read(INDEX_CHUNK)
                    buf = carry + chunk if carry else chunk
                    if not buf:
                        break
                    last = buf.rfind(b"\n") if chunk else len(buf) - 1
                    if last < 0:
                        carry = buf
                        if len(carry) > limit:
                            raise too_large(f"{self.name} line {lineno + 1}", limit)
                        continue
                    size = last + 1
                    pos = 3 if base == 0 and buf.startswith(b"\xef\xbb\xbf") else 0
                    while pos < size:
                        nl = buf.find(b"\n", pos, size)
                        end = size if nl < 0 else nl
                        lineno += 1
                        line = buf[pos:end]
                        start, pos = pos, end + 1
                        if not line or line.isspace():
                            continue
                        index = len(offsets)
                        cid: str | None = None
                        text = ""
                        # The usual record: a plain case, stored as it is (_plain_line).
                        found = _plain_line(line)
                        if found is not None:
                            cid, text, _stop = found
                        plain = cid is not None
                        if cid is None:  # anything else: as the index and the copy read it
                            cid = self._line_id(line, lineno, index + 1)
                        if cid in seen:
                            raise InputError(f"{self.name}: duplicate case id {cid!r} (lines "
                                             f"{lines[seen[cid]]} and {lineno})")
                        seen[cid] = index
                        offsets.append(base + start)
                        lines.append(lineno)
                        ids.append(cid)
                        if plain:
                            yield cid, text.strip().removeprefix("\ufeff")
                        else:
                            yield self._case_text(index, buf[start:end + 1])
                    base += size
                    carry = buf[size:]
                    if len(carry) > limit:
                        raise too_large(f"{self.name} line {lineno + 1}", limit)
                    if not chunk:
                        break
        except OSError as err:
            raise InputError(f"{self.path}: cannot read ({err.strerror or err})") from None
        except BaseException:
            self._reset_index()  # read again whole by the next use
            raise
        self._lineno = lineno
        self._ids_cache = seen
        self._unindexed = False

    def copy_batches(self, size: int) -> Iterator[list[tuple[str, bytes | str | Case]]]:
        """Every record of the file as ``(case id, its case JSON)``, in lists of up to ``size``:
        what :meth:`iter_case_texts` gives, read once in pieces, without indexing the dataset
        (a process of its own reads it for a session: issue 26). A plain case line with nothing
        after it comes as its bytes, checked as :meth:`iter_case_texts` checks it (valid UTF-8,
        parsed once) but not decoded again; errors as :meth:`iter_case_texts`'s."""
        assert self.path is not None
        limit = max_input_bytes()
        seen: dict[str, int] = {}  # id: its line (a duplicate's message names both)
        lineno = number = 0
        carry = b""
        batch: list[tuple[str, bytes | str | Case]] = []
        start = True
        try:
            with open(self.path, "rb") as fh:
                while True:
                    chunk = fh.read(INDEX_CHUNK)
                    buf = carry + chunk if carry else chunk
                    if not buf:
                        break
                    if chunk:
                        last = buf.rfind(b"\n")
                        if last < 0:
                            carry = buf
                            if len(carry) > limit:
                                raise too_large(f"{self.name} line {lineno + 1}", limit)
                            continue
                        pieces = buf[:last].split(b"\n")
                        carry = buf[last + 1:]
                    else:
                        pieces, carry = [buf], b""
                    if start:
                        pieces[0] = pieces[0].removeprefix(b"\xef\xbb\xbf")
                        start = False
                    for line in pieces:
                        lineno += 1
                        if not line or line.isspace():
                            continue
                        number += 1
                        # A plain case (as _texts_indexing tells it): stored as it is.
                        plain = _plain_row(line)
                        row: bytes | str | Case
                        if plain is not None:
                            cid, row = plain
                        else:  # anything else: as the index and the copy read it
                            cid = self._line_id(line, lineno, number)
                            row = self._text_of(cid, lineno, line + b"\n")
                        if cid in seen:
                            raise InputError(f"{self.name}: duplicate case id {cid!r} (lines "
                                             f"{seen[cid]} and {lineno})")
                        seen[cid] = lineno
                        batch.append((cid, row))
                        if len(batch) >= size:
                            yield batch
                            batch = []
                    if len(carry) > limit:
                        raise too_large(f"{self.name} line {lineno + 1}", limit)
                    if not chunk:
                        break
        except OSError as err:
            raise InputError(f"{self.path}: cannot read ({err.strerror or err})") from None
        if batch:
            yield batch

    def part_batches(self, part: int, parts: int, size: int
                     ) -> Iterator[list[tuple[str, bytes | str | Case]] | None]:
        """Chunks ``part``, ``part + parts``, ... of the file (:func:`line_chunk`, ``size``
        bytes each) as :meth:`copy_batches` gives their records, one list a chunk, so ``parts``
        readers share the file (issue 26). Yields None, and stops, at a record this cannot take
        alone (no id of its own, an error, a line past the limit): the caller reads the file
        with :meth:`copy_batches` instead, for its id or message. Duplicate ids across chunks
        are the caller's to catch (the session's key)."""
        assert self.path is not None
        limit = max_input_bytes()
        unnamed = f"{self._stem}#0"  # (record numbers start at 1: this id means "none given")
        try:
            with open(self.path, "rb") as fh:
                file_size = os.fstat(fh.fileno()).st_size
                index = part
                while (lines := line_chunk(fh, index, size, file_size, limit)) is not None:
                    if index == 0 and lines:
                        lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
                    rows: list[tuple[str, bytes | str | Case]] = []
                    for line in lines:
                        if not line or line.isspace():
                            continue
                        plain = _plain_row(line)
                        if plain is not None:
                            rows.append(plain)
                            continue
                        try:
                            cid = self._line_id(line, 0, 0)
                            if cid == unnamed:
                                yield None
                                return
                            rows.append((cid, self._text_of(cid, 0, line + b"\n")))
                        except InputError:
                            yield None
                            return
                    yield rows
                    index += parts
                if index < -(-file_size // size):  # a line past the limit, not the end
                    yield None
        except OSError as err:
            raise InputError(f"{self.path}: cannot read ({err.strerror or err})") from None

    def _case_text(self, index: int, line: bytes) -> tuple[str, str | Case]:
        cid = self._ids[index]
        return cid, self._text_of(cid, self._lines[index], line)

    def _text_of(self, cid: str, lineno: int, line: bytes) -> str | Case:
        """Record ``line`` (line ``lineno``, id ``cid``) as its case JSON text when it already is
        what ``Case.to_dict`` writes, else as the Case."""
        obj: object = _NOT_READ
        if b"\x00" not in line and (line.count(b"{") + line.count(b"[")) < MAX_JSON_DEPTH:
            # Too few brackets to nest too deeply: parsed at once (a failure is read again
            # below for its message).
            try:
                text = line.decode("utf-8")
                obj = _loads(text)
            except ValueError:
                pass
            else:
                if (_plain_case_json(obj, cid) and b"\\ud" not in line
                        and b"\\uD" not in line):  # (a lone surrogate is scrubbed: not plain)
                    return text.strip().removeprefix("\ufeff")
        if obj is _NOT_READ or may_hold_surrogates(line.decode("utf-8", "replace")):
            obj = parse_jsonl_line(line, self.name, lineno)
        case = _with_context(f"{self.name} line {lineno}", record_to_case, obj, cid)
        case.id = cid
        return case

    def _build(self, index: int, line: bytes) -> Case:
        lineno = self._lines[index]
        obj = parse_jsonl_line(line, self.name, lineno)
        case = _with_context(f"{self.name} line {lineno}", record_to_case, obj, self._ids[index])
        case.id = self._ids[index]
        return case

    def get(self, index: int) -> Case:
        self._indexed()
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            return cached
        offset = self._offsets[index]
        if self._data is not None:
            line = self._line_in_memory(offset)
        else:
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


# The keys of a case's JSON in the order ``Case.to_dict`` writes them; and keys of an extra
# that reading checks (a provider's response) or that a case reads itself.
_CASE_KEY_ORDER = {"id": 0, "question": 1, "tool_outputs": 2, "context": 3, "documents": 4,
                   "answer": 5}
_CHECKED_EXTRAS = frozenset({"response", "request", "stream", "claims"})


def _plain_case_json(obj: object, cid: str) -> bool:
    """Whether ``obj`` is a case JSON that ``Case.from_dict(obj).to_dict()`` gives back as it
    is (same keys, order and values) with id ``cid``: then its text can be stored unchanged."""
    if type(obj) is not dict or obj.get("id") != cid:
        return False
    keys = tuple(obj)
    if keys in _PLAIN_CASE_KEYS:  # the usual shape: no extra keys
        return all(_plain_value(key, value) for key, value in obj.items())
    last = -1
    for key, value in obj.items():
        rank = _CASE_KEY_ORDER.get(key, 6)
        if rank < last or (rank == 6 and key in _CHECKED_EXTRAS):
            return False
        last = rank
        if rank < 6 and not _plain_value(key, value):
            return False
    return "answer" in obj


def _plain_line(line: bytes) -> tuple[str, str, int] | None:
    """A JSONL line holding a plain case (its id first, no extra key, text values, no lone
    surrogate escape): its id, its text and where the object ends in it; else None. Parsed
    this once, by the C scanner itself (json.loads's Python around it is a third of its
    cost); the index and the session's copy both ask it."""
    if line[:1] != b"{" or b"\x00" in line:
        return None
    try:
        text = line.decode("utf-8")
        obj, stop = _scan_once(text, 0)
    except (ValueError, StopIteration, RecursionError):
        return None
    if not (type(obj) is dict and tuple(obj) in _PLAIN_CASE_KEYS
            and (stop == len(text) or text[stop:].isspace())
            and type(cid := obj["id"]) is str and cid
            and (b"\\u" not in line or (b"\\ud" not in line and b"\\uD" not in line))):
        return None
    for k, v in obj.items():
        if type(v) is str:
            if k in _LISTY_KEYS:
                return None
        elif not _plain_value(k, v):
            return None
    return cid, text, stop


def _plain_row(line: bytes) -> tuple[str, bytes | str] | None:
    """A plain case line (:func:`_plain_line`) as the session's copy stores it: its id, and the
    line's bytes as they are when nothing follows the object (else the object's text); else
    None."""
    found = _plain_line(line)
    if found is None:
        return None
    cid, text, stop = found
    return cid, line if stop == len(text) else text[:stop]


def _plain_value(key: str, value: object) -> bool:
    # (Every item's type in one C pass: a generator per record was a tenth of a copy's parse.)
    if key == "tool_outputs":
        return type(value) is list and bool(value) and set(map(type, value)) == _STR_ONLY
    if key == "documents":
        return (type(value) is dict and bool(value)
                and set(map(type, value.values())) == _STR_ONLY)
    return type(value) is str


_STR_ONLY = {str}


def _plain_keys() -> frozenset[tuple[str, ...]]:
    middle = ("question", "tool_outputs", "context", "documents")
    found = set()
    for mask in range(1 << len(middle)):
        picked = tuple(k for i, k in enumerate(middle) if mask >> i & 1)
        found.add(("id", *picked, "answer"))
    return frozenset(found)


_PLAIN_CASE_KEYS = _plain_keys()
_NOT_READ = object()
_loads = json.JSONDecoder().decode
# One JSON value at an offset (the C scanner json.loads runs, without its Python wrapping).
_scan_once: Callable[[str, int], tuple[object, int]] = (
    json.JSONDecoder().scan_once)  # type: ignore[attr-defined]
_LISTY_KEYS = frozenset({"tool_outputs", "documents"})  # values that are no string


def jsonl_first_record(path: str) -> JsonlDataset | None:
    """The first record of the big JSONL file ``path`` as a one-case dataset, reading only up
    to it (a viewer shows it while the whole file is read elsewhere); None when ``path`` is
    smaller than :data:`FIRST_RECORD_BYTES` or not a JSONL file whose first line is an object
    (read it with ``load_input`` then). The case, its id included, is the one the whole file's
    dataset gives first."""
    if not named_jsonl(path):
        return None
    try:
        if os.path.getsize(path) < FIRST_RECORD_BYTES:
            return None  # read whole at once
        with open(path, "rb") as fh:
            prefix = b""
            for line in fh:
                prefix += line
                if line.strip():
                    break
    except OSError:
        return None  # load_input says what is wrong
    if b"\x00" in prefix or not prefix.lstrip().removeprefix(b"\xef\xbb\xbf").startswith(b"{"):
        return None
    return JsonlDataset(path, prefix)


def indexed_jsonl(path: str, deferred: bool = False) -> JsonlDataset | None:
    """The JSONL file ``path`` indexed in pieces when it is a regular file of at least
    :data:`INDEXED_BYTES` (or past the size limit, which then applies to each record), whose
    first line is one JSON object followed by more lines (or that is named ``.jsonl``); None
    otherwise (``load_input`` reads it whole, or refuses it as too large: a JSON document or
    array, a pipe, a device). ``deferred``: indexed by its first use (see JsonlDataset)."""
    try:
        if not os.path.isfile(path):
            return None
        size = os.path.getsize(path)
        if size < min(INDEXED_BYTES, max_input_bytes() + 1):
            return None
        with open(path, "rb") as fh:
            first = fh.readline(max_input_bytes() + 1)
            second = b""
            while not second.strip():
                second = fh.readline(64)
                if not second:
                    break
    except OSError:
        return None  # load_input says what is wrong
    text = first.removeprefix(b"\xef\xbb\xbf")
    if not first.endswith(b"\n") or b"\x00" in text or not text.lstrip().startswith(b"{"):
        return None
    if not (second.lstrip().startswith(b"{") or named_jsonl(path)):
        return None
    try:
        obj = parse_jsonl_line(text, path, 1)
    except InputError:
        return None
    from citeview.core.providers import streams

    if streams.event_provider(obj) is not None:
        return None  # a recorded stream's events: one case, read whole
    return JsonlDataset(path, indexed=True, deferred=deferred)


def document_dataset(obj: object, path: str) -> Dataset:
    """A dataset from one parsed JSON document (case, array, transcript or Responses output)."""
    stem = case_id_from_path(path)
    kind = detect_kind(obj)
    if kind == "json-array":
        assert isinstance(obj, list)
        cases = []
        for n, item in enumerate(obj, 1):
            rkind = detect_kind(item)
            if rkind not in ("case", "chat", "responses", *RECORD_KINDS):
                raise InputError(f"{path}: item {n} of the array is not a case "
                                 f"({describe_value(item)})")
            cases.append(_with_context(f"{path} item {n}", record_to_case, item, f"{stem}#{n}"))
        return ListDataset(cases, path, "json-array")
    if kind == "unknown":
        raise InputError(f"{path}: unknown format: {describe_value(obj)}")
    return ListDataset([_with_context(path, record_to_case, obj, stem)], path, kind)


def case_id_from_path(path: str) -> str:
    """The id of a case that carries none: the file name without its known suffixes (bytes of
    the name that are not UTF-8 become U+FFFD); ``stdin`` for standard input."""
    if path in (STDIN, STDIN_NAME):
        return "stdin"
    name = printable(Path(path).name)
    lowered = name.lower()
    changed = True
    while changed:
        changed = False
        for suffix in _ID_SUFFIXES:
            if lowered.endswith(suffix) and len(lowered) > len(suffix):
                name, lowered = name[: -len(suffix)], lowered[: -len(suffix)]
                changed = True
    return name or "case"


def parse_jsonl_line(line: bytes, path: str | None, lineno: int) -> object:
    """One JSONL record, parsed; bad UTF-8 or JSON raises an InputError naming the line."""
    text = decode_text(line, path, lineno)

    def syntax(err: json.JSONDecodeError) -> str:
        return f"{path} line {lineno}: invalid JSON at column {err.colno}: {err.msg}"

    return parse_json(text, f"{path} line {lineno}", syntax=syntax)


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


def _with_context(where: str, build: Callable[[object, str], _T], obj: object,
                  default_id: str) -> _T:
    """``build(obj, default_id)``, its InputError message prefixed with where it happened."""
    try:
        return build(obj, default_id)
    except InputError as err:
        raise InputError(f"{where}: {err}") from None
