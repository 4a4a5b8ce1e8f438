"""citeview export: write a whole session out (``--format json``: one JSON document that
``citeview import`` reads back losslessly; schema in resources/schemas/session.schema.json), or
its review results (``--format jsonl|csv``: one row per citation and source id, see
:mod:`citeview.session.rows`).

Formats are writers in :data:`WRITERS` (name -> ``write(session, out)``); add one there.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import IO

from citeview.core.errors import InputError
from citeview.session.interchange import write_json
from citeview.session.rows import write_csv, write_jsonl
from citeview.session.store import Session

HELP = ("export a review session (json: the whole session, for citeview import; jsonl, csv: "
        "one row per citation and source id)")

Writer = Callable[[Session, IO[str]], None]
WRITERS: dict[str, Writer] = {"json": write_json, "jsonl": write_jsonl, "csv": write_csv}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", help="a .citeview session")
    parser.add_argument("--format", choices=sorted(WRITERS), default="json",
                        help="output format (default: json)")
    parser.add_argument("-o", "--output", default="-", metavar="FILE",
                        help="write here instead of standard output")


def write_output(path: str, write: Callable[[IO[str]], None]) -> None:
    """Write to stdout (``-``) or to ``path`` atomically (a temp file renamed into place)."""
    if path == "-":
        write(sys.stdout)
        sys.stdout.flush()
        return
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory")
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            write(fh)
        os.replace(tmp, path)
    except OSError as err:
        raise InputError(f"{path}: cannot write ({err.strerror or err})") from None
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def run(args: argparse.Namespace) -> int:
    writer = WRITERS[args.format]
    with Session.open(args.session, readonly=True) as session:
        write_output(args.output, lambda out: writer(session, out))
    return 0
