"""citeview prepare: turn text or Markdown documents into citable material for a model."""

from __future__ import annotations

import argparse
import sys

from citeview.commands._atomic import write_atomically
from citeview.commands._io import read_text
from citeview.core.errors import InputError
from citeview.core.files import printable
from citeview.core.prepare import Document, Split, Unit, prepare_material

HELP = "turn text or Markdown documents into citable material (line, block, context, document)"


def _meta(value: str) -> tuple[str, str]:
    key, sep, val = value.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, not {value!r}")
    return key.strip(), val


def _integer(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None


def _positive(value: str) -> int:
    n = _integer(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def _non_negative(value: str) -> int:
    n = _integer(value)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {n}")
    return n


EPILOG = """\
ids: line and document units give one source per document, turnNfileK with K the document's
position; block units give one source per block, turnNfileM with M counting blocks across all
documents (label [BlockM+1]); context units give <block id="blockM+1"> tags (no turn).
Line labels: [L#] is the document's own line number; every line is labelled, empty ones too.

What prepare changes so no document can break the material (warned per document):
  - the marker characters U+E200, U+E201, U+E202 become U+FFFD;
  - block, document, context units: a line that would read as a label ([L5] ..., or
    [Block2] opening a document unit) or as a 'Citation Marker:' header gets a leading
    backslash;
  - context units: '<' that would open a tag becomes &lt;, '&' that would start an entity
    becomes &amp;.
Whitespace-only lines count as empty; empty lines at a document's start and end are dropped.
The same documents and options always give the same bytes."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("documents", nargs="+", metavar="DOC",
                        help="text or Markdown files, or - for standard input; source ids "
                        "follow this order")
    parser.add_argument("--unit", choices=[u.value for u in Unit], default=Unit.BLOCK.value,
                        help="citable unit (default: block, the guide's recommended default)")
    parser.add_argument("--turn", type=_non_negative, default=0,
                        help="turn number in the ids turnNfileK (default 0; context ids have "
                        "no turn)")
    parser.add_argument("--split", choices=[s.value for s in Split], default=None,
                        help="line units: label physical lines (default) or sentences (prose)")
    parser.add_argument("--block-lines", type=_positive, default=None, metavar="K",
                        help="block and context units: at most K lines per block (default: "
                        "one block per paragraph)")
    parser.add_argument("--meta", type=_meta, action="append", default=[], metavar="KEY=VALUE",
                        help="extra metadata for every source (repeatable); Title=... "
                        "replaces the derived title")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the material here "
                        "instead of standard output")


def run(args: argparse.Namespace) -> int:
    if args.documents.count("-") > 1:
        raise InputError("standard input (-) can be given only once")
    if args.split is not None and args.unit != Unit.LINE.value:
        raise InputError("--split applies to --unit line only")
    if args.block_lines is not None and args.unit not in (Unit.BLOCK.value, Unit.CONTEXT.value):
        raise InputError("--block-lines applies to --unit block and context only")
    docs = [Document("stdin" if path == "-" else printable(path), read_text(path),
                     markdown=True if path == "-" else None) for path in args.documents]
    prepared = prepare_material(docs, unit=args.unit, turn=args.turn,
                                split=args.split or Split.LINES.value,
                                block_lines=args.block_lines, meta=args.meta)
    for warning in prepared.warnings:
        print(f"citeview: warning: {warning}", file=sys.stderr)
    data = prepared.text.encode("utf-8")
    if args.output:
        write_atomically(args.output, data)  # a failure leaves no partial file
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return 0

