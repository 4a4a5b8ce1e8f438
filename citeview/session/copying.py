"""A big JSONL input's records, read and checked for a new session in a process of their own
(issue 26).

Parsing a million records in a window's worker thread held the window's interpreter lock for
most of the copy (Python work between short C calls: the window's thread waited for it), and
SQLite's inserts, which run without the lock, waited for it again after every row. So two
processes do it, the window's thread only waits for them: a reader (:func:`reader_main`) reads
the file in pieces, checks and parses each record once (:meth:`JsonlDataset.copy_batches`) and
sends the rows in batches through a pipe to a maker (:func:`maker_main`), which writes them into
the new session's temporary file (:meth:`SessionFile.make_file`) and moves it into place. The
two run on two cores at once; memory is a few batches in each.

The pipe carries frames of an 8-byte little-endian length and a pickle (from the reader this
module started, never from elsewhere): ``("rows", [(id, JSON bytes or text), ...])``, then
``("done", count)`` or ``("error", one-line message)``. The maker prints one JSON line: what
went wrong, or nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import pickle
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from typing import IO, Any, cast

import citeview
from citeview.core.cases import Case
from citeview.core.datasets import JsonlDataset
from citeview.core.errors import InputError
from citeview.session.errors import DuplicateCaseIds, SessionError
from citeview.session.files import remove_temp
from citeview.session.jsonio import dumps_json

#: A deferred JSONL dataset at least this big is read in a child process.
PROCESS_BYTES = 32 << 20
BATCH = 500  # rows a frame carries (about 0.5 MB of 1 KB cases)
PARTS = 2  # readers sharing a file by chunks
PART_CHUNK = 256 << 10  # bytes of the file a chunk covers (its frame fits a widened pipe)
PIPE_BYTES = 1 << 20  # Linux's default most for an unprivileged process
_HEAD = struct.Struct("<Q")
# The children's programs (not ``-m``: the session package imports this module first). They
# run a little below the window that starts them: three busy processes on two cores otherwise
# delay the window's thread each time it wakes.
_READER = ("import sys\nfrom citeview.session.copying import reader_main, lower\n"
           "lower()\nsys.exit(reader_main(sys.argv[1:]))")
_MAKER = ("import sys\nfrom citeview.session.copying import maker_main, lower\n"
          "lower()\nsys.exit(maker_main(sys.argv[1:]))")
NICE = 3


def in_process(cases: JsonlDataset) -> bool:
    """Whether :func:`make_in_processes` should copy ``cases``: a file not indexed yet (so
    this process never indexes it), big enough to pay for starting two processes."""
    if cases.indexed or cases.path is None or not sys.executable:
        return False
    try:
        return os.path.getsize(cases.path) >= PROCESS_BYTES
    except OSError:
        return False


def make_in_processes(path: str, cases: JsonlDataset, meta: dict[str, Any], *,
                      overwrite: bool) -> None:
    """Make the session file ``path`` (as :meth:`SessionFile.make_file` with ``fresh``) from
    every record of ``cases``, read by reader processes and written by a maker process; this
    thread waits without the interpreter lock. Errors as ``make_file``'s (one line).

    With two cores or more, two readers share the file by chunks (each parses half of it: the
    parse is most of the work, the maker's writes the rest), and the maker takes their chunks in
    file order. A record they cannot take alone (no id, an error) or ids repeated across
    chunks send the work to one reader over the whole file, which says which line is wrong."""
    assert cases.path is not None
    # (POSIX only: the maker is handed the readers' pipes by number.)
    if (os.cpu_count() or 1) > 1 and os.name == "posix" and _make(
            path, cases.path, meta, overwrite, PARTS):
        return
    _make(path, cases.path, meta, overwrite, 1)


def _make(path: str, source: str, meta: dict[str, Any], overwrite: bool, parts: int) -> bool:
    """One attempt of :func:`make_in_processes` with ``parts`` readers (1: one reader over the
    whole file); False when ``parts`` readers could not take the file (nothing is left)."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(citeview.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    started: list[subprocess.Popen[bytes]] = []
    shared: list[str] = []
    if parts > 1:
        try:
            shared = [str(PART_CHUNK), _identity(source)]
        except OSError:
            return False  # (one reader says why it cannot read it)
    with tempfile.TemporaryFile() as reader_err, tempfile.TemporaryFile() as maker_err:
        pipes = [os.pipe() for _ in range(parts)]
        try:
            try:
                for part, (_, rows_in) in enumerate(pipes):
                    _widen(rows_in)
                    started.append(subprocess.Popen(
                        [sys.executable, "-P", "-c", _READER, source,
                         *([str(part), str(parts), *shared] if parts > 1 else [])],
                        stdin=subprocess.DEVNULL, stdout=rows_in, stderr=reader_err, env=env))
                ends = [rows_out for rows_out, _ in pipes]
                started.append(subprocess.Popen(
                    [sys.executable, "-P", "-c", _MAKER, path, json.dumps(meta),
                     "overwrite" if overwrite else "",
                     *([",".join(map(str, ends))] if parts > 1 else [])],
                    stdin=ends[0] if parts == 1 else subprocess.DEVNULL,
                    stdout=subprocess.PIPE, stderr=maker_err, env=env, pass_fds=ends))
            finally:
                for fds in pipes:
                    for fd in fds:
                        os.close(fd)
            *readers, maker = started
            said, _ = maker.communicate()
            for reader in readers:
                if reader.poll() is None and maker.returncode != 0:
                    reader.kill()  # (the maker stopped: nobody reads the rows)
                reader.wait()
        finally:
            for proc in started:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            if len(started) == parts + 1 and started[-1].returncode != 0:
                # A maker killed midway could not remove its temporary file (as big as the
                # session): nobody else would until a later session's stale-file sweep.
                remove_temp(path, started[-1].pid)
        lines = said.decode("utf-8", "replace").strip().splitlines()
        told = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None
        if maker.returncode == 0 and told == {}:
            return True
        if isinstance(told, dict) and told.get("alone"):
            return False
        if isinstance(told, dict) and isinstance(told.get("error"), str):
            raise (SessionError if told.get("session") else InputError)(told["error"])
        maker_err.seek(0)
        last = maker_err.read().decode("utf-8", "replace").strip().splitlines()
    raise SessionError(f"{path}: cannot create session (the process making it stopped: exit "
                       f"{maker.returncode}{': ' + last[-1] if last else ''})")


def _identity(path: str) -> str:
    """Which file ``path`` is (device and inode): readers sharing it by chunks must all read
    the one file, not one each when a new file is moved over it meanwhile (an editor's save)."""
    st = os.stat(path)
    return f"{st.st_dev}:{st.st_ino}"


def _widen(fd: int) -> None:
    """Let the pipe ``fd`` hold a whole chunk's frame or more (Linux; elsewhere the default):
    a reader then parses its next chunk while the maker still writes the other reader's."""
    with contextlib.suppress(OSError, ImportError):
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)


class _Alone(Exception):
    """The readers sharing the file met what one reader over the whole file must take."""


def _read_frame(stream: IO[bytes], path: str) -> tuple[str, object]:
    """The next frame a reader sent on ``stream`` (for session ``path``): its kind and value."""
    head = stream.read(_HEAD.size)
    body = stream.read(_HEAD.unpack(head)[0]) if len(head) == _HEAD.size else b""
    if not body:
        raise SessionError(f"{path}: cannot create session (the process reading the input "
                           "stopped before its end)")
    kind, value = pickle.loads(body)  # noqa: S301  (a reader this module started)
    return str(kind), value


def _chunk_frames(streams: Sequence[IO[bytes]], path: str) -> Iterator[tuple[str, bytes | str]]:
    """The rows the readers send on ``streams`` for session ``path``, in file order: those of
    readers sharing the file by chunks (reader ``k`` has chunks ``k``, ``k + len(streams)``,
    ...), or one reader's batches (one stream: the whole file its one chunk). A reader's
    error is raised as an InputError; :class:`_Alone` when a sharing reader meets a record it
    cannot take."""
    for index in itertools.count():
        kind, value = _read_frame(streams[index % len(streams)], path)
        if kind in ("rows", "chunk"):
            yield from cast("list[tuple[str, bytes | str]]", value)
        elif kind == "alone":
            raise _Alone
        elif kind == "error":
            raise InputError(str(value))
        else:
            return


def _send(out: IO[bytes], kind: str, value: object) -> None:
    body = pickle.dumps((kind, value), protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_HEAD.pack(len(body)))
    out.write(body)


def lower() -> None:
    """This process a little below its parent's priority (:data:`NICE`), where it can be."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICE)


def reader_main(argv: list[str]) -> int:
    """The reader: every record of the JSONL file ``argv[0]`` sent as rows on standard
    output; with ``argv[1:4]`` (``part``, ``parts``, the chunks' size), the records of its
    chunks only, a frame a chunk, when the file it opened is the one ``argv[4]`` names
    (:func:`_identity`)."""
    out = sys.stdout.buffer
    dataset = JsonlDataset(argv[0], indexed=True, deferred=True)
    count = 0
    try:
        try:
            if len(argv) > 1:
                checked = False
                for chunk in dataset.part_batches(int(argv[1]), int(argv[2]), int(argv[3])):
                    if not checked:  # (the file is open now: moved over later, it is read on)
                        checked = True
                        try:
                            same = _identity(argv[0]) == argv[4]
                        except OSError:
                            same = False
                        if not same:
                            chunk = None
                    if chunk is None:
                        _send(out, "alone", "")
                        break
                    _send(out, "chunk", _rows(chunk))
                else:
                    _send(out, "done", 0)
            else:
                for batch in dataset.copy_batches(BATCH):
                    rows = _rows(batch)
                    _send(out, "rows", rows)
                    count += len(rows)
                _send(out, "done", count)
        except InputError as err:
            _send(out, "error", str(err))
        out.flush()
    except BrokenPipeError:  # the maker stopped (and says why); nothing more to flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


def _rows(batch: list[tuple[str, bytes | str | Case]]) -> list[tuple[str, bytes | str]]:
    return [(cid, dumps_json(row.to_dict()) if isinstance(row, Case) else row)
            for cid, row in batch]


def maker_main(argv: list[str]) -> int:
    """The maker: the session file ``argv[0]`` with meta ``argv[1]`` (JSON) from the rows on
    standard input, or with ``argv[3]`` from the readers' pipes it names (file descriptors,
    comma-separated, in chunk order); ``argv[2]`` says whether it may replace a file. Prints
    ``{}`` once it is in place, ``{"alone": true}`` when the readers sharing the file could not
    take it (nothing is left), or the error."""
    from citeview.session.store_file import SessionFile

    path, meta = argv[0], json.loads(argv[1])
    shared = len(argv) > 3
    streams = ([os.fdopen(int(fd), "rb") for fd in argv[3].split(",")] if shared
               else [sys.stdin.buffer])
    rows = _chunk_frames(streams, path)
    try:
        SessionFile.make_file(path, meta, rows, overwrite=argv[2] == "overwrite", fresh=True)
    except (_Alone, DuplicateCaseIds) as err:
        if shared:  # (one reader over the file says which lines hold the same id)
            print(json.dumps({"alone": True}))
            return 3
        print(json.dumps({"error": str(err), "session": True}))
        return 2
    except InputError as err:
        print(json.dumps({"error": str(err), "session": isinstance(err, SessionError)}))
        return 2
    print("{}")
    return 0
