"""citeview parse: print the citations of an answer as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from citeview.commands._common import add_families
from citeview.commands._io import read_text
from citeview.core.markers import extract_citations, scan

HELP = "print the citations of an answer as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-", help="answer text file, or - for stdin")
    add_families(parser)
    parser.add_argument(
        "--scan", action="store_true",
        help="also report recovered citations and diagnostics: prints an object with "
        "'citations' and 'diagnostics' instead of the reference parser's list",
    )


def run(args: argparse.Namespace) -> int:
    text = read_text(args.file)
    if args.scan:
        result = scan(text, args.families)
        out: object = {
            "citations": [c.to_dict() for c in result.citations],
            "diagnostics": [d.to_dict() for d in result.diagnostics],
        }
    else:
        out = [c.to_dict() for c in extract_citations(text, args.families)]
    json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0
