"""The linter: every breach of the guide's citation rules in one case, named and located.

:func:`lint` runs the marker scan (CV1xx), resolution against the case's material (CV2xx),
the Markdown placement rules (CV3xx) and, when the policy turns it on, lexical support (CV401),
then applies the :class:`~citeview.core.policy.Policy` (rules on or off, re-graded
severities). Pure and deterministic. The rules (:mod:`citeview.core.rules`, below the analysis)
run over an :class:`~citeview.core.analysis.AnalysedCase`, so the scan, material, numbering and
resolutions are those everybody else reads, computed once; this module is above the analysis,
so the two never import each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from citeview.core.analysis import analyse
from citeview.core.cases import Case
from citeview.core.diagnostics import Diagnostic
from citeview.core.markers import Citation
from citeview.core.material import Material
from citeview.core.policy import Policy
from citeview.core.resolution import Resolution

_DEFAULT_POLICY = Policy()


@dataclass(slots=True, frozen=True)
class LintAnalysis:
    """Everything :func:`lint` computed for one case (a view of its
    :class:`~citeview.core.analysis.AnalysedCase`, kept for library users).

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
    return analyse(case, policy).lint.all


def lint_parts(case: Case, policy: Policy = _DEFAULT_POLICY
               ) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """:func:`lint` split into (answer diagnostics, material diagnostics)."""
    found = analyse(case, policy).lint
    return list(found.diagnostics), list(found.material_diagnostics)


def lint_analysis(case: Case, policy: Policy = _DEFAULT_POLICY) -> LintAnalysis:
    """:func:`lint` with the citations, material and resolutions it computed on the way."""
    a = analyse(case, policy)
    found = a.lint
    return LintAnalysis(tuple(c.citation for c in a.citations), a.material, a.resolutions,
                        found.diagnostics, found.material_diagnostics)
