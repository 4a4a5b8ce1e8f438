"""citeview report: progress and quality of a review session (text, JSON or one HTML file)."""

from __future__ import annotations

import argparse

from citeview.commands._atomic import write_output
from citeview.commands._sessions import open_readonly
from citeview.core.errors import InputError
from citeview.core.policy import Policy, read_config
from citeview.session.report import write_report

HELP = "summarise a review session: progress, verdicts, precision, recall, lint counts"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", help="a .citeview session")
    parser.add_argument("--format", choices=("text", "json", "html"), default="text",
                        help="text (default), json, or html (one self-contained file)")
    parser.add_argument("-o", "--output", default="-", metavar="FILE",
                        help="write here instead of standard output")
    parser.add_argument("--annotator", metavar="NAME",
                        help="count only this annotator's verdicts (default: the adjudicated "
                             "verdict where there is one, else the most recent)")
    parser.add_argument("--config", metavar="FILE",
                        help="lint policy for the lint counts (default: citeview.toml or "
                             "[tool.citeview] in pyproject.toml found from here upward)")
    parser.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                        help="work in N processes (default: 1 below 2,000 cases, else up to 4)")


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    policy = read_config(args.config) if args.config else Policy.discover()
    with open_readonly(args.session, "report") as session:
        # Citations are numbered with the session's families; lint must see the same ones.
        policy = policy.merged(families=session.families)
        write_output(args.output, lambda out: write_report(
            session, out, args.format, policy, annotator=args.annotator, jobs=args.jobs))
    return 0
