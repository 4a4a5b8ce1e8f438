"""citeview open: open an input in the GUI (a case, dataset, transcript, session, or plain files).

Plain files: ``citeview open --material M.txt [--material M2.txt] [--context C.txt]
[--document ID=PATH] --answer A.txt``; material files are the tool outputs, in order.
"""

from __future__ import annotations

import argparse

from citeview.commands._inputs import (
    add_input_arguments,
    case_index,
    dataset_from_args,
    has_plain_files,
    load_path,
)
from citeview.core.datasets import Dataset

HELP = "open a case, dataset, chat transcript, Responses output, session or plain files in the GUI"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--case", metavar="ID", help="show this case first")
    parser.add_argument("--no-advance", action="store_true",
                        help="stay on a citation after a verdict (default: move on)")


def launch(dataset: Dataset, case_id: str | None, advance: bool = True) -> int:
    """Start the GUI on ``dataset`` (a seam tests replace)."""
    from citeview.gui.launch import run_gui_dataset

    return int(run_gui_dataset(dataset, case_id=case_id, advance=advance))


def check_case(path: str, case_id: str) -> None:
    """The one-line error of ``--case`` naming no case of the input at ``path`` (the demo's
    ``--case`` too: an unknown id is told before any window, as for a file)."""
    dataset = load_path(path)
    try:
        case_index(dataset, case_id)
    finally:
        dataset.close()


def shown_by_first_record(path: str) -> bool:
    """Whether the window opens ``path`` as File > Open does, not read whole first: a big JSONL
    file whose first line is a record (checked here: it exists, can be read, is not binary).
    Its first case shows at once and its session is made, or reopened by a query, in the
    background (issue 26); reading a million cases first took seconds before any window, and
    an indexed input was copied into its session on the window's worker thread. A later line
    that is wrong is told by the window, as for File > Open."""
    from citeview.core.datasets import jsonl_first_record

    first = jsonl_first_record(path)
    if first is None:
        return False
    first.close()
    return True


def run(args: argparse.Namespace) -> int:
    if (args.file and args.case is None and not has_plain_files(args)
            and shown_by_first_record(args.file)):
        from citeview.gui.launch import run_gui

        return int(run_gui(argparse.Namespace(file=args.file, demo=False, case=None,
                                              no_advance=args.no_advance)))
    dataset = dataset_from_args(args)
    if args.case is not None:
        case_index(dataset, args.case)  # an unknown id is told here, before any window
    return launch(dataset, args.case, advance=not args.no_advance)
