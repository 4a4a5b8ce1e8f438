"""citeview lint: check answers against the guide's citation rules, like a code linter.

Inputs are case JSON files or JSONL datasets (one case a line), read as a stream so memory does
not grow with the file. ``--jobs N`` lints in N processes; output stays in input order.
Exit status: 0 when nothing is at or above ``--fail-on``, 1 when something is, 2 on bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from citeview.core.analysis import analyse
from citeview.core.cases import Case
from citeview.core.datasets import case_id_from_path
from citeview.core.diagnostics import Severity
from citeview.core.errors import InputError
from citeview.core.files import decode_text
from citeview.core.inputs import SQLITE_MAGIC, load_input
from citeview.core.lint_output import FORMATS, CaseReport, Summary, locate_analysed, make_writer
from citeview.core.policy import (
    MULTI_SOURCE_STYLES,
    Policy,
    expand_codes,
    parse_multi_source,
    parse_threshold,
    read_config,
)
from citeview.core.support import DEFAULT_THRESHOLD
from citeview.core.text import may_hold_surrogates, scrub_surrogates
from citeview.core.transcripts import detect_kind, record_to_case

HELP = "check answers against the guide's citation rules (CV codes), like a code linter"

# Records sent to a worker at a time, and batches in flight per worker: enough to keep the
# workers busy, few enough that memory stays flat however long the file.
BATCH = 64
IN_FLIGHT_PER_JOB = 4


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="case JSON, JSONL dataset (one case or transcript a line, streamed), "
                        "JSON array, chat transcript, plain answer or session; - for stdin")
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


@dataclass(slots=True, frozen=True)
class Record:
    """One case to lint: its raw JSON text (a JSONL line, parsed in the worker), or a ready
    :class:`Case` (a JSON document already parsed here, or inputs that
    :func:`~citeview.core.formats.load_input` reads), or the error that made the record
    unreadable; and where it came from."""

    path: str
    record: int | None
    raw: str | None
    default_id: str
    error: str | None = None
    case: Case | None = None


def _decode(line: bytes) -> str:
    return line.decode("utf-8").removeprefix("\ufeff")


def _loads(text: str) -> Any:
    """Parsed JSON with lone surrogates scrubbed, as :mod:`citeview.core.formats` reads it."""
    data = json.loads(text)
    return scrub_surrogates(data) if may_hold_surrogates(text) else data


def _built(path: str, n: int | None, obj: object, default_id: str) -> Record:
    """A record from a JSON value already parsed (no second parse in the worker)."""
    try:
        return Record(path, n, None, default_id, case=record_to_case(obj, default_id))
    except InputError as err:
        return Record(path, n, None, default_id, error=str(err))


def iter_records(path: str) -> Iterator[Record]:
    """The cases of ``path`` one at a time.

    JSON and JSONL inputs are streamed here: a JSONL file line by line (memory does not grow
    with the file), a JSON document (a case, a transcript, an array of cases) whole. Each record
    may be a case, a chat transcript or a Responses output. Other inputs (plain text answers,
    citeview sessions) go through :func:`~citeview.core.formats.load_input`."""
    stem = "stdin" if path == "-" else case_id_from_path(path)
    fh: IO[bytes]
    if path == "-":
        fh = sys.stdin.buffer
    else:
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file")
        if os.path.isdir(path):
            raise InputError(f"{path}: is a directory, not a file")
        try:
            fh = open(path, "rb")  # noqa: SIM115 - closed below, after streaming
        except OSError as err:
            raise InputError(f"{path}: cannot read ({err.strerror or err})") from None
    try:
        yield from _records(fh, path, stem)
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()


def _loaded(path: str, stem: str, data: bytes | None) -> Iterator[Record]:
    """Records of an input that is not JSON: a session database or a plain text answer."""
    if path == "-":
        assert data is not None
        # Decoded as any text the CLI reads (NUL bytes refused, as load_input does for a file).
        yield Record(path, None, None, stem, case=Case(stem, decode_text(data, "<stdin>")))
        return
    import citeview.session  # noqa: F401  (registers the session loader: sessions lint too)

    dataset = load_input(path)
    try:
        many = len(dataset) > 1 or dataset.kind not in ("plain", "case")
        for i, case in enumerate(dataset.iter_cases(), start=1):
            yield Record(path, i if many else None, None, case.id, case=case)
    finally:
        dataset.close()


def _records(fh: IO[bytes], path: str, stem: str) -> Iterator[Record]:
    lines = iter(fh)
    head: list[tuple[int, bytes]] = []  # the first non-blank lines, to decide the format
    lineno = 0
    for raw in lines:
        lineno += 1
        if raw.strip():
            head.append((lineno, raw))
            if len(head) == 2:
                break
    if not head:
        raise InputError(f"{path}: empty file, no case to lint")
    lead = head[0][1].lstrip().removeprefix(b"\xef\xbb\xbf")
    if not lead.startswith((b"{", b"[")):
        # Not JSON: a session database, a plain text answer, or something unreadable.
        if b"\x00" in head[0][1] and not lead.startswith(SQLITE_MAGIC):
            raise InputError(f"{path}: binary file (contains NUL bytes), not text")
        rest = b"".join(raw for _, raw in head) + b"".join(lines) if path == "-" else None
        yield from _loaded(path, stem, rest)
        return
    first: Any = None
    with contextlib.suppress(UnicodeDecodeError, ValueError):
        first = _loads(_decode(head[0][1]))
    first_ok = isinstance(first, dict)
    jsonl = path.lower().endswith((".jsonl", ".ndjson")) or (first_ok and len(head) == 2)
    if not jsonl and not first_ok:
        # A pretty-printed case or an array of cases: one JSON document.
        rest = b"".join(raw for _, raw in head) + b"".join(lines)
        yield from _document(rest, path, stem)
        return
    if not jsonl:
        yield _built(path, None, first, stem)
        return
    for n, raw in head:
        yield _line_record(path, n, raw, stem)
    for raw in lines:
        lineno += 1
        if raw.strip():
            yield _line_record(path, lineno, raw, stem)


def _line_record(path: str, n: int, raw: bytes, stem: str) -> Record:
    try:
        return Record(path, n, _decode(raw), f"{stem}#{n}")
    except UnicodeDecodeError as err:
        return Record(path, n, None, f"{stem}#{n}", f"invalid UTF-8 at byte {err.start}")


def _document(data: bytes, path: str, stem: str) -> Iterator[Record]:
    try:
        text = _decode(data)
    except UnicodeDecodeError as err:
        raise InputError(f"{path}: invalid UTF-8 at byte {err.start}") from None
    try:
        doc = _loads(text)
    except ValueError as err:
        raise InputError(f"{path}: not a case JSON or JSONL dataset ({err})") from None
    kind = detect_kind(doc)
    if kind == "json-array":
        for i, item in enumerate(doc, start=1):
            yield _built(path, i, item, f"{stem}#{i}")
    elif kind == "unknown":
        what = "an object without \"answer\"" if isinstance(doc, dict) else type(doc).__name__
        raise InputError(f"{path}: not a case, transcript or dataset ({what})")
    else:
        yield _built(path, None, doc, stem)


# --------------------------------------------------------------------------- linting


@dataclass(slots=True, frozen=True)
class Invalid:
    path: str
    record: int | None
    message: str

    def __str__(self) -> str:
        rec = f":{self.record}" if self.record is not None else ""
        return f"{self.path}{rec}: {self.message}"


def lint_record(rec: Record, policy: Policy) -> CaseReport | Invalid:
    case = rec.case
    if case is None:
        if rec.raw is None:
            return Invalid(rec.path, rec.record, rec.error or "unreadable record")
        try:
            data: Any = _loads(rec.raw)
        except ValueError as err:
            return Invalid(rec.path, rec.record, f"invalid JSON ({err})")
        try:
            case = record_to_case(data, rec.default_id)
        except InputError as err:
            return Invalid(rec.path, rec.record, str(err))
    return CaseReport(rec.path, rec.record, case.id, locate_analysed(analyse(case, policy)))


_worker_policy: Policy | None = None


def _init_worker(policy: Policy) -> None:
    global _worker_policy
    _worker_policy = policy


def _lint_batch(batch: list[Record]) -> list[CaseReport | Invalid]:
    assert _worker_policy is not None
    return [lint_record(r, _worker_policy) for r in batch]


def _batches(paths: list[str]) -> Iterator[list[Record]]:
    batch: list[Record] = []
    for path in paths:
        for rec in iter_records(path):
            batch.append(rec)
            if len(batch) >= BATCH:
                yield batch
                batch = []
    if batch:
        yield batch


def lint_stream(paths: list[str], policy: Policy, jobs: int = 1
                ) -> Iterator[CaseReport | Invalid]:
    """Reports for every case of ``paths`` in input order, with at most a bounded number of
    records in memory (and in flight to the workers)."""
    if jobs <= 1:
        for path in paths:
            for rec in iter_records(path):
                yield lint_record(rec, policy)
        return
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(policy,)) as pool:
        window: deque[Any] = deque()
        for batch in _batches(paths):
            window.append(pool.apply_async(_lint_batch, (batch,)))
            if len(window) >= jobs * IN_FLIGHT_PER_JOB:
                yield from window.popleft().get()
        while window:
            yield from window.popleft().get()


def run(args: argparse.Namespace) -> int:
    if args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    policy = build_policy(args)
    for path in args.paths:  # fail fast, before any output
        if path != "-" and not os.path.exists(path):
            raise InputError(f"{path}: no such file")
        if os.path.isdir(path):
            raise InputError(f"{path}: is a directory, not a file")
    writer = make_writer(args.format)
    summary = Summary()
    out = sys.stdout
    out.write(writer.begin())
    for item in lint_stream(list(args.paths), policy, args.jobs):
        if isinstance(item, Invalid):
            summary.invalid_records += 1
            print(f"citeview: error: {item}", file=sys.stderr)
            continue
        summary.add(item)
        piece = writer.case(item)
        if piece:
            out.write(piece)
    out.write(writer.end(summary))
    out.flush()
    if summary.invalid_records:
        return 2
    worst = summary.worst()
    return 1 if worst is not None and worst.rank >= policy.fail_on.rank else 0
