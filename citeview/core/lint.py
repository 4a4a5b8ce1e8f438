"""The linter: every breach of the guide's citation rules in one case, named and located.

:func:`lint` runs the marker scan (CV1xx), resolution against the case's material (CV2xx),
the Markdown placement rules (CV3xx) and, when the policy turns it on, lexical support (CV401),
then applies the :class:`~citeview.core.policy.Policy` (rules on or off, re-graded
severities). Pure and deterministic. :func:`lint_analysis` also hands back what lint worked out
on the way (citations, material, resolutions), so callers that need them too (export, report)
scan, parse and resolve each case once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citeview.core.cases import Case
from citeview.core.claims import claim_spans
from citeview.core.diagnostics import Diagnostic, make
from citeview.core.locators import near_miss_locator
from citeview.core.markers import Citation, scan
from citeview.core.material import Material, SourceKind, case_material
from citeview.core.placement import check_placement
from citeview.core.policy import Policy
from citeview.core.resolution import Resolution, Status, resolve
from citeview.core.support import weak_support_diagnostics

_DEFAULT_POLICY = Policy()
_PLACEMENT = ("CV301", "CV302", "CV303", "CV304", "CV305", "CV306", "CV307", "CV308")
_LINED = (SourceKind.LINE, SourceKind.FILE)


@dataclass(slots=True, frozen=True)
class LintAnalysis:
    """Everything :func:`lint` computed for one case.

    ``citations`` are the scan's (conformant and recovered, in reading order, scanned with the
    policy's families and the material's ids), ``resolutions`` parallel to them;
    ``diagnostics`` the answer's (policy applied, sorted by position) and
    ``material_diagnostics`` the material's."""

    citations: tuple[Citation, ...]
    material: Material
    resolutions: tuple[Resolution, ...]
    diagnostics: tuple[Diagnostic, ...]
    material_diagnostics: tuple[Diagnostic, ...]

    @property
    def all_diagnostics(self) -> list[Diagnostic]:
        """What :func:`lint` returns: answer diagnostics, then material diagnostics."""
        return [*self.diagnostics, *self.material_diagnostics]


def lint(case: Case, policy: Policy = _DEFAULT_POLICY) -> list[Diagnostic]:
    """Diagnostics for ``case`` under ``policy``.

    Diagnostics about the answer come first, sorted by position (then code); diagnostics about
    the material (CV206, CV5xx; instances of ``MaterialDiagnostic`` whose ``origin`` names the
    string their span is in) follow, in material order.
    """
    return lint_analysis(case, policy).all_diagnostics


def lint_parts(case: Case, policy: Policy = _DEFAULT_POLICY
               ) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """:func:`lint` split into (answer diagnostics, material diagnostics)."""
    a = lint_analysis(case, policy)
    return list(a.diagnostics), list(a.material_diagnostics)


def lint_analysis(case: Case, policy: Policy = _DEFAULT_POLICY) -> LintAnalysis:
    """:func:`lint` with the citations, material and resolutions it computed on the way."""
    material = case_material(case)
    answer = case.answer
    result = scan(answer, policy.families, material.ids())
    citations = result.citations
    diags = list(result.diagnostics)
    malformed = [(d.start, d.end) for d in result.diagnostics if d.code == "CV110"]
    resolutions, found = _resolution_diagnostics(citations, material, policy, malformed)
    diags.extend(found)
    if any(policy.enabled(code) for code in _PLACEMENT):
        stray = [(d.start, d.end) for d in result.diagnostics if d.code in ("CV101", "CV105")]
        diags.extend(check_placement(answer, citations, stray, policy.multi_source))
    if policy.enabled("CV401"):
        diags.extend(weak_support_diagnostics(answer, citations, resolutions,
                                              claim_spans(answer, citations),
                                              policy.weak_support_threshold))
    out = policy.apply(diags)
    out.sort(key=lambda d: (d.start, d.end, d.code))
    return LintAnalysis(tuple(citations), material, tuple(resolutions), tuple(out),
                        tuple(policy.apply(material.diagnostics)))


def _resolution_diagnostics(citations: Sequence[Citation], material: Material, policy: Policy,
                            malformed: Sequence[tuple[int, int]]
                            ) -> tuple[list[Resolution], list[Diagnostic]]:
    """The resolution of each citation, and the CV2xx diagnostics they give."""
    resolutions = resolve(citations, material)
    out: list[Diagnostic] = []
    for res in resolutions:
        c = res.citation
        for target in res.targets:
            code = target.status.code
            if (code == "CV201" and near_miss_locator(target.source_id) is not None
                    and any(c.start <= s and e <= c.end for s, e in malformed)):
                continue  # a malformed locator read as an id: CV110 already says so
            if code is not None:
                out.append(make(code, _message(target.status, target.source_id, c.locator,
                                               target.detail), c.start, c.end))
            elif (policy.require_locators and target.status is Status.WHOLE_SOURCE
                  and target.source is not None and target.source.kind in _LINED
                  and target.source.lines):
                out.append(make("CV205", f"citation of {target.source_id!r} has no line "
                                "locator, and the policy requires line ranges for line-level "
                                "sources", c.start, c.end))
    return resolutions, out


def _message(status: Status, source_id: str, locator: str | None, detail: str) -> str:
    head = {
        Status.UNKNOWN_SOURCE: f"source {source_id!r} is not defined in the material",
        Status.OUT_OF_RANGE: f"{locator} is out of range for {source_id!r}",
        Status.REVERSED: f"{locator} is a reversed range",
        Status.NO_LINES: f"line locator {locator} on {source_id!r}, which has no lines",
    }.get(status, status.value)
    if not detail:
        return head
    return detail if source_id in detail else f"{source_id!r}: {detail}"
