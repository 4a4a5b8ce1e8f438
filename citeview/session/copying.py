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

import json
import os
import pickle
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from typing import IO, Any, cast

import citeview
from citeview.core.cases import Case
from citeview.core.datasets import JsonlDataset
from citeview.core.errors import InputError
from citeview.session.errors import SessionError
from citeview.session.jsonio import dumps_json

#: A deferred JSONL dataset at least this big is read in a child process.
PROCESS_BYTES = 32 << 20
BATCH = 500  # rows a frame carries (about 0.5 MB of 1 KB cases)
_HEAD = struct.Struct("<Q")
# The children's programs (not ``-m``: the session package imports this module first).
_READER = ("import sys\nfrom citeview.session.copying import reader_main\n"
           "sys.exit(reader_main(sys.argv[1:]))")
_MAKER = ("import sys\nfrom citeview.session.copying import maker_main\n"
          "sys.exit(maker_main(sys.argv[1:]))")


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
    every record of ``cases``, read by a reader process and written by a maker process; this
    thread waits without the interpreter lock. Errors as ``make_file``'s (one line)."""
    assert cases.path is not None
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(citeview.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    started: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryFile() as reader_err, tempfile.TemporaryFile() as maker_err:
        rows_out, rows_in = os.pipe()
        try:
            try:
                started.append(subprocess.Popen(
                    [sys.executable, "-P", "-c", _READER, cases.path], stdin=subprocess.DEVNULL,
                    stdout=rows_in, stderr=reader_err, env=env))
                started.append(subprocess.Popen(
                    [sys.executable, "-P", "-c", _MAKER, path, json.dumps(meta),
                     "overwrite" if overwrite else ""], stdin=rows_out,
                    stdout=subprocess.PIPE, stderr=maker_err, env=env))
            finally:
                os.close(rows_in)
                os.close(rows_out)
            reader, maker = started
            said, _ = maker.communicate()
            if reader.poll() is None and maker.returncode != 0:
                reader.kill()  # (the maker stopped: nobody reads the rows)
            reader.wait()
        finally:
            for proc in started:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        lines = said.decode("utf-8", "replace").strip().splitlines()
        told = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None
        if maker.returncode == 0 and told == {}:
            return
        if isinstance(told, dict) and isinstance(told.get("error"), str):
            raise (SessionError if told.get("session") else InputError)(told["error"])
        maker_err.seek(0)
        last = maker_err.read().decode("utf-8", "replace").strip().splitlines()
    raise SessionError(f"{path}: cannot create session (the process making it stopped: exit "
                       f"{maker.returncode}{': ' + last[-1] if last else ''})")


def _frames(stream: IO[bytes], path: str) -> Iterator[tuple[str, bytes | str]]:
    """The rows the reader sends on ``stream`` for session ``path``; its error raised as an
    InputError."""
    while True:
        head = stream.read(_HEAD.size)
        body = stream.read(_HEAD.unpack(head)[0]) if len(head) == _HEAD.size else b""
        if not body:
            raise SessionError(f"{path}: cannot create session (the process reading the input "
                               "stopped before its end)")
        kind, value = pickle.loads(body)  # noqa: S301  (the reader this module started)
        if kind == "rows":
            yield from cast("list[tuple[str, bytes | str]]", value)
        elif kind == "error":
            raise InputError(str(value))
        else:
            return


def _send(out: IO[bytes], kind: str, value: object) -> None:
    body = pickle.dumps((kind, value), protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_HEAD.pack(len(body)))
    out.write(body)


def reader_main(argv: list[str]) -> int:
    """The reader: every record of the JSONL file ``argv[0]`` sent as rows on standard
    output."""
    out = sys.stdout.buffer
    dataset = JsonlDataset(argv[0], indexed=True, deferred=True)
    count = 0
    try:
        try:
            for batch in dataset.copy_batches(BATCH):
                rows = [(cid, dumps_json(row.to_dict()) if isinstance(row, Case) else row)
                        for cid, row in batch]
                _send(out, "rows", rows)
                count += len(rows)
        except InputError as err:
            _send(out, "error", str(err))
        else:
            _send(out, "done", count)
        out.flush()
    except BrokenPipeError:  # the maker stopped (and says why); nothing more to flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


def maker_main(argv: list[str]) -> int:
    """The maker: the session file ``argv[0]`` with meta ``argv[1]`` (JSON) from the rows on
    standard input; ``argv[2]`` says whether it may replace a file. Prints ``{}`` once it is
    in place, or the error."""
    from citeview.session.store_file import SessionFile

    path, meta = argv[0], json.loads(argv[1])
    try:
        SessionFile.make_file(path, meta, _frames(sys.stdin.buffer, path),
                              overwrite=argv[2] == "overwrite", fresh=True)
    except InputError as err:
        print(json.dumps({"error": str(err), "session": isinstance(err, SessionError)}))
        return 2
    print("{}")
    return 0
