"""citeview convert: a provider's response as a case in the guide's format, or as the common
model in JSON."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

from citeview.commands._atomic import write_atomically
from citeview.commands._inputs import case_index, load_path
from citeview.core.analysis import analyse
from citeview.core.cases import Case
from citeview.core.errors import InputError
from citeview.core.providers import case_reading
from citeview.core.providers.convert import to_marker_case
from citeview.session.jsonio import dumps_json

HELP = ("convert a provider's response (OpenAI, Anthropic, Gemini): --to markers gives a case "
        "in the guide's format, --to json the common model")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a provider response, exchange, case or "
                        "dataset holding them")
    parser.add_argument("--to", required=True, choices=("markers", "json"),
                        help="markers: a case with citation markers, line-labelled material and "
                        "the claims kept; json: the answer, sources and citations as read")
    parser.add_argument("--case", metavar="ID", help="convert only this case of a dataset")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="write here (all or nothing) instead of standard output")


def run(args: argparse.Namespace) -> int:
    dataset = load_path(args.file)
    cases: Iterable[Case]
    if args.case is not None:
        cases = [dataset.get(case_index(dataset, args.case, args.file))]
    else:
        cases = dataset.iter_cases()
    out: list[dict[str, object]] = []
    for case in cases:
        reading = case_reading(case)
        if reading is None:
            raise InputError(f"{args.file}: case {case.id!r} holds no provider response "
                             "(nothing to convert)")
        if args.to == "json":
            out.append({"id": case.id, **reading.to_dict()})
            continue
        converted, warnings = to_marker_case(analyse(case))
        for w in warnings:
            print(f"citeview: warning: {case.id}: {w}", file=sys.stderr)
        out.append(converted)
    if len(out) == 1:
        text = dumps_json(out[0], indent=1) + "\n"
    else:  # a dataset: one case a line
        text = "".join(dumps_json(o) + "\n" for o in out)
    if args.output:
        write_atomically(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return 0
