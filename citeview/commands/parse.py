"""citeview parse: print the citations of an answer as JSON.

A plain text answer is parsed as it is. A structured input (a case JSON, a transcript, a
Responses output) is read as its case and its answer parsed, offsets counting in the answer; a
dataset (JSONL, a JSON array, a session) gives one object per case, with its id.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from json.encoder import encode_basestring
from typing import TextIO

from citeview.commands._common import add_families
from citeview.commands._inputs import is_dataset, load_answers
from citeview.core.markers import STOP, extract_citations, scan

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
        elif args.scan:
            out = _parsed(dataset.get(0).answer, args)
        else:  # one answer, however big: streamed, one citation a line
            write_citations(dataset.get(0).answer, args.families, sys.stdout)
            return 0
    finally:
        dataset.close()
    json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


# The answer is read in pieces of about this many characters, each cut right after a STOP (no
# marker spans a cut): memory stays flat and nothing waits for the whole answer.
PIECE = 1 << 20


def write_citations(text: str, families: Sequence[str], out: TextIO) -> None:
    """The citations of ``text`` as a JSON array, one citation object a line (what
    ``Citation.to_dict`` gives, compactly), written piece by piece: 200 MB of answer must not
    hold millions of objects at once nor go through the pure-Python indenting encoder."""
    # json's own string encoder (what JSONEncoder(ensure_ascii=False).encode does for a str,
    # without its Python-level dispatch: a fifth of the time of 2.5 million citations).
    enc = encode_basestring
    n = len(text)
    pos = 0
    first = True
    out.write("[")
    while pos < n:
        cut = text.find(STOP, pos + PIECE) if n - pos > PIECE else -1
        cut = n if cut < 0 else cut + 1
        rows = [_ROW % (enc(c.raw), enc(c.family), ", ".join(map(enc, c.source_ids)),
                        "null" if c.locator is None else enc(c.locator), c.start + pos,
                        c.end + pos)
                for c in extract_citations(text[pos:cut] if (pos, cut) != (0, n) else text,
                                           families)]
        if rows:
            out.write(("\n  " if first else ",\n  ") + ",\n  ".join(rows))
            first = False
        pos = cut
    out.write("]\n" if first else "\n]\n")


_ROW = '{"raw": %s, "family": %s, "source_ids": [%s], "locator": %s, "start": %d, "end": %d}'
