"""The one-input options shared by ``citeview open`` and ``citeview resolve``: FILE (any input
format, sessions included) or plain files."""

from __future__ import annotations

import argparse

import citeview.session  # noqa: F401  (registers the session loader: load_input reads sessions)
from citeview.core.datasets import Dataset, case_id_from_path
from citeview.core.errors import InputError
from citeview.core.inputs import load_input, parse_document_option, plain_files


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """FILE or the plain-file options (shared by commands that read one input)."""
    parser.add_argument("file", nargs="?", help="a case JSON, JSONL dataset, JSON array, chat "
                        "transcript, Responses output, plain answer text or .citeview session")
    parser.add_argument("--material", action="append", default=[], metavar="FILE",
                        help="plain files: a tool output (repeatable, in order)")
    parser.add_argument("--context", action="append", default=[], metavar="FILE",
                        help="plain files: injected context with <tag id=...> units (repeatable)")
    parser.add_argument("--document", action="append", default=[], metavar="ID=PATH",
                        help="plain files: a file given whole as the source ID (repeatable)")
    parser.add_argument("--answer", metavar="FILE", help="plain files: the answer text")


def dataset_from_args(args: argparse.Namespace) -> Dataset:
    """The input named by :func:`add_input_arguments` options."""
    plain = bool(args.material or args.context or args.document or args.answer)
    if args.file and plain:
        raise InputError("give either FILE or plain files (--answer with --material, --context, "
                         "--document), not both")
    if args.file:
        return load_input(args.file)
    if not plain:
        raise InputError("nothing to open: give FILE, or --answer A.txt with --material, "
                         "--context or --document")
    if not args.answer:
        raise InputError("plain files need --answer FILE (the answer text)")
    documents: dict[str, str] = {}
    for value in args.document:
        doc_id, path = parse_document_option(value)
        if doc_id in documents:
            raise InputError(f"--document {doc_id}: given twice")
        documents[doc_id] = path
    return plain_files(args.material, args.context, documents, args.answer,
                       case_id_from_path(args.answer))
