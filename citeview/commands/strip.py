"""citeview strip: print the answer without its citation markers.

A plain text answer is printed without its markers; a structured input (a case JSON, a
transcript, a Responses output) prints its answer without them; a dataset (JSONL, a JSON array,
a session) prints one JSON line per case: ``{"case": ID, "answer": TEXT}``. ``--as`` copies the
answer out (:mod:`citeview.core.copyout`): clean text, Markdown with footnotes, or HTML.
"""

from __future__ import annotations

import argparse
import json
import sys

from citeview.commands._common import add_families
from citeview.commands._inputs import is_dataset, load_answers
from citeview.core.cases import Case
from citeview.core.markers import extract_citations, scan, strip_citations
from citeview.core.stripping import strip_clean

HELP = "print the answer without citation markers"

# JSON escapes of the characters HTML gives a meaning to (the JSON reads the same).
_HTML_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", default="-",
                        help="an answer text file, or a case, transcript or dataset (its "
                        "answers); - for stdin")
    add_families(parser)
    parser.add_argument(
        "--as", dest="as_format", choices=["text", "markdown", "html"], default=None,
        help="copy the answer out as clean text, Markdown with numbered footnotes (source "
        "title, URL, locator, cited lines quoted) or an inert HTML document with links; "
        "no marker of any family remains",
    )
    parser.add_argument(
        "--all", action="store_true",
        help="remove every marker cleanly, of any family: recovered ones (degraded, "
        "literal-escape, unterminated, mojibake), markers of other families, wild forms "
        "(:contentReference, [3†source]) and stray marker characters; entity markers become "
        "their display text",
    )


def _copy_out(case: Case, args: argparse.Namespace) -> str:
    from citeview.core.analysis import analyse
    from citeview.core.copyout import render
    from citeview.core.policy import Policy

    return render(analyse(case, Policy(families=tuple(args.families))), args.as_format)


def _out(case: Case, args: argparse.Namespace) -> str:
    if args.as_format is not None:
        return _copy_out(case, args)
    return _clean(case.answer, args)


def _clean(text: str, args: argparse.Namespace) -> str:
    if args.all:
        return strip_clean(text, scan(text, args.families))
    return strip_citations(text, extract_citations(text, args.families))


def run(args: argparse.Namespace) -> int:
    dataset = load_answers(args.file)
    try:
        if is_dataset(dataset):
            for case in dataset.iter_cases():
                line = json.dumps({"case": case.id, "answer": _out(case, args)},
                                  ensure_ascii=False)
                if args.as_format == "html":  # inert even if the lines are opened as HTML
                    line = line.translate(_HTML_SAFE)
                sys.stdout.write(line + "\n")
        else:
            sys.stdout.write(_out(dataset.get(0), args))
    finally:
        dataset.close()
    sys.stdout.flush()
    return 0
