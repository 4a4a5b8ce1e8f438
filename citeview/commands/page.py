"""citeview page: one self-contained, inert HTML page of a case, or of every case of a dataset
with a list of them (answers rendered as Markdown with chips, sources with line labels; a chip
highlights and scrolls to what it cites; a session's verdicts and notes beside each answer),
written atomically."""

from __future__ import annotations

import argparse

from citeview.commands._atomic import write_atomically
from citeview.commands._common import add_families
from citeview.commands._inputs import add_input_arguments, case_index, dataset_from_args
from citeview.core.analysis import analyse
from citeview.core.errors import InputError
from citeview.core.page import CaseNote, Judgement, PageCase, render_page
from citeview.core.policy import Policy

HELP = ("write one self-contained HTML page of a case, or of every case of a dataset: answers "
        "with chips, sources with lines, a session's verdicts and notes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--case", metavar="ID",
                        help="only this case of a dataset (default: every case, with a list)")
    parser.add_argument("-o", "--output", required=True, metavar="PAGE.html",
                        help="the HTML file to write (replaced atomically)")
    add_families(parser)


def run(args: argparse.Namespace) -> int:
    dataset = dataset_from_args(args)
    policy = Policy(families=tuple(args.families))
    try:
        if len(dataset) == 0:
            raise InputError(f"{dataset.path or 'the input'}: no case")
        indices = (range(len(dataset)) if args.case is None
                   else [case_index(dataset, args.case)])
        session = getattr(dataset, "session", None)
        cases: list[PageCase] = []
        if session is not None:
            # A session: its own numbering (its families) and its reviewers' judgements.
            ids = dataset.case_ids()
            for i in indices:
                cid = ids[i]
                cases.append(PageCase(session.analysed(cid), [
                    Judgement(a.key.number, a.key.source_id, a.verdict, a.note, a.annotator)
                    for a in session.annotations(cid) if not a.orphaned], [
                    CaseNote(r.annotator, str(r.state.value), r.verdict, r.note)
                    for r in session.reviews(cid) if not r.empty]))
        else:
            cases = [PageCase(analyse(dataset.get(i), policy)) for i in indices]
    finally:
        dataset.close()
    title = None if len(cases) == 1 else (dataset.path or "answers")
    write_atomically(args.output, render_page(cases, title=title).encode("utf-8"))
    return 0
