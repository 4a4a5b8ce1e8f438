"""Formatting lint results: compiler-style text, JSON, JSON Lines and SARIF 2.1.0. Pure.

Each writer turns a stream of :class:`CaseReport` into text pieces (``begin``, one ``case`` per
report, ``end``) so a caller can stream a dataset of any size with constant memory.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Protocol
from urllib.parse import quote

from citeview import __version__
from citeview.core.analysis import AnalysedCase
from citeview.core.cases import Case
from citeview.core.diagnostics import RULES, Diagnostic, Severity
from citeview.core.files import printable
from citeview.core.text import LineIndex

FORMAT = "citeview-lint"
FORMAT_VERSION = 1
FORMATS = ("text", "json", "jsonl", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


@dataclass(slots=True, frozen=True)
class Finding:
    """A diagnostic with 1-based line and column (code points) of its start and end.

    ``origin`` is None for the answer, else the material string the span is in
    (``tool_outputs[0]``, ``context``, ``documents[ID]``). ``citation`` is the number (as the
    window, the session and exports number it) of the citation a finding about the answer is
    on, None when it is on none."""

    code: str
    name: str
    severity: Severity
    message: str
    start: int
    end: int
    line: int
    column: int
    end_line: int
    end_column: int
    origin: str | None = None
    citation: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "code": self.code, "name": self.name, "severity": self.severity.value,
            "message": self.message, "start": self.start, "end": self.end,
            "line": self.line, "column": self.column,
            "end_line": self.end_line, "end_column": self.end_column,
        }
        if self.origin is not None:
            d["origin"] = self.origin
        else:
            d["citation"] = self.citation
        return d


@dataclass(slots=True)
class CaseReport:
    """The findings of one case. ``record`` is the 1-based line of a JSONL file (or item of a
    JSON array), None for a file holding one case."""

    path: str
    record: int | None
    case_id: str
    findings: list[Finding] = field(default_factory=list)
    unreadable: bool = False  # an input or record that could not be read (CV504)


def origin_text(case: Case, origin: str) -> str | None:
    """The material string named by a material diagnostic's ``origin``."""
    if origin == "context":
        return case.context
    if origin.startswith("tool_outputs[") and origin.endswith("]"):
        try:
            return case.tool_outputs[int(origin[13:-1])]
        except (ValueError, IndexError):
            return None
    if origin.startswith("documents[") and origin.endswith("]"):
        return case.documents.get(origin[10:-1])
    return None


def locate(case: Case, answer_diags: Sequence[Diagnostic],
           material_diags: Sequence[Diagnostic] = (),
           numbers: Sequence[int | None] | None = None) -> list[Finding]:
    """Findings with line and column for the diagnostics of ``case``; ``numbers`` (parallel to
    ``answer_diags``) gives the citation each is on."""
    out: list[Finding] = []
    index = LineIndex(case.answer) if answer_diags else None
    for k, d in enumerate(answer_diags):
        assert index is not None
        out.append(_finding(d, index, None, numbers[k] if numbers is not None else None))
    indexes: dict[str, LineIndex] = {}  # one per material string, however many diagnostics
    for d in material_diags:
        origin = getattr(d, "origin", "") or ""
        origin_index = indexes.get(origin)
        if origin_index is None:
            text = origin_text(case, origin)
            origin_index = indexes[origin] = LineIndex(text if text is not None else "")
        out.append(_finding(d, origin_index, origin or None))
    return out


def locate_analysed(analysed: AnalysedCase) -> list[Finding]:
    """:func:`locate` for an analysed case's lint findings, each with its citation number."""
    found = analysed.lint
    numbers = [analysed.citation_number(d) for d in found.diagnostics]
    return locate(analysed.case, found.diagnostics, found.material_diagnostics, numbers)


#: The ``origin`` of a finding about the input itself (CV504), not the answer or the material.
INPUT_ORIGIN = "input"


def unreadable_report(path: str, record: int | None, case_id: str, message: str) -> CaseReport:
    """The report of an input (``record`` None) or a record that could not be read: one CV504
    unreadable-input finding, always an error (no policy turns it off: an input that cannot
    be read never passes)."""
    rule = RULES["CV504"]
    finding = Finding("CV504", rule.name, rule.severity, printable(message), 0, 0, 1, 1, 1, 1,
                      INPUT_ORIGIN)
    return CaseReport(path, record, case_id, [finding], unreadable=True)


def _finding(d: Diagnostic, index: LineIndex, origin: str | None,
             citation: int | None = None) -> Finding:
    line, col = index.line_col(d.start)
    end_line, end_col = index.line_col(d.end)
    return Finding(d.code, d.name, d.severity, d.message, d.start, d.end, line, col, end_line,
                   end_col, origin, citation)


@dataclass(slots=True)
class Summary:
    cases: int = 0
    cases_with_findings: int = 0
    invalid_records: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    severities: dict[str, Severity] = field(default_factory=dict)  # code -> as reported

    def add(self, report: CaseReport) -> None:
        """Count ``report``: a case, or an unreadable input or record (``invalid_records``)."""
        if report.unreadable:
            self.invalid_records += 1
        else:
            self.cases += 1
        if report.findings and not report.unreadable:
            self.cases_with_findings += 1
        for f in report.findings:
            self.counts[f.code] += 1
            self.severities.setdefault(f.code, f.severity)

    def by_severity(self) -> dict[str, int]:
        out = {s.value: 0 for s in Severity}
        for code, n in self.counts.items():
            out[self.severities[code].value] += n
        return out

    def worst(self) -> Severity | None:
        if not self.counts:
            return None
        return max((self.severities[c] for c in self.counts), key=lambda s: s.rank)

    def to_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases, "cases_with_findings": self.cases_with_findings,
            "invalid_records": self.invalid_records,
            "by_severity": self.by_severity(),
            "counts": {code: self.counts[code] for code in sorted(self.counts)},
        }


class Writer(Protocol):
    def begin(self) -> str: ...
    def case(self, report: CaseReport) -> str: ...
    def end(self, summary: Summary) -> str: ...


def _where(report: CaseReport) -> str:
    rec = f":{report.record}" if report.record is not None else ""
    return f"{printable(report.path)}{rec}:{report.case_id}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


class TextWriter:
    """``PATH[:RECORD]:CASE_ID:LINE:COL: CODE name message`` per finding, then a summary."""

    def begin(self) -> str:
        return ""

    def case(self, report: CaseReport) -> str:
        if not report.findings:
            return ""
        where = _where(report)
        lines = []
        for f in report.findings:
            tail = f" [in {f.origin}]" if f.origin else ""
            lines.append(f"{where}:{f.line}:{f.column}: {f.code} {f.name} "
                         f"{_one_line(f.message)}{tail}\n")
        return "".join(lines)

    def end(self, summary: Summary) -> str:
        sev = summary.by_severity()
        total = sum(summary.counts.values())
        head = (f"{total} finding{'s' if total != 1 else ''} ({sev['error']} error, "
                f"{sev['warning']} warning, {sev['info']} info) in "
                f"{summary.cases_with_findings} of {summary.cases} case"
                f"{'s' if summary.cases != 1 else ''}")
        if summary.invalid_records:
            head += f"; {summary.invalid_records} unreadable input" + (
                "s" if summary.invalid_records != 1 else "") + " or record" + (
                "s" if summary.invalid_records != 1 else "")
        lines = [head + "\n"]
        for code in sorted(summary.counts):
            name = RULES[code].name if code in RULES else code
            lines.append(f"  {code} {name:<32} {summary.severities[code].value:<8} "
                         f"{summary.counts[code]}\n")
        return "".join(lines)


class JsonWriter:
    """One JSON document: format name and version, every case with its findings, a summary."""

    def __init__(self) -> None:
        self._first = True

    def begin(self) -> str:
        head = json.dumps({"format": FORMAT, "version": FORMAT_VERSION,
                           "tool": {"name": "citeview", "version": __version__}})
        return head[:-1] + ', "cases": [\n'

    def case(self, report: CaseReport) -> str:
        sep = "" if self._first else ",\n"
        self._first = False
        return sep + json.dumps({
            "path": printable(report.path), "record": report.record, "case_id": report.case_id,
            "diagnostics": [f.to_dict() for f in report.findings],
        }, ensure_ascii=False)

    def end(self, summary: Summary) -> str:
        return "\n], \"summary\": " + json.dumps(summary.to_dict()) + "}\n"


class JsonlWriter:
    """One JSON object per finding, with the format version, path, record and case id."""

    def begin(self) -> str:
        return ""

    def case(self, report: CaseReport) -> str:
        base = {"version": FORMAT_VERSION, "path": printable(report.path), "record": report.record,
                "case_id": report.case_id}
        return "".join(json.dumps({**base, **f.to_dict()}, ensure_ascii=False) + "\n"
                       for f in report.findings)

    def end(self, summary: Summary) -> str:
        return ""


def artifact_uri(path: str) -> str:
    """A URI reference for ``path``: relative paths stay relative, POSIX separators; the bytes of
    a file name that is not UTF-8 are percent-encoded as they are."""
    if path == "-":
        return "stdin"
    p = PurePath(path)
    posix = p.as_posix()
    if p.is_absolute() and not posix.startswith("/"):
        posix = "/" + posix
    try:
        raw = posix.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = printable(posix).encode("utf-8")
    return ("file://" if p.is_absolute() else "") + quote(raw)


class SarifWriter:
    """A SARIF 2.1.0 log with one run. Regions point at the JSONL record's line (line 1 for a
    file with one case); the position in the answer is in the message and the result's
    properties, since the answer is a string inside the JSON file."""

    def __init__(self) -> None:
        self._first = True
        self._codes = list(RULES)
        self._index = {code: i for i, code in enumerate(self._codes)}

    def begin(self) -> str:
        rules = []
        for code in self._codes:
            rule = RULES[code]
            rules.append({
                "id": code, "name": rule.name,
                "shortDescription": {"text": rule.summary or rule.name},
                "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity],
                                         "enabled": rule.enabled},
            })
        run_head = {
            "tool": {"driver": {"name": "citeview", "version": __version__,
                                "rules": rules}},
            "columnKind": "unicodeCodePoints",
        }
        head = json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0"})
        run = json.dumps(run_head)
        return head[:-1] + ', "runs": [' + run[:-1] + ', "results": [\n'

    def case(self, report: CaseReport) -> str:
        pieces = []
        for f in report.findings:
            sep = "" if self._first else ",\n"
            self._first = False
            pieces.append(sep + json.dumps(self._result(report, f), ensure_ascii=False))
        return "".join(pieces)

    def _result(self, report: CaseReport, f: Finding) -> dict[str, Any]:
        where = f.origin or "answer"
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": f"{_one_line(f.message)} (case {report.case_id}, {where} "
                                f"line {f.line} column {f.column})"},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(report.path)},
                    "region": {"startLine": report.record or 1},
                },
                "logicalLocations": [{"name": report.case_id, "kind": "object",
                                      "fullyQualifiedName": f"{report.case_id}/{where}"}],
            }],
            "properties": {
                "caseId": report.case_id, "record": report.record, "in": where,
                "line": f.line, "column": f.column, "endLine": f.end_line,
                "endColumn": f.end_column, "start": f.start, "end": f.end,
            },
        }
        if f.origin is None:
            result["properties"]["citation"] = f.citation
        if f.code in self._index:
            result["ruleIndex"] = self._index[f.code]
        return result

    def end(self, summary: Summary) -> str:
        return "\n]}]}\n"


def make_writer(fmt: str) -> Writer:
    writers: dict[str, type[Writer]] = {
        "text": TextWriter, "json": JsonWriter, "jsonl": JsonlWriter, "sarif": SarifWriter,
    }
    if fmt not in writers:
        raise ValueError(f"unknown format {fmt!r}")
    return writers[fmt]()
