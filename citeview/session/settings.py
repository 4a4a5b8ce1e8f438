"""A session's settings read from its stored meta, the same way in every store: one mixin for
the file, memory and server stores (each wrote these lines)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeview.core.markers import DEFAULT_FAMILIES
from citeview.session.errors import damaged
from citeview.session.model import DEFAULT_LABELS, rubric_labels, rubric_reasons, stored_reasons

DOCUMENT_EXTRA = "_document_extra"  # meta key: unknown top-level keys of an imported document
# meta key of a session file: its case count, written with its cases (made, cases added), so
# opening it counts none of them (a million cases' count(*) took tens of ms)
CASE_COUNT = "_case_count"
_NOT_SETTINGS = (DOCUMENT_EXTRA, CASE_COUNT)


class StoredSettings:
    """``meta``, ``document_extra``, ``labels``, ``families``, ``blind``, ``reasons`` and their
    setters; the store gives ``path``, ``_meta_all`` (every stored setting, read once) and
    ``set_meta`` (listed before :class:`~citeview.session.analysing.AnalysingStore`, so its
    ``families`` is this one)."""

    path: str

    def _meta_all(self) -> dict[str, Any]:
        raise NotImplementedError

    def set_meta(self, key: str, value: Any) -> None:
        raise NotImplementedError

    @property
    def meta(self) -> dict[str, Any]:
        """Session settings (name, labels, blind, families, created, source, unknown keys)."""
        return {k: v for k, v in self._meta_all().items() if k not in _NOT_SETTINGS}

    @property
    def document_extra(self) -> dict[str, Any]:
        extra = self._meta_all().get(DOCUMENT_EXTRA, {})
        return dict(extra) if isinstance(extra, dict) else {}

    @property
    def labels(self) -> tuple[str, ...]:
        labels = self._meta_all().get("labels")
        if labels is None:
            return DEFAULT_LABELS
        if (not isinstance(labels, list) or not labels
                or not all(isinstance(x, str) and x for x in labels)):
            raise damaged(self.path, "the labels are not a list of names")
        return tuple(labels)

    @property
    def families(self) -> tuple[str, ...]:
        fams = self._meta_all().get("families")
        if fams is None:
            return DEFAULT_FAMILIES
        if not isinstance(fams, list) or not fams or not all(isinstance(x, str) for x in fams):
            raise damaged(self.path, "the marker families are not a list of names")
        return tuple(fams)

    @property
    def blind(self) -> bool:
        return bool(self._meta_all().get("blind", False))

    def set_blind(self, blind: bool) -> None:
        """Remember that the session is (was) annotated blind."""
        self.set_meta("blind", bool(blind))

    def set_labels(self, labels: Sequence[str]) -> None:
        """Use a rubric of one's own: the verdict labels, in key order (1, 2, ...)."""
        self.set_meta("labels", rubric_labels(labels))

    @property
    def reasons(self) -> tuple[str, ...]:
        """The reasons a verdict may give, in picker order (the defaults until set)."""
        found = stored_reasons(self._meta_all().get("reasons"))
        if found is None:
            raise damaged(self.path, "the reasons are not a list of names")
        return found

    def set_reasons(self, reasons: Sequence[str]) -> None:
        """Use a reason list of one's own (number keys 1, 2, ... in the picker)."""
        self.set_meta("reasons", rubric_reasons(reasons))


__all__ = ["CASE_COUNT", "DOCUMENT_EXTRA", "StoredSettings"]
