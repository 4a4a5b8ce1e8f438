"""citeview parse: print the citations of an answer as JSON.

A plain text answer is parsed as it is. A structured input (a case JSON, a transcript, a
Responses output) is read as its case and its answer parsed, offsets counting in the answer; a
dataset (JSONL, a JSON array, a session) gives one object per case, with its id.
"""

from __future__ import annotations

import argparse
import json
import sys

from citeview.commands._common import add_families
from citeview.commands._inputs import is_dataset, load_answers
from citeview.core.markers import extract_citations, scan

HELP = "print the citations of an answer as JSON"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-",
                        help="an answer text file, or a case, transcript or dataset (its "
                        "answers); - for stdin")
    add_families(parser)
    parser.add_argument(
        "--scan", action="store_true",
        help="also report recovered citations and diagnostics: prints an object with "
        "'citations' and 'diagnostics' instead of the reference parser's list",
    )


def _parsed(text: str, args: argparse.Namespace) -> object:
    if args.scan:
        result = scan(text, args.families)
        return {
            "citations": [c.to_dict() for c in result.citations],
            "diagnostics": [d.to_dict() for d in result.diagnostics],
        }
    return [c.to_dict() for c in extract_citations(text, args.families)]


def run(args: argparse.Namespace) -> int:
    dataset = load_answers(args.file)
    try:
        if is_dataset(dataset):
            out: object = []
            for case in dataset.iter_cases():
                parsed = _parsed(case.answer, args)
                assert isinstance(out, list)
                out.append({"case": case.id, **(parsed if isinstance(parsed, dict)
                                                else {"citations": parsed})})
        else:
            out = _parsed(dataset.get(0).answer, args)
    finally:
        dataset.close()
    json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0
