"""The analysis every store gives its cases: one :class:`~citeview.core.analysis.Analyser` per
session, numbering under the session's families, each case's item counts recorded the first
time it is analysed. One mixin for the file, memory and server stores (each wrote these
lines)."""

from __future__ import annotations

from collections.abc import Sequence

from citeview.core.analysis import AnalysedCase, Analyser
from citeview.core.cases import Case
from citeview.core.policy import Policy


class AnalysingStore:
    """``analyser``, ``policy`` and ``analysed`` of a store; the store gives ``families``,
    ``get_case`` and ``record_sizes`` (listed after the store's own classes, so theirs win)."""

    _analyser: Analyser | None = None

    @property
    def families(self) -> tuple[str, ...]:
        raise NotImplementedError

    def get_case(self, case_id: str) -> Case:
        raise NotImplementedError

    def record_sizes(self, case_id: str, sizes: Sequence[int]) -> None:
        raise NotImplementedError

    @property
    def analyser(self) -> Analyser:
        """The analyser of this session's cases: its families decide the numbering."""
        if self._analyser is None or self._analyser.families != self.families:
            self._analyser = Analyser(self.families, 64)
        return self._analyser

    @property
    def policy(self) -> Policy:
        """The policy this session numbers citations under (its families)."""
        return self.analyser.policy

    def analysed(self, case: str | Case, policy: Policy | None = None) -> AnalysedCase:
        """The analysed case (numbering, resolution, claims; lint on demand) that every view of
        this session reads. ``policy`` may re-grade lint, but the numbering always follows the
        session's families. The case's item counts are stored the first time."""
        if isinstance(case, str):
            case = self.get_case(case)
        found = self.analyser.analysed(case, policy)
        self.record_sizes(case.id, found.item_counts)
        return found


__all__ = ["AnalysingStore"]
