"""Diagnostics and the catalog of rule codes shared by the scanner, material parser and linter.

Codes are stable: tools and CI configurations refer to them. CV1xx concern marker syntax in the
answer alone, CV2xx resolution against the material, CV3xx placement in the Markdown answer,
CV4xx support, CV5xx the material and the input itself (CV504: an input that cannot be read),
CV6xx the citations of a provider's response (OpenAI, Anthropic, Gemini annotations:
:mod:`citeview.core.providers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    """How serious a diagnostic is; ordered error > warning > info."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(slots=True, frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    enabled: bool = True
    summary: str = ""


_E, _W, _I = Severity.ERROR, Severity.WARNING, Severity.INFO

RULES: dict[str, Rule] = {
    r.code: r
    for r in (
        Rule("CV101", "unterminated-marker", _E, summary="A marker opens but never closes."),
        Rule("CV102", "empty-marker", _E, summary="A marker names no source."),
        Rule("CV103", "invalid-source-id", _E, summary="A marker part is not a valid source id."),
        Rule("CV104", "unknown-family", _W, summary="A marker uses a family that is not enabled."),
        Rule("CV105", "stray-marker-character", _E, summary="A lone DELIMITER or STOP character."),
        Rule("CV106", "literal-escape-marker", _E, summary="A marker written as ASCII escapes."),
        Rule("CV107", "degraded-marker", _E, summary="A marker whose private-use characters were lost."),
        Rule("CV108", "bracket-reference", _W, summary="A 【...】 reference instead of a marker."),
        Rule("CV109", "verbatim-source-id", _E, summary="A source id written outside a marker."),
        Rule("CV110", "malformed-locator", _E, summary="A locator not of the form L8 or L8-L13, or not last."),
        Rule("CV111", "degraded-marker-other-family", _W, summary="A degraded marker of a citation family that is not enabled."),
        Rule("CV112", "content-reference", _W, summary="A :contentReference[oaicite:N] copy placeholder: the source is not in the text."),
        Rule("CV113", "non-citation-marker", _I, summary="A marker of a non-citation family (entity, image group, navigation list)."),
        Rule("CV114", "mojibake-marker", _E, summary="A marker whose UTF-8 bytes were read as Windows-1252."),
        Rule("CV115", "copied-citation-link", _W, summary="ChatGPT's copy form [oai_citation:N‡Title](url): the source is not in the text."),
        Rule("CV116", "codex-file-citation", _W, summary="A Codex :codex-file-citation{...} directive: the file is not in the text."),
        Rule("CV117", "cut-marker-residue", _W, summary="Source ids left bare where a marker was cut across stream chunks."),
        Rule("CV118", "gemini-cite-tag", _W, summary="The Gemini app's [cite_start] / [cite: N] tags: the sources are not in the text."),
        Rule("CV201", "unknown-source", _E, summary="An id the material never defined."),
        Rule("CV202", "line-out-of-range", _E, summary="A line locator outside the source's labels."),
        Rule("CV203", "reversed-range", _E, summary="A range whose first line is after its last."),
        Rule("CV204", "line-locator-on-unlined-source", _W, summary="A line locator on a source without lines."),
        Rule("CV205", "missing-locator", _W, enabled=False, summary="No locator where the policy requires one."),
        Rule("CV206", "duplicate-source-id", _W, summary="The material defines an id twice."),
        Rule("CV301", "citation-in-emphasis", _E, summary="A citation inside bold or italics."),
        Rule("CV302", "citation-in-code", _E, summary="A citation inside code."),
        Rule("CV303", "citation-on-fence-line", _E, summary="A citation on a closing fence line."),
        Rule("CV304", "citation-before-punctuation", _W, summary="A citation directly before punctuation."),
        Rule("CV305", "citation-only-line", _W, summary="A line or paragraph of citations only."),
        Rule("CV306", "citations-grouped-at-end", _W, summary="All citations stand in the last paragraph."),
        Rule("CV307", "multi-source-style", _W, enabled=False, summary="Multi-source style differs from policy."),
        Rule("CV308", "uncited-paragraph", _I, summary="A substantive paragraph without citation."),
        Rule("CV401", "weak-support", _I, enabled=False, summary="Little lexical overlap between claim and cited text."),
        Rule("CV501", "repeated-line-label", _W, summary="The material repeats a line label."),
        Rule("CV502", "malformed-material", _W, summary="Material that could not be read as written."),
        Rule("CV503", "literal-escape-in-material", _I, summary="A material marker written as ASCII escapes."),
        Rule("CV504", "unreadable-input", _E, summary="An input or record that could not be read (always on)."),
        Rule("CV601", "offset-out-of-range", _E, summary="A provider's offset lies outside the text it indexes, or its range is reversed."),
        Rule("CV602", "offset-inside-character", _E, summary="A UTF-8 byte offset falls inside a multi-byte character."),
        Rule("CV603", "segment-text-mismatch", _E, summary="A provider's copy of the claim (Gemini segment.text, Cohere text) differs from the answer at its offsets."),
        Rule("CV604", "cited-text-mismatch", _E, summary="A provider's cited_text is not the document text at its location."),
        Rule("CV605", "unknown-provider-index", _E, summary="An index into chunks, documents, results or parts that does not exist."),
        Rule("CV606", "file-not-in-results", _W, summary="A file_citation whose file is not among the search results."),
        Rule("CV607", "overlapping-citation-spans", _W, summary="Provider citation spans that cross or repeat."),
        Rule("CV608", "unchecked-cited-text", _I, summary="Cited text that could not be checked (no text layer, no request)."),
        Rule("CV609", "answer-not-response-text", _E, summary="The case's answer is not the text of its provider response."),
        Rule("CV610", "missing-citation-field", _E, summary="A provider citation lacks the index or offsets it needs; only that citation is affected."),
        Rule("CV611", "unplaced-citation", _W, summary="A provider citation with no position in the answer and no link text found: placed at the end."),
    )
}


@dataclass(slots=True)
class Diagnostic:
    """One finding: a rule code, its name and severity, a message and the span it concerns.

    ``start``/``end`` are code-point offsets into the text the finding is about (the answer for
    CV1xx-CV4xx, the material string for CV5xx and CV206).
    """

    code: str
    severity: Severity
    message: str
    start: int
    end: int

    @property
    def name(self) -> str:
        rule = RULES.get(self.code)
        return rule.name if rule else self.code

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
            "start": self.start,
            "end": self.end,
        }


class CitationDiagnostic(Diagnostic):
    """A diagnostic about one numbered citation (a provider's, which has no marker text to
    locate it by): ``number`` is the citation's number, ``start``/``end`` its claim in the
    answer. A plain subclass, like ``MaterialDiagnostic``."""

    __slots__ = ("number",)
    number: int

    def __init__(self, code: str, severity: Severity, message: str, start: int, end: int,
                 number: int = 0) -> None:
        Diagnostic.__init__(self, code, severity, message, start, end)
        object.__setattr__(self, "number", number)

    def __reduce__(self) -> tuple[object, ...]:
        return (CitationDiagnostic, (self.code, self.severity, self.message, self.start,
                                     self.end, self.number))

    def __repr__(self) -> str:
        return (f"CitationDiagnostic({self.code!r}, {self.message!r}, {self.start}, {self.end}, "
                f"number={self.number})")

    def to_dict(self) -> dict[str, object]:
        d = Diagnostic.to_dict(self)
        d["citation"] = self.number
        return d


def make(code: str, message: str, start: int, end: int) -> Diagnostic:
    """A diagnostic with the rule's default severity."""
    return Diagnostic(code, RULES[code].severity, message, start, end)
