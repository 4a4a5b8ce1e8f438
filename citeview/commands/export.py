"""citeview export: write a whole session out (``--format json``: one JSON document that
``citeview import`` reads back losslessly; schema in resources/schemas/session.schema.json), its
corrected answers (``--format corrections``, JSONL: ``--shape sft`` chat messages or ``--shape
pairs`` preference pairs, see :mod:`citeview.session.corrected`), or its review results
(``--format jsonl|csv``: one row per citation and source id, see
:mod:`citeview.session.rows`).

A case whose corrections no longer fit its answer (the input changed under them) is left out
of ``--format corrections`` with a one-line warning on standard error naming it; the rest is
written and the exit status stays 0.

Formats are writers in :data:`WRITERS` (name -> ``write(session, out)``); add one there. Row
formats are in :data:`ROW_WRITERS` too: they also take the lint policy (for the ``lint_codes``
column: ``--config``, else the configuration found from the current directory upward, as for
``citeview report``) and ``jobs`` (worker processes).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import IO, Any, Protocol

from citeview.commands._atomic import write_output, write_output_bytes
from citeview.commands._sessions import open_readonly
from citeview.core.corrections import CorrectionError
from citeview.core.errors import InputError
from citeview.core.policy import Policy, read_config
from citeview.session.corrected import SHAPES, Shape, write_corrections
from citeview.session.interchange import write_json
from citeview.session.protocol import ReviewStore
from citeview.session.rows import write_csv, write_jsonl

HELP = ("export a review session (json: the whole session, for citeview import; jsonl, csv: "
        "one row per citation and source id)")

Writer = Callable[[ReviewStore, IO[str]], None]


class RowWriter(Protocol):
    def __call__(self, session: ReviewStore, out: IO[Any], policy: Policy | None = None, *,
                 annotator: str | None = None, jobs: int | None = None) -> None: ...


ROW_WRITERS: dict[str, RowWriter] = {"jsonl": write_jsonl, "csv": write_csv}
WRITERS: dict[str, Writer] = {"json": write_json, **ROW_WRITERS,
                               "corrections": write_corrections}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", help="a .citeview session")
    parser.add_argument("--format", choices=sorted(WRITERS), default="json",
                        help="output format (default: json)")
    parser.add_argument("-o", "--output", default="-", metavar="FILE",
                        help="write here instead of standard output")
    parser.add_argument("--config", metavar="FILE",
                        help="jsonl, csv: lint policy for the lint_codes column (default: "
                             "citeview.toml or [tool.citeview] in pyproject.toml found from "
                             "here upward)")
    parser.add_argument("--shape", choices=SHAPES, default=None,
                        help="corrections: sft (chat {\"messages\"}) or pairs (preference "
                             "{\"prompt\", \"chosen\", \"rejected\"}); default sft")
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                        help="jsonl, csv: work in N processes, rows in session order (default: "
                             "1 below 2,000 cases, else up to 4)")


def _skipped(case_id: str, annotator: str, err: CorrectionError) -> None:
    """A case whose corrections no longer fit its answer (it changed under them): its pair is
    left out, the rest still written, exit 0. One bad case must not cost a team the whole
    export; the warning names the case so it can be looked at (its corrections are kept in
    the session, and in ``--format json``)."""
    why = str(err).split(": ", 1)[-1] if str(err).startswith("case ") else str(err)
    print(f"citeview: warning: case {case_id!r} (annotator {annotator or '-'}): corrections "
          f"skipped: {why}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    if args.shape is not None and args.format != "corrections":
        raise InputError(f"--shape applies to the corrections format, not {args.format}")
    if args.format == "corrections":
        if args.config or args.jobs is not None:
            raise InputError("--config and --jobs apply to the jsonl and csv formats, "
                             "not corrections")
        shape: Shape = "pairs" if args.shape == "pairs" else "sft"
        with open_readonly(args.session, "export") as session:
            write_output(args.output, lambda out: write_corrections(session, out, shape,
                                                                    skipped=_skipped))
        return 0
    rows = ROW_WRITERS.get(args.format)
    if rows is None:
        if args.config or args.jobs is not None:
            raise InputError(f"--config and --jobs apply to the jsonl and csv formats, "
                             f"not {args.format}")
        writer = WRITERS[args.format]
        with open_readonly(args.session, "export") as session:
            write_output(args.output, lambda out: writer(session, out))
        return 0
    policy = read_config(args.config) if args.config else Policy.discover()
    with open_readonly(args.session, "export") as session:
        # Citations are numbered with the session's families; lint must see the same ones.
        policy = policy.merged(families=session.families)
        # Bytes: rows are encoded where they are made (the workers), written as they come.
        write_output_bytes(args.output, lambda out: rows(session, out, policy,
                                                         jobs=args.jobs))
    return 0
