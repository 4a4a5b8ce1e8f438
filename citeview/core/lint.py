"""The linter: every breach of the guide's citation rules in one case, named and located.

:func:`lint` runs the marker scan (CV1xx), resolution against the case's material (CV2xx) and
the Markdown placement rules (CV3xx), then applies the :class:`~citeview.core.policy.Policy`
(rules on or off, re-graded severities). Pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

from citeview.core.cases import Case
from citeview.core.diagnostics import Diagnostic, make
from citeview.core.locators import near_miss_locator
from citeview.core.markers import Citation, scan
from citeview.core.material import Material, SourceKind, case_material
from citeview.core.placement import check_placement
from citeview.core.policy import Policy
from citeview.core.resolution import Status, resolve

_DEFAULT_POLICY = Policy()
_PLACEMENT = ("CV301", "CV302", "CV303", "CV304", "CV305", "CV306", "CV307", "CV308")
_LINED = (SourceKind.LINE, SourceKind.FILE)


def lint(case: Case, policy: Policy = _DEFAULT_POLICY) -> list[Diagnostic]:
    """Diagnostics for ``case`` under ``policy``.

    Diagnostics about the answer come first, sorted by position (then code); diagnostics about
    the material (CV206, CV5xx; instances of ``MaterialDiagnostic`` whose ``origin`` names the
    string their span is in) follow, in material order.
    """
    answer_diags, material_diags = lint_parts(case, policy)
    return answer_diags + material_diags


def lint_parts(case: Case, policy: Policy = _DEFAULT_POLICY
               ) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """:func:`lint` split into (answer diagnostics, material diagnostics)."""
    material = case_material(case)
    answer = case.answer
    result = scan(answer, policy.families, material.ids())
    diags = list(result.diagnostics)
    malformed = [(d.start, d.end) for d in result.diagnostics if d.code == "CV110"]
    diags.extend(_resolution_diagnostics(result.citations, material, policy, malformed))
    if any(policy.enabled(code) for code in _PLACEMENT):
        stray = [(d.start, d.end) for d in result.diagnostics if d.code in ("CV101", "CV105")]
        diags.extend(check_placement(answer, result.citations, stray, policy.multi_source))
    out = policy.apply(diags)
    out.sort(key=lambda d: (d.start, d.end, d.code))
    return out, policy.apply(material.diagnostics)


def _resolution_diagnostics(citations: Sequence[Citation], material: Material, policy: Policy,
                            malformed: Sequence[tuple[int, int]]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for res in resolve(citations, material):
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
    return out


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
