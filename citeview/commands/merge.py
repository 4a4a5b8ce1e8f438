"""citeview merge: a new session holding two annotators' verdicts side by side."""

from __future__ import annotations

import argparse
import os
import sys

from citeview.commands._sessions import open_session, write_session
from citeview.core.errors import InputError
from citeview.session.merge import MergeReport, merge_sessions
from citeview.session.protocol import ReviewStore

HELP = "merge two annotators' sessions into a new one (verdicts side by side, to adjudicate)"

#: Its output is a session (the output check allows one, never an input).
WRITES_SESSION = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A.citeview", help="the first session (its cases win)")
    parser.add_argument("b", metavar="B.citeview", help="the second session")
    parser.add_argument("-o", "--output", required=True, metavar="C.citeview",
                        help="the new merged session: a file, or a project on a server "
                             "(postgresql://...?project=NAME)")
    parser.add_argument("--force", action="store_true", help="replace C if it exists")


def run(args: argparse.Namespace) -> int:
    out = os.path.abspath(args.output)
    if (not args.force and os.path.isfile(out)
            and out not in (os.path.abspath(args.a), os.path.abspath(args.b))):
        raise InputError(f"{args.output}: already exists (use --force to replace it)")
    with open_session(args.a) as a, open_session(args.b) as b:
        reports: list[MergeReport] = []

        def make(path: str) -> ReviewStore:
            merged, report = merge_sessions(a, b, path, overwrite=args.force)
            reports.append(report)
            return merged
        write_session(args.output, make, overwrite=args.force)
    report = reports[0]
    names = ", ".join(n for m in report.renamed for n in m.values()) or "(none)"
    print(f"merged into {args.output}: annotators {names}", file=sys.stderr)
    for tag, ids in (("A", report.only_a), ("B", report.only_b)):
        if ids:
            print(f"  {len(ids)} case(s) only in {tag}", file=sys.stderr)
    if report.differing:
        print(f"  {len(report.differing)} case(s) differ; A's content kept"
              + (f", {report.orphaned} annotation(s) of B orphaned" if report.orphaned else ""),
              file=sys.stderr)
    return 0
