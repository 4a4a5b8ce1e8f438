"""The view-model of one case: what the window shows, computed without Qt.

:func:`build_case_view` runs off the GUI thread (see ``main_window``): scan, material, resolution,
lint, claims and the answer HTML are all computed here, so the first paint never waits for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from citeview.core.analysis import (
    AnalysedCase,
    AnalysedCitation,
    AnalysisCache,
    analyse,
    numbering_policy,
)
from citeview.core.cases import Case
from citeview.core.diagnostics import Diagnostic, Severity
from citeview.core.markers import DEFAULT_FAMILIES, Citation
from citeview.core.material import about_material
from citeview.core.policy import Policy
from citeview.core.text import split_lines
from citeview.gui.answer_render import (
    Chip,
    ChipState,
    merged_marks,
    render_answer,
    verdict_marks,
    visible_text,
)

if TYPE_CHECKING:
    from citeview.core.material import Source
    from citeview.core.resolution import Target

# How much of the cited text a tooltip shows.
TOOLTIP_LINES = 3
TOOLTIP_LINE_CHARS = 160


def _status(target: Target | None) -> str:
    status = getattr(target, "status", "ok")
    if isinstance(status, str):  # a Status is a StrEnum: its value without the enum's lookup
        return str.__str__(status)
    return str(getattr(status, "value", status))


@dataclass(slots=True)
class CitationView:
    """One citation as the window shows it: the analysed case's citation (its number, anchor,
    marker, resolution and claim: never a copy) and what the window adds to it."""

    analysed: AnalysedCitation
    diagnostics: tuple[Diagnostic, ...] = ()
    verdict: str | None = None  # summary: set when every source of the citation is judged
    # Per source id (same order as ``citation.source_ids``): this annotator's verdict and note.
    verdicts: tuple[str | None, ...] = ()
    notes: tuple[str, ...] = ()
    reasons: tuple[tuple[str, ...], ...] = ()  # per source: why it fails (picked reasons)
    corrections: tuple[str, ...] = ()  # this annotator's corrections of it, one line each
    # The lines it cites once this annotator's relocations (or source changes) of it apply
    # ("L4-L5"; the citations table's Locator column shows "old \u2192 new"); None: not moved.
    relocated: str | None = None
    evidence: tuple[str, ...] = ()  # this annotator's evidence per source, one line each
    # Lexical support per source (a triage hint, never a verdict); None when not computable.
    support: tuple[float | None, ...] = ()
    others: tuple[str, ...] = ()  # other annotators' verdicts, one line each (not when blind)
    labels: tuple[str, ...] = ()  # the session's rubric: a custom label shows its key number
    # A merged session: each merged annotator's verdicts per source (shown on the chip when
    # this window's annotator has not judged it), in the merge's order.
    merged: tuple[tuple[str, tuple[str | None, ...]], ...] = ()
    # A provider's claim as the rendered answer shows it (None: a marker's, found from its raw
    # text); its span is explicit and may be mostly Markdown syntax (a link).
    shown_claim: str | None = None
    _statuses: list[str] | None = field(default=None, repr=False, compare=False)
    # ``problem`` for the diagnostics it was worked out with (asked for by every chip, table
    # row and count: 10,000 citations asked it tens of thousands of times per case shown).
    _problem: tuple[tuple[Diagnostic, ...], bool] | None = field(default=None, repr=False,
                                                                 compare=False)

    def set_judgements(self, verdicts: Sequence[str | None], notes: Sequence[str],
                       labels: Sequence[str] = ()) -> None:
        """This annotator's verdicts and notes per source; the chip shows annotated once every
        source has a verdict."""
        self.verdicts = tuple(verdicts)
        self.notes = tuple(notes)
        if labels:
            self.labels = tuple(labels)
        given = [v for v in self.verdicts if v]
        if given and len(given) == len(self.verdicts):
            self.verdict = " / ".join(dict.fromkeys(given))
        else:
            self.verdict = None

    @property
    def verdict_text(self) -> str:
        """For the table: the summary, or per source when only some are judged."""
        if self.verdict:
            return self.verdict
        if any(self.verdicts):
            return " / ".join(v or "\u2014" for v in self.verdicts)
        return ""

    @property
    def best_support(self) -> float | None:
        known = [s for s in self.support if s is not None]
        return max(known) if known else None

    @property
    def number(self) -> int:
        """Its number (from 1): the chip's label, the table's row, the annotation key's."""
        return self.analysed.number

    @property
    def index(self) -> int:
        """Its position among the case's citations (chips, table rows)."""
        return self.analysed.index

    @property
    def citation(self) -> Citation:
        return self.analysed.citation

    @property
    def targets(self) -> tuple[Target, ...]:
        """One per source id (empty: none resolved)."""
        return self.analysed.targets

    @property
    def claim(self) -> tuple[int, int]:
        """Code points in the answer."""
        return self.analysed.claim

    @property
    def statuses(self) -> list[str]:
        if self._statuses is None:  # targets never change: worked out once
            self._statuses = ([_status(t) for t in self.targets] if self.targets else
                              ["unknown-source"] * len(self.citation.source_ids))
        return self._statuses

    @property
    def problem(self) -> bool:
        """Core's test (:meth:`AnalysedCitation.problem`) with the diagnostics shown."""
        known = self._problem
        if known is not None and known[0] is self.diagnostics:
            return known[1]
        found = self.analysed.problem(self.diagnostics)
        self._problem = (self.diagnostics, found)
        return found

    @property
    def status_text(self) -> str:
        """One word per source, plus "recovered" (for tables and the status bar)."""
        parts = sorted(set(self.statuses), key=self.statuses.index)
        if self.citation.recovered is not None:
            parts.insert(0, f"recovered ({self.citation.recovered.value})")
        return ", ".join(parts)

    @property
    def chip(self) -> Chip:
        marks, tone = verdict_marks(self.verdicts, self.labels) if self.verdict else ("", "")
        judged = bool(self.verdict)
        if not judged and self.merged and any(any(v) for _, v in self.merged):
            marks, tone = merged_marks([v for _, v in self.merged], self.labels)
            judged = True
        state = (ChipState.ANNOTATED if judged else
                 ChipState.PROBLEM if self.problem else ChipState.RESOLVED)
        return Chip(self.number, state, len(self.citation.source_ids),
                    self.citation.recovered is not None, self.problem, marks, tone,
                    bool(self.corrections))

    def tooltip_lines(self, blind: bool = False) -> list[str]:
        """Plain text lines: per source its title and the first cited lines, then problems.
        ``blind`` leaves out lint findings, the support hint and other annotators' verdicts."""
        out: list[str] = []
        head = f"Citation {self.number}"
        if self.citation.locator:
            head += f" \u00b7 {self.citation.locator}"
        if self.citation.recovered is not None:
            head += f" \u00b7 recovered ({self.citation.recovered.value})"
        out.append(head)
        targets: Sequence[Target | None] = (
            self.targets or tuple(None for _ in self.citation.source_ids))
        for sid, target in zip(self.citation.source_ids, targets, strict=False):
            source = getattr(target, "source", None)
            if source is None:
                out.append(f"{sid}: not in the material")
                continue
            title = getattr(source, "title", None) or getattr(source, "label", None) or sid
            out.append(f"{sid} \u2014 {title}")
            where = getattr(target, "where", "")
            if where:  # a provider's citation: what it points at, in its own unit
                out.append(f"  {where}")
            if target is not None and not target.status.resolved:
                detail = target.detail or _status(target)
                out.append(f"  \u26a0 {detail}")
            out.extend("  " + line for line in cited_lines(target))
        if not blind:
            for d in self.diagnostics:
                out.append(f"{d.code} {d.severity.value}: {d.message}")
            hints = [f"{sid} {s:.0%}" for sid, s in zip(self.citation.source_ids, self.support,
                                                         strict=False) if s is not None]
            if hints:
                out.append("Word-overlap hint (triage only, not a verdict): " + ", ".join(hints))
        if any(self.verdicts) or self.verdict:
            out.append(f"Your verdict: {self.verdict_text}")
        notes = [n for n in self.notes if n]
        if notes:
            out.append("Note: " + " | ".join(notes))
        for sid, why in zip(self.citation.source_ids, self.reasons, strict=False):
            if why:
                out.append(f"Reasons ({sid}): " + "; ".join(why))
        out.extend(f"Evidence {e}" for e in self.evidence)
        out.extend(f"Correction: {c}" for c in self.corrections)
        if not blind:
            out.extend(self.others)
        return out


def cited_lines(target: Target | None, limit: int = TOOLTIP_LINES) -> list[str]:
    """The first ``limit`` cited lines of a target, labelled (``L3  text``)."""
    source = getattr(target, "source", None)
    if source is None:
        return []
    text: str = source.text
    lines = getattr(target, "lines", ()) or ()  # (a whole source's: read only as far as shown)
    out: list[str] = []
    if lines:
        for line in lines[:limit]:
            out.append(f"L{line.label}  {_clip(text[line.start:line.end])}")
        if len(lines) > limit:
            out.append(f"\u2026 ({len(lines) - limit} more lines)")
        return out
    span = getattr(target, "span", None)
    if span is None:
        return []
    chunk = text[span[0]:span[1]]
    rows = [r for r in split_lines(chunk) if r.strip()]
    out = [_clip(r) for r in rows[:limit]]
    if len(rows) > limit:
        out.append(f"\u2026 ({len(rows) - limit} more lines)")
    return out


def _clip(s: str) -> str:
    s = s.strip()
    return s if len(s) <= TOOLTIP_LINE_CHARS else s[: TOOLTIP_LINE_CHARS - 1] + "\u2026"


@dataclass(slots=True)
class SourceRow:
    """A row of the sources list: a source of the material, or an id cited but missing."""

    source_id: str
    kind: str
    title: str
    citations: int
    source: Source | None  # None: cited but not in the material

    @property
    def missing(self) -> bool:
        return self.source is None


@dataclass(slots=True)
class CaseView:
    case: Case
    citations: list[CitationView]
    sources: list[SourceRow]
    diagnostics: list[Diagnostic]  # answer diagnostics (scan + lint), by position
    material_diagnostics: list[Diagnostic] = field(default_factory=list)
    html: str = ""
    # source id -> cited spans (code points in the source text): the faint tint.
    cited_spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    analysed: AnalysedCase | None = None  # the one analysis session and lint read too

    def source(self, source_id: str) -> Source | None:
        for row in self.sources:
            if row.source_id == source_id:
                return row.source
        return None

    def chips(self) -> list[Chip]:
        return [c.chip for c in self.citations]

    def set_support(self, scores: Sequence[Sequence[float | None]]) -> None:
        """The support hints per citation (:attr:`AnalysedCase.support`), added after the
        first paint of a big case."""
        for v, s in zip(self.citations, scores, strict=True):
            v.support = tuple(s)

    def apply_lint(self, found: Sequence[Diagnostic] | None) -> list[int]:
        """Merge the linter's diagnostics; returns the citations whose chip changed."""
        if found is None:
            return []
        seen = {(d.code, d.start, d.end) for d in self.diagnostics}
        merged = self.diagnostics + [d for d in found if (d.code, d.start, d.end) not in seen]
        answer = [d for d in merged if not about_material(d)]
        answer.sort(key=lambda d: (d.start, d.end, d.code))
        seen_m = {(d.code, d.start, d.end, d.message) for d in self.material_diagnostics}
        self.material_diagnostics += [
            d for d in merged if about_material(d)
            and (d.code, d.start, d.end, d.message) not in seen_m]
        self.diagnostics = answer
        before = [c.chip for c in self.citations]
        fresh = (self.analysed.citation_diagnostics(answer) if self.analysed is not None
                 else tuple(() for _ in self.citations))
        for view, diags in zip(self.citations, fresh, strict=True):
            view.diagnostics = tuple(diags)
        return [c.index for c, old in zip(self.citations, before, strict=True) if c.chip != old]

    def counts(self) -> dict[str, int]:
        return {
            "citations": len(self.citations),
            "problems": sum(1 for c in self.citations if c.problem),
            "sources": sum(1 for r in self.sources if not r.missing),
            "missing": sum(1 for r in self.sources if r.missing),
            "errors": sum(1 for d in self.diagnostics if d.severity is Severity.ERROR),
            "warnings": sum(1 for d in self.diagnostics if d.severity is Severity.WARNING),
        }


def build_case_view(case: Case, families: Sequence[str] = DEFAULT_FAMILIES,
                    policy: Policy | None = None, dark: bool = False,
                    verdicts: dict[int, str] | None = None, with_lint: bool = True,  # by number
                    render: bool = True, *, cache: AnalysisCache | None = None,
                    analysed: AnalysedCase | None = None, support: bool = True) -> CaseView:
    """Everything the window shows for ``case`` (pure computation; safe in a worker thread).

    It reads the case's :class:`~citeview.core.analysis.AnalysedCase` (``analysed``, or one
    made under ``policy`` with ``families``, through ``cache``): the numbering, resolutions and
    claims are the ones the session and lint use. With ``with_lint=False`` only the marker
    scan's diagnostics are attached: the window shows that first and adds the lint findings
    (:func:`lint_case`, computed once on the same analysis) through :meth:`CaseView.apply_lint`.
    With ``render=False`` the answer HTML and the support hints are left out; with
    ``support=False`` the support hints only (the window adds them with lint:
    :meth:`CaseView.set_support`). What the window asks of every citation when it shows the
    case (statuses, problem) is worked out here, off the GUI thread.
    """
    if analysed is None:
        analysed = analyse(case, numbering_policy(families, policy), cache=cache)
    views = _attach(analysed, analysed.citation_diagnostics(analysed.scan_diagnostics),
                    verdicts or {})
    if render and support:
        for v, scores in zip(views, analysed.support, strict=True):
            v.support = scores
    for v in views:  # worked out now, kept (see the docstring)
        _ = v.statuses, v.problem

    by_id = analysed.material.by_id()
    counts: dict[str, int] = {}
    missing: list[str] = []
    cited_spans: dict[str, list[tuple[int, int]]] = {}
    for v in views:
        for k, sid in enumerate(v.citation.source_ids):
            counts[sid] = counts.get(sid, 0) + 1
            if sid not in by_id and sid not in missing:
                missing.append(sid)
            if k < len(v.targets):
                span = v.targets[k].span
                if span is not None and v.targets[k].status.resolved:
                    cited_spans.setdefault(sid, []).append((span[0], span[1]))
    rows = [
        SourceRow(s.id, str(getattr(s.kind, "value", s.kind)), _row_title(s),
                  counts.get(s.id, 0), s)
        for s in analysed.material.sources
    ]
    rows += [SourceRow(sid, "missing", "not in the material", counts[sid], None)
             for sid in missing]
    cv = CaseView(case, views, rows, list(analysed.scan_diagnostics),
                  list(analysed.material.diagnostics), cited_spans=cited_spans,
                  analysed=analysed)
    if render:
        cv.html = render_answer(case.answer, [(c.citation.start, c.citation.end)
                                              for c in analysed.citations], cv.chips(), dark)
    if with_lint:
        cv.apply_lint(analysed.lint.all)
    return cv


def _row_title(source: Source) -> str:
    """The sources list's title: a web result's title with its URL."""
    title = source.title or getattr(source, "label", None) or ""
    if str(getattr(source.kind, "value", source.kind)) == "web" and source.url:
        return f"{title} \u2014 {source.url}" if title else source.url
    return title


def lint_case(case: Case, policy: Policy | None = None, *,
              cache: AnalysisCache | None = None,
              analysed: AnalysedCase | None = None) -> list[Diagnostic]:
    """The linter's diagnostics for ``case`` (default policy when ``policy`` is None), from
    its analysed case (computed once there)."""
    if analysed is None:
        analysed = analyse(case, policy, cache=cache)
    return analysed.lint.all


def _attach(analysed: AnalysedCase, diagnostics: Sequence[Sequence[Diagnostic]],
            verdicts: dict[int, str]) -> list[CitationView]:
    """One view per analysed citation, with the diagnostics touching it."""
    views = [CitationView(c, tuple(diags), verdicts.get(c.number))
             for c, diags in zip(analysed.citations, diagnostics, strict=True)]
    for v, c in zip(views, analysed.citations, strict=True):
        if not c.has_marker:
            v.shown_claim = visible_text(c.claim_text)
    return views
