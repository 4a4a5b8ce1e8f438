"""citeview resolve: resolve every citation of a case against its material."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable

from citeview.commands._common import add_families
from citeview.commands._inputs import (
    add_input_arguments,
    case_index,
    dataset_from_args,
    load_path,
)
from citeview.commands._io import read_text
from citeview.core.analysis import AnalysedCitation, analyse
from citeview.core.cases import Case
from citeview.core.datasets import Dataset, ListDataset
from citeview.core.errors import InputError
from citeview.core.files import STDIN
from citeview.core.inputs import parse_document_option
from citeview.core.numbering import number_at
from citeview.core.policy import Policy
from citeview.core.resolution import Resolution, Target
from citeview.core.text import LineIndex

HELP = "resolve every citation of a case to its source and cited lines"

# Longest cited text shown on a text-output row; --json always carries the full text.
_SHOWN = 72


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument("--case", metavar="ID", help="resolve only this case of a dataset")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list, one object per citation, with full cited text")
    add_families(parser)


def _dataset(args: argparse.Namespace) -> Dataset:
    """FILE (any input format; - for standard input, read like a file) or plain files.
    ``--document`` with FILE adds that file as a source to every case."""
    plain = bool(args.material or args.context or args.answer)
    if not (args.file and args.document and not plain):
        return dataset_from_args(args)
    extra = dict(parse_document_option(v) for v in args.document)
    if [args.file, *extra.values()].count(STDIN) > 1:
        raise InputError("standard input (-) can be given only once")
    dataset = load_path(args.file)
    docs = {sid: read_text(path) for sid, path in extra.items()}
    cases = list(dataset.iter_cases())  # a JSONL file read once, not reopened per case
    for case in cases:
        case.documents.update(docs)
    return ListDataset(cases, dataset.path, dataset.kind)


def abbreviate(text: str, width: int = _SHOWN) -> str:
    """One display line: line breaks shown as ' / ', long text cut in the middle."""
    flat = " / ".join(part.strip() for part in text.replace("\r\n", "\n").replace("\r", "\n")
                      .split("\n"))
    flat = " ".join(flat.split(" "))
    if len(flat) <= width:
        return flat
    head = width * 2 // 3
    tail = width - head - 3
    return f"{flat[:head].rstrip()} … {flat[-tail:].lstrip()}"


def _row(res: Resolution, t: Target) -> list[str]:
    loc = res.citation.locator or t.where or "-"
    rec = f" ({res.citation.recovered.value})" if res.citation.recovered is not None else ""
    text = f'"{abbreviate(t.text)}"' if t.text else "-"
    return [str(number_at(res.index)), t.source_id, loc, t.status.value, t.detail + rec, text]


def _table(rows: list[list[str]]) -> list[str]:
    """Rows with the short columns padded; the last two (detail, text) are left ragged."""
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return ["  ".join([*(r[i].ljust(widths[i]) for i in range(4)), r[4], r[5]])
            for r in rows]


def run(args: argparse.Namespace) -> int:
    dataset = _dataset(args)
    cases: Iterable[Case]
    if args.case is not None:
        cases = [dataset.get(case_index(dataset, args.case))]
    else:
        cases = dataset.iter_cases()  # a JSONL file read once, not reopened per case
    many = args.case is None and len(dataset) > 1
    out: list[dict[str, object]] = []
    for case in cases:
        analysed = _resolve_case(case, args.families)
        resolutions = [c.resolution for c in analysed]
        if args.json:
            for c in analysed:
                d = {**c.resolution.to_dict(), **claim_dict(c)}
                out.append({"case": case.id, **d} if many else d)
            continue
        if not resolutions:
            print(f"{case.id}: no citations")
            continue
        if many:
            print(f"{case.id}:")
        for line in _table([_row(r, t) for r in resolutions for t in r.targets]):
            print(f"  {line}" if many else line)
    if args.json:
        # One citation object a line, as ``parse`` writes them: json's C encoder (an indented
        # dump runs its Python one: 300,000 citations took 60% of the command's time there).
        write = sys.stdout.write
        write("[")
        for k, item in enumerate(out):
            write(("\n  " if k == 0 else ",\n  ") + json.dumps(item, ensure_ascii=False))
        write("\n]\n" if out else "]\n")
    return 0


def claim_dict(c: AnalysedCitation) -> dict[str, object]:
    """What ``resolve --json`` adds to a resolution: the citation's anchor and kind, and its
    claim (span in code points of the answer, and text)."""
    kind = "marker" if c.citation.raw else c.citation.family
    return {"anchor": c.anchor, "kind": kind, "claim": list(c.claim), "claim_text": c.claim_text}


def _resolve_case(case: Case, families: tuple[str, ...]) -> list[AnalysedCitation]:
    """The analysed citations of ``case``; material diagnostics go to stderr with their
    position."""
    analysed = analyse(case, Policy(families=families))
    material = analysed.material
    texts = {f"tool_outputs[{i}]": t for i, t in enumerate(case.tool_outputs)}
    if case.context is not None:
        texts["context"] = case.context
    for d in material.diagnostics:
        origin = str(getattr(d, "origin", ""))
        where = origin
        if origin in texts:
            line, col = LineIndex(texts[origin]).line_col(d.start)
            where = f"{origin}:{line}:{col}"
        msg = d.message.removeprefix(f"{origin}: ") if origin else d.message
        print(f"citeview: {d.severity.value}: {where}: {d.code} {d.name}: {msg}", file=sys.stderr)
    return list(analysed.citations)
