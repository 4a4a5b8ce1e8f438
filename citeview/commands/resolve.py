"""citeview resolve: resolve every citation of a case against its material."""

from __future__ import annotations

import argparse
import json
import sys

from citeview.commands._common import add_families
from citeview.commands._io import read_text
from citeview.core.cases import Case
from citeview.core.errors import InputError
from citeview.core.markers import scan
from citeview.core.material import case_material
from citeview.core.resolution import Resolution, Target, resolve
from citeview.core.text import LineIndex

HELP = "resolve every citation of a case to its source and cited lines"

# Longest cited text shown on a text-output row; --json always carries the full text.
_SHOWN = 72


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("case", help="case JSON file (id, question, tool_outputs, context, "
                        "documents, answer), or - for stdin")
    parser.add_argument("--json", action="store_true",
                        help="print a JSON list, one object per citation, with full cited text")
    parser.add_argument(
        "--document", action="append", default=[], metavar="ID=PATH",
        help="add a text or Markdown file as a source with this id (its lines are L1..Ln); "
        "repeatable",
    )
    add_families(parser)


def _load_case(path: str) -> Case:
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: not valid JSON (line {err.lineno}, column {err.colno}: "
                         f"{err.msg})") from None
    default_id = "case" if path == "-" else path.rsplit("/", 1)[-1].split(".", 1)[0] or "case"
    return Case.from_dict(data, default_id)


def _document_option(value: str) -> tuple[str, str]:
    sid, sep, path = value.partition("=")
    if not sep or not sid.strip() or not path:
        raise InputError(f"--document {value!r}: expected ID=PATH")
    return sid.strip(), read_text(path)


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
    loc = res.citation.locator or "-"
    rec = f" ({res.citation.recovered.value})" if res.citation.recovered is not None else ""
    text = f'"{abbreviate(t.text)}"' if t.text else "-"
    return [str(res.index + 1), t.source_id, loc, t.status.value, t.detail + rec, text]


def _table(rows: list[list[str]]) -> list[str]:
    """Rows with the short columns padded; the last two (detail, text) are left ragged."""
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return ["  ".join([*(r[i].ljust(widths[i]) for i in range(4)), r[4], r[5]])
            for r in rows]


def run(args: argparse.Namespace) -> int:
    case = _load_case(args.case)
    for value in args.document:
        sid, text = _document_option(value)
        case.documents[sid] = text
    material = case_material(case)
    citations = scan(case.answer, args.families, known_ids=material.ids()).citations
    resolutions = resolve(citations, material)
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
    if args.json:
        json.dump([r.to_dict() for r in resolutions], sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    if not resolutions:
        print(f"{case.id}: no citations")
        return 0
    for line in _table([_row(r, t) for r in resolutions for t in r.targets]):
        print(line)
    return 0
