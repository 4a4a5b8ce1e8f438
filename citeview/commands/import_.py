"""citeview import: read a session exported as JSON (``citeview export --format json``) into a
new ``.citeview`` session."""

from __future__ import annotations

import argparse
import os
import sys

from citeview.commands._sessions import write_session
from citeview.core.errors import InputError
from citeview.core.files import STDIN, input_name, is_regular_file
from citeview.session import prefill
from citeview.session.interchange import import_document, read_document
from citeview.session.pg.address import is_address

HELP = "read a session exported as JSON into a new .citeview session"

#: Its output is a session (the output check allows one, never an input).
WRITES_SESSION = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a session exported with citeview export --format json "
                        "(- for standard input: then give -o)")
    parser.add_argument("-o", "--output", metavar="SESSION",
                        help="the new session (default: FILE with .citeview instead of .json), "
                             "or a project on a server (postgresql://...?project=NAME)")
    parser.add_argument("--force", action="store_true", help="replace SESSION if it exists")


def run(args: argparse.Namespace) -> int:
    out = args.output
    stream = args.file == STDIN or (os.path.exists(args.file) and not os.path.isdir(args.file)
                                    and not is_regular_file(args.file))
    if out is None and stream:
        what = "standard input" if args.file == STDIN else "a pipe or device"
        raise InputError(f"{input_name(args.file)}: reading {what}, so give the new session "
                         "with -o SESSION")
    if out is None:
        base, ext = os.path.splitext(args.file)
        out = (base if ext.lower() == ".json" else args.file) + ".citeview"
    if os.path.abspath(out) == os.path.abspath(args.file) or (
            os.path.exists(out) and os.path.exists(args.file) and os.path.samefile(out, args.file)):
        raise InputError(f"{out}: the session would replace the file being imported")
    if not args.force and os.path.isfile(out):
        raise InputError(f"{out}: already exists (use --force to replace it)")
    doc = read_document(args.file)
    n_ann = len(doc.get("annotations", []))
    write_session(out, lambda path: import_document(doc, path, overwrite=args.force),
                  overwrite=args.force)
    n_cases = len(doc.get("cases", []))
    print(f"imported {n_cases} cases and {n_ann} annotations into {out}", file=sys.stderr)
    if n_cases >= prefill.BACKGROUND_MIN_CASES and not is_address(out):
        # A big session: its export rows (and progress counts) are worked out in the
        # background, so the first export copies them instead of analysing every case.
        pid = prefill.start_detached(out)
        if pid:
            print(f"working out its export rows in the background (process {pid})",
                  file=sys.stderr)
    return 0
