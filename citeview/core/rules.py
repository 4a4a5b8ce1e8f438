"""The citation rules (CV1xx from the scan, CV2xx resolution, CV3xx placement, CV401 support,
the provider's CV6xx) run over one analysed case, policy applied.

Below :mod:`citeview.core.analysis`, which runs them the first time its ``lint`` is asked for:
this module reads an analysed case through the :class:`Analysed` protocol and never imports the
analysis (an import-linter contract keeps it so); :mod:`citeview.core.lint` is the linter's API
above the analysis.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Protocol

from citeview.core.diagnostics import Diagnostic, make
from citeview.core.locators import near_miss_locator
from citeview.core.markers import Citation, ScanResult
from citeview.core.material import Material, SourceKind
from citeview.core.placement import check_placement
from citeview.core.policy import Policy
from citeview.core.resolution import Resolution, Status
from citeview.core.support import weak_support_diagnostics

_PLACEMENT = ("CV301", "CV302", "CV303", "CV304", "CV305", "CV306", "CV307", "CV308")
_LINED = (SourceKind.LINE, SourceKind.FILE)
# Statuses no CV2xx rule tells of (compared by identity, the quickest test): a citation that
# resolves; a whole source too, unless the policy requires locators (CV205).
_QUIET = (Status.OK, Status.WHOLE_SOURCE)
_QUIET_STRICT = (Status.OK, Status.OK)
_ORDER = attrgetter("start", "end", "code")  # diagnostics by position, then code


class AnalysedCitationLike(Protocol):
    @property
    def citation(self) -> Citation: ...
    @property
    def resolution(self) -> Resolution: ...
    @property
    def claim(self) -> tuple[int, int]: ...


class Analysed(Protocol):
    """What the rules read of an :class:`~citeview.core.analysis.AnalysedCase`."""

    @property
    def policy(self) -> Policy: ...
    @property
    def answer(self) -> str: ...
    @property
    def scan_result(self) -> ScanResult: ...
    @property
    def citations(self) -> Sequence[AnalysedCitationLike]: ...
    @property
    def provider_diagnostics(self) -> tuple[Diagnostic, ...]: ...
    @property
    def material(self) -> Material: ...


def run_rules(analysed: Analysed) -> tuple[list[Diagnostic], list[Diagnostic]]:
    """The rules over an analysed case (its scan, material, resolutions and claims are reused,
    not recomputed): (answer diagnostics, material diagnostics), policy applied."""
    policy = analysed.policy
    answer = analysed.answer
    scanned = analysed.scan_result.diagnostics
    citations = [c.citation for c in analysed.citations]
    resolutions = [c.resolution for c in analysed.citations]
    # A provider's citations (no marker text) have no marker to misplace; their checks are
    # the CV6xx findings made when they were read.
    provider_at = [c.start for c in citations if not c.raw]
    markers = [c for c in citations if c.raw] if provider_at else citations
    diags = list(scanned)
    malformed: list[tuple[int, int]] = []
    stray: list[tuple[int, int]] = []
    for d in scanned:  # (most answers: none)
        if d.code == "CV110":
            malformed.append((d.start, d.end))
        elif d.code in ("CV101", "CV105"):
            stray.append((d.start, d.end))
    diags.extend(_resolution_diagnostics(
        [r for r in resolutions if r.citation.raw] if provider_at else resolutions, policy,
        malformed))
    placement_on, support_on = _switches(policy)
    if placement_on:
        found = check_placement(answer, markers, stray, policy.multi_source)
        if provider_at:  # a paragraph a provider's citation cites is not uncited
            found = [d for d in found if d.code != "CV308"
                     or not any(d.start <= p <= d.end for p in provider_at)]
        diags.extend(found)
    diags.extend(analysed.provider_diagnostics)
    if support_on:
        diags.extend(weak_support_diagnostics(answer, citations, resolutions,
                                              [c.claim for c in analysed.citations],
                                              policy.weak_support_threshold))
    out = policy.apply(diags) if diags else diags
    out.sort(key=_ORDER)
    material = analysed.material.diagnostics
    return out, policy.apply(material) if material else []


# The last policy seen and its switches (a placement rule on, CV401 on): a run lints every case
# under one policy, and asking the policy is a few look-ups a rule. One tuple, replaced whole.
_last_switches: list[tuple[Policy | None, bool, bool]] = [(None, False, False)]


def _switches(policy: Policy) -> tuple[bool, bool]:
    """Whether any placement rule runs under ``policy``, and whether CV401 does."""
    known = _last_switches[0]
    if known[0] is policy:
        return known[1], known[2]
    placement_on = any(map(policy.enabled, _PLACEMENT))
    support_on = policy.enabled("CV401")
    _last_switches[0] = (policy, placement_on, support_on)
    return placement_on, support_on


def _resolution_diagnostics(resolutions: Sequence[Resolution], policy: Policy,
                            malformed: Sequence[tuple[int, int]]) -> list[Diagnostic]:
    """The CV2xx diagnostics the resolutions give."""
    out: list[Diagnostic] = []
    quiet = _QUIET_STRICT if policy.require_locators else _QUIET
    for res in resolutions:
        c = res.citation
        for target in res.targets:
            status = target.status
            if status is quiet[0] or status is quiet[1]:
                continue  # (most targets: nothing to tell)
            code = status.code
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


__all__ = ["Analysed", "run_rules"]
