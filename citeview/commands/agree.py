"""citeview agree: inter-annotator agreement of two sessions (exit 2 when they share no case)."""

from __future__ import annotations

import argparse
import sys

from citeview.commands._atomic import write_output
from citeview.commands._sessions import open_session
from citeview.session.agree import compare, render_json, render_text

HELP = "agreement between two annotators' sessions: percent, Cohen's kappa, disagreements"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A.citeview", help="the first session")
    parser.add_argument("b", metavar="B.citeview", help="the second session")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="output format (default: text)")
    parser.add_argument("-o", "--output", default="-", metavar="FILE",
                        help="write here instead of standard output")
    parser.add_argument("--annotator-a", metavar="NAME", help="use only NAME's verdicts in A")
    parser.add_argument("--annotator-b", metavar="NAME", help="use only NAME's verdicts in B")


def run(args: argparse.Namespace) -> int:
    with open_session(args.a) as a, open_session(args.b) as b:
        result = compare(a, b, annotator_a=args.annotator_a, annotator_b=args.annotator_b)
    for warning in result.warnings:  # also in the output, for whoever reads only that
        print(f"citeview: warning: {warning}", file=sys.stderr)
    text = render_json(result) if args.format == "json" else render_text(result)
    write_output(args.output, lambda out: None if out.write(text) else None)
    return 0
