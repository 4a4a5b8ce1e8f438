"""citeview page: one self-contained, inert HTML page of a case (answer with chips, sources
with line labels; a chip highlights and scrolls to what it cites), written atomically."""

from __future__ import annotations

import argparse

from citeview.commands._atomic import write_atomically
from citeview.commands._common import add_families
from citeview.commands._inputs import add_input_arguments, case_index, dataset_from_args
from citeview.core.analysis import analyse
from citeview.core.errors import InputError
from citeview.core.page import render_page
from citeview.core.policy import Policy

HELP = "write one self-contained HTML page of a case: answer with chips, sources with lines"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--case", metavar="ID", help="the case of a dataset (default: the first)")
    parser.add_argument("-o", "--output", required=True, metavar="PAGE.html",
                        help="the HTML file to write (replaced atomically)")
    add_families(parser)


def run(args: argparse.Namespace) -> int:
    dataset = dataset_from_args(args)
    try:
        if len(dataset) == 0:
            raise InputError(f"{dataset.path or 'the input'}: no case")
        case = dataset.get(0 if args.case is None else case_index(dataset, args.case))
    finally:
        dataset.close()
    page = render_page(analyse(case, Policy(families=tuple(args.families))))
    write_atomically(args.output, page.encode("utf-8"))
    return 0
