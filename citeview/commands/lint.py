"""citeview lint: check answers against the guide's citation rules, like a code linter.

Inputs are case JSON files or JSONL datasets (one case a line), read as a stream so memory does
not grow with the file; folders (their JSON and JSONL files, recursively), standard input, other
input formats, or one case from plain files (``--material`` ... ``--answer``). ``--jobs N`` lints
in N processes; output stays in input order. An input or record that cannot be read is a finding
(CV504 unreadable-input) and the run goes on, so the output is always complete.
Exit status: 0 when nothing is at or above ``--fail-on``, 1 when something is (an unreadable
input always is), 2 on bad usage (an unknown option, a missing PATH, a bad configuration).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain

from citeview.commands._inputs import (
    LOADERS,
    add_plain_arguments,
    has_plain_files,
    plain_dataset,
)
from citeview.core.analysis import analyse
from citeview.core.datasets import JSON_SUFFIXES
from citeview.core.diagnostics import Severity
from citeview.core.errors import InputError
from citeview.core.files import STDIN, parse_json
from citeview.core.lint_output import (
    FORMATS,
    CaseReport,
    Summary,
    locate_analysed,
    make_writer,
    unreadable_report,
)
from citeview.core.policy import (
    MULTI_SOURCE_STYLES,
    Policy,
    expand_codes,
    parse_multi_source,
    parse_threshold,
    read_config,
)
from citeview.core.pool import ordered_map
from citeview.core.records import Record
from citeview.core.records import iter_records as read_records
from citeview.core.support import DEFAULT_THRESHOLD
from citeview.core.transcripts import record_to_case

HELP = "check answers against the guide's citation rules (CV codes), like a code linter"

# Records sent to a worker at a time, and batches in flight per worker: enough to keep the
# workers busy, few enough that memory stays flat however long the file.
BATCH = 64
IN_FLIGHT_PER_JOB = 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="case JSON, JSONL dataset (one case or transcript a line, streamed), "
                        "JSON array, chat transcript, plain answer or session; - for stdin; a "
                        "folder: its *.json, *.jsonl and *.ndjson files, recursively")
    add_plain_arguments(parser)
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="output format (default: text)")
    parser.add_argument("--select", action="append", metavar="CODES",
                        help="only these rules: comma-separated codes, prefixes (CV3) or names")
    parser.add_argument("--extend-select", action="append", metavar="CODES",
                        help="turn these rules on in addition (e.g. CV205, CV307)")
    parser.add_argument("--ignore", action="append", metavar="CODES",
                        help="turn these rules off")
    parser.add_argument("--fail-on", choices=[s.value for s in Severity], default=None,
                        help="exit 1 when a finding is at or above this severity "
                        "(default: error)")
    parser.add_argument("--require-locators", action="store_true", default=None,
                        help="line-level sources must be cited with line ranges (CV205)")
    parser.add_argument("--multi-source", choices=MULTI_SOURCE_STYLES, default=None,
                        help="how several sources must be cited (CV307)")
    parser.add_argument("--weak-support-threshold", default=None, metavar="X",
                        help="CV401 weak-support (turn it on with --extend-select CV401) fires "
                        f"below this support score, 0 to 1 (default: {DEFAULT_THRESHOLD})")
    parser.add_argument("--families", default=None,
                        help="comma-separated citation families to accept (default: cite)")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                        help="lint in N processes (output keeps the input order)")
    parser.add_argument("--config", metavar="FILE",
                        help="read the policy from this TOML file instead of searching "
                        "citeview.toml / pyproject.toml from the current directory upward")
    parser.add_argument("--no-config", action="store_true",
                        help="ignore configuration files")


# --------------------------------------------------------------------------- policy


def build_policy(args: argparse.Namespace) -> Policy:
    if args.no_config:
        policy = Policy()
    elif args.config:
        policy = read_config(args.config)
    else:
        policy = Policy.discover()

    def codes(values: list[str] | None, opt: str) -> frozenset[str] | None:
        if values is None:
            return None
        return expand_codes([c for v in values for c in v.split(",")], opt)

    select = codes(args.select, "--select")
    extend = codes(args.extend_select, "--extend-select")
    ignore = codes(args.ignore, "--ignore")
    families = None
    if args.families is not None:
        families = tuple(f for f in args.families.split(",") if f)
        if not families:
            raise InputError("--families must name at least one family")
    return policy.merged(
        select=select,
        extend_select=(policy.extend_select | extend) if extend is not None else None,
        ignore=(policy.ignore | ignore) if ignore is not None else None,
        fail_on=Severity(args.fail_on) if args.fail_on else None,
        require_locators=args.require_locators,
        multi_source=parse_multi_source(args.multi_source, "--multi-source"),
        families=families,
        weak_support_threshold=(None if args.weak_support_threshold is None else parse_threshold(
            args.weak_support_threshold, "--weak-support-threshold")),
    )


# --------------------------------------------------------------------------- reading

#: What a folder given as PATH contributes, recursively (sessions are named explicitly: a review
#: session beside its input would lint the same cases twice).
FOLDER_SUFFIXES = JSON_SUFFIXES


def iter_records(path: str) -> Iterator[Record]:
    """The cases of ``path`` through core's streaming reader, session files included; how an
    input was read (a bracket that starts a plain answer) is told on stderr."""
    return read_records(path, LOADERS, notes=_tell)


def _tell(note: str) -> None:
    print(note, file=sys.stderr)


def plain_records(args: argparse.Namespace) -> Iterator[Record]:
    """The one case of ``--material/--context/--document/--answer``."""
    dataset = plain_dataset(args)
    case = dataset.get(0)
    yield Record(args.answer, None, None, case.id, case=case)


def expand_paths(paths: list[str]) -> list[str]:
    """``paths`` with each folder replaced by its :data:`FOLDER_SUFFIXES` files, recursively,
    sorted by path (hidden folders and files skipped). A missing path, or a folder with no
    such file, is an InputError (before any output)."""
    out: list[str] = []
    for path in paths:
        if path == STDIN:
            out.append(path)
            continue
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file")
        if not os.path.isdir(path):
            out.append(path)
            continue
        found: list[str] = []
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found += [os.path.join(folder, f) for f in sorted(files)
                      if not f.startswith(".") and f.lower().endswith(FOLDER_SUFFIXES)]
        if not found:
            raise InputError(f"{path}: a folder with no {', '.join(FOLDER_SUFFIXES)} file to "
                             "lint")
        out += sorted(found, key=lambda p: os.path.relpath(p, path).split(os.sep))
    return out


# --------------------------------------------------------------------------- linting


@dataclass(slots=True, frozen=True)
class Invalid:
    """A record (or a whole input, ``record`` None) that could not be read."""

    path: str
    record: int | None
    case_id: str
    message: str

    def __str__(self) -> str:
        rec = f":{self.record}" if self.record is not None else ""
        return f"{self.path}{rec}: {self.message}"


def lint_record(rec: Record, policy: Policy) -> CaseReport | Invalid:
    case = rec.case
    if case is None:
        if rec.raw is None:
            return Invalid(rec.path, rec.record, rec.default_id,
                           rec.error or "unreadable record")
        try:
            data = parse_json(rec.raw, "", syntax=_syntax_message)
            case = record_to_case(data, rec.default_id)
        except InputError as err:
            return Invalid(rec.path, rec.record, rec.default_id, str(err).removeprefix(": "))
    return CaseReport(rec.path, rec.record, case.id, locate_analysed(analyse(case, policy)))


def _syntax_message(err: json.JSONDecodeError) -> str:
    return f"invalid JSON at column {err.colno}: {err.msg}"


_worker_policy: Policy | None = None


def _init_worker(policy: Policy) -> None:
    global _worker_policy
    _worker_policy = policy


def _lint_batch(batch: list[Record]) -> list[CaseReport | Invalid]:
    assert _worker_policy is not None
    return [lint_record(r, _worker_policy) for r in batch]


def lint_stream(paths: list[str], policy: Policy, jobs: int = 1
                ) -> Iterator[CaseReport | Invalid]:
    """Reports for every case of ``paths`` in input order, with at most a bounded number of
    records in memory (and in flight to the workers)."""
    return lint_records(chain.from_iterable(iter_records(p) for p in paths), policy, jobs)


def lint_records(records: Iterable[Record], policy: Policy, jobs: int = 1
                 ) -> Iterator[CaseReport | Invalid]:
    """Reports for ``records`` in their order (see :func:`lint_stream`)."""
    if jobs <= 1:
        for rec in records:
            yield lint_record(rec, policy)
        return
    yield from ordered_map(_lint_batch, records, jobs, batch=BATCH,
                           in_flight_per_job=IN_FLIGHT_PER_JOB, initializer=_init_worker,
                           initargs=(policy,))


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    if args.paths and has_plain_files(args):
        raise InputError("give either PATH or plain files (--answer with --material, "
                         "--context, --document), not both")
    if not args.paths and not has_plain_files(args):
        raise InputError("nothing to lint: give PATH, or --answer A.txt with --material, "
                         "--context or --document")
    if args.paths.count(STDIN) > 1:
        raise InputError("standard input (-) can be given only once")
    policy = build_policy(args)
    records: Iterable[Record]
    if args.paths:
        paths = expand_paths(list(args.paths))  # fail fast, before any output
        records = chain.from_iterable(iter_records(p) for p in paths)
    else:
        records = list(plain_records(args))  # read before any output: errors exit 2
    writer = make_writer(args.format)
    summary = Summary()
    out = sys.stdout
    out.write(writer.begin())
    for item in lint_records(records, policy, args.jobs):
        report = unreadable_report(item.path, item.record, item.case_id, item.message) \
            if isinstance(item, Invalid) else item
        summary.add(report)
        piece = writer.case(report)
        if piece:
            out.write(piece)
    out.write(writer.end(summary))
    out.flush()
    worst = summary.worst()
    return 1 if worst is not None and worst.rank >= policy.fail_on.rank else 0
