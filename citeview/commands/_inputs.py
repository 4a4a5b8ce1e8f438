"""The one-input options shared by ``citeview open``, ``resolve`` and ``lint``: FILE (any input
format, sessions included; ``-`` for standard input) or plain files; and :func:`load_path`,
how every command loads an input path."""

from __future__ import annotations

import argparse
import sys

from citeview.core.datasets import Dataset, case_id_from_path
from citeview.core.errors import InputError
from citeview.core.inputs import load_input, parse_document_option, plain_files
from citeview.core.providers import RECORD_KINDS
from citeview.session.backends import project_dataset
from citeview.session.loader import SESSION_LOADERS
from citeview.session.pg.address import is_address

#: The readers of binary inputs every command passes to load_input (session files): named here,
#: at the entry point, not registered by importing the session package.
LOADERS = SESSION_LOADERS


def load_path(path: str) -> Dataset:
    """The dataset of the input ``path`` (``-``: standard input, read once like a pipe), any
    format :func:`~citeview.core.inputs.load_input` reads, sessions included; a project on a
    server by its address (opened read-only)."""
    if is_address(path):
        return project_dataset(path)
    return noted(load_input(path, LOADERS))


def noted(dataset: Dataset) -> Dataset:
    """``dataset``, its info lines (how it was read) printed on stderr."""
    for note in dataset.notes:
        print(note, file=sys.stderr)
    return dataset


#: Dataset kinds that hold one case however they are written (a plain answer, a case JSON, a
#: transcript, a Responses output, one provider record: a bare Anthropic message, a Chat
#: Completions or Gemini response, a request/response exchange); other kinds are datasets of
#: many.
SINGLE_CASE_KINDS = ("plain", "case", "chat", "responses", "stream", *RECORD_KINDS)


def load_answers(path: str) -> Dataset:
    """The input of a command that reads answers (``parse``, ``strip``): structured inputs as
    their cases, any other text (even empty) as one plain answer."""
    return noted(load_input(path, LOADERS, plain_text=True))


def is_dataset(dataset: Dataset) -> bool:
    """True for an input that holds a dataset of cases (JSONL, a JSON array, a session), so
    output names each case; False for one case, however it was written."""
    return dataset.kind not in SINGLE_CASE_KINDS


def add_input_arguments(parser: argparse.ArgumentParser, file: bool = True) -> None:
    """FILE (unless ``file`` is False) and the plain-file options (shared by commands that read
    one input)."""
    if file:
        parser.add_argument("file", nargs="?", help="a case JSON, JSONL dataset, JSON array, "
                            "chat transcript, Responses output, plain answer text or .citeview "
                            "session; - for standard input")
    add_plain_arguments(parser)


def add_plain_arguments(parser: argparse.ArgumentParser) -> None:
    """--material, --context, --document and --answer: one case from plain files."""
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
        return load_path(args.file)
    if not plain:
        raise InputError("nothing to open: give FILE, or --answer A.txt with --material, "
                         "--context or --document")
    return plain_dataset(args)


def has_plain_files(args: argparse.Namespace) -> bool:
    """True when the plain-file options name a file."""
    return bool(args.material or args.context or args.document or args.answer)


def plain_dataset(args: argparse.Namespace) -> Dataset:
    """The one case of the plain-file options."""
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


def case_index(dataset: Dataset, case_id: str, where: str | None = None) -> int:
    """The index of ``--case case_id`` in ``dataset``; an unknown id is a one-line error."""
    try:
        return dataset.index_of(case_id)
    except KeyError:
        raise InputError(f"--case {case_id}: no such case in "
                         f"{where or dataset.path or 'the input'}") from None
