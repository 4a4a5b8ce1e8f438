"""citeview strip: print the answer without its citation markers."""

from __future__ import annotations

import argparse
import sys

from citeview.commands._common import add_families
from citeview.commands._io import read_text
from citeview.core.markers import extract_citations, scan, strip_all, strip_citations

HELP = "print the answer without citation markers"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-", help="answer text file, or - for stdin")
    add_families(parser)
    parser.add_argument(
        "--all", action="store_true",
        help="also remove recovered markers (degraded, literal-escape, unterminated) and stray "
        "marker characters",
    )


def run(args: argparse.Namespace) -> int:
    text = read_text(args.file)
    if args.all:
        clean = strip_all(text, scan(text, args.families))
    else:
        clean = strip_citations(text, extract_citations(text, args.families))
    sys.stdout.write(clean)
    sys.stdout.flush()
    return 0
