"""Corrected citations as data: what a reviewer says a case's citations should have been, and
the corrected answer they give (:func:`apply_corrections`).

A :class:`Correction` is stored beside the case (the session's ``corrections``), never by
changing the original answer. Four kinds:

- ``relocate``: the citation (``number``/``anchor``, as a verdict's key) keeps its sources but
  cites other lines: ``locator`` (``L9-L10``; None: the whole source). For a citation without
  marker text (a provider's) ``target`` is its new span in the source's text instead (code
  points); ``source_id`` limits it to one of its sources ("" = all of them).
- ``change-source``: the citation's source ``old_source_id`` ("" = its first) becomes
  ``source_id``, with ``locator`` (or ``target``) as its lines.
- ``remove``: the citation goes.
- ``add``: a claim that had no citation (``claim``: start and end in the answer, code points)
  gets one: ``source_id`` with ``locator`` (or ``target``). Added citations are also what a
  reviewer found missing (citation recall).

The corrected answer has every citation it keeps written as a marker in the guide's format
(``U+E200 cite U+E202 id U+E202 L9-L10 U+E201``), placed where the guide puts it (after the
emphasis, code span or link its claim ends in, after sentence punctuation). A provider's case
is given in the converted markers form (``citeview convert --to markers``), corrections and
all. Qt-free and session-free: the session stores these rows, the export writes the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from citeview.core.errors import InputError
from citeview.core.locators import parse_locator


class CorrectionKind(StrEnum):
    RELOCATE = "relocate"
    CHANGE_SOURCE = "change-source"
    REMOVE = "remove"
    ADD = "add"


class CorrectionError(InputError):
    """A correction that does not fit its case (no such citation, a span outside the answer,
    a malformed locator): one line, for the CLI and a dialog."""


@dataclass(slots=True, frozen=True)
class Correction:
    """One correction of one case's citations by one annotator (see the module docstring).

    ``id`` names the row (removed on its own); corrections of a case apply in the order they
    were made (``timestamp``, then ``id``), a later one of the same citation on top of the
    earlier."""

    id: str
    case_id: str
    annotator: str
    kind: CorrectionKind
    number: int = 0  # the citation corrected (0 for add)
    anchor: str = ""  # its anchor, as an annotation key's
    source_id: str = ""  # relocate: which source ("" = all); change-source, add: the new one
    old_source_id: str = ""  # change-source: the source replaced ("" = the citation's first)
    locator: str | None = None  # the new lines, e.g. "L9-L10"; None: the whole source
    target: tuple[int, int] | None = None  # provider citation: new span in the source's text
    claim: tuple[int, int] | None = None  # add: the claim in the answer (code points)
    note: str = ""
    timestamp: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=True, hash=False)

    def check(self) -> None:
        """:class:`CorrectionError` unless its fields make sense for its kind (before
        storing: a store refuses a malformed row)."""
        what = f"correction {self.id!r} of case {self.case_id!r}"
        if not self.id:
            raise CorrectionError(f"{what}: no id")
        if self.kind is CorrectionKind.ADD:
            if self.claim is None or not 0 <= self.claim[0] <= self.claim[1]:
                raise CorrectionError(f"{what}: an added citation needs its claim span")
            if not self.source_id:
                raise CorrectionError(f"{what}: an added citation needs a source")
        elif self.number < 1:
            raise CorrectionError(f"{what}: no citation number")
        if self.kind is CorrectionKind.CHANGE_SOURCE and not self.source_id:
            raise CorrectionError(f"{what}: a changed source needs the new source")
        if self.locator is not None and parse_locator(self.locator) is None:
            raise CorrectionError(f"{what}: {self.locator!r} is not a line locator "
                                  "(L9 or L9-L10)")
        if self.target is not None and not 0 <= self.target[0] <= self.target[1]:
            raise CorrectionError(f"{what}: the target span {self.target} is not a span")

    def to_dict(self) -> dict[str, Any]:
        """Its export shape (``citeview export --format json`` and the corrections export)."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind.value,
                               "annotator": self.annotator}
        if self.kind is not CorrectionKind.ADD:
            out["number"] = self.number
            out["raw"] = self.anchor
        if self.source_id:
            out["source_id"] = self.source_id
        if self.old_source_id:
            out["old_source_id"] = self.old_source_id
        if self.locator is not None:
            out["locator"] = self.locator
        if self.target is not None:
            out["target"] = list(self.target)
        if self.claim is not None:
            out["claim"] = list(self.claim)
        if self.note:
            out["note"] = self.note
        out["timestamp"] = self.timestamp
        out.update({k: v for k, v in self.extra.items() if k not in out})
        return out

    @classmethod
    def from_dict(cls, case_id: str, data: dict[str, Any]) -> Correction:
        """The correction of an export row (:meth:`to_dict`); :class:`CorrectionError` when
        malformed (unknown keys are kept in ``extra``)."""
        try:
            kind = CorrectionKind(str(data.get("kind")))
        except ValueError:
            raise CorrectionError(f"case {case_id!r}: unknown correction kind "
                                  f"{str(data.get('kind'))[:40]!r}") from None
        known = ("id", "kind", "annotator", "number", "raw", "source_id", "old_source_id",
                 "locator", "target", "claim", "note", "timestamp")
        texts = {k: data.get(k, "") for k in ("id", "annotator", "raw", "source_id",
                                               "old_source_id", "note", "timestamp")}
        number = data.get("number", 0)
        locator = data.get("locator")
        if (any(not isinstance(v, str) for v in texts.values()) or type(number) is not int
                or not (locator is None or isinstance(locator, str))):
            raise CorrectionError(f"case {case_id!r}: malformed correction {str(data)[:80]}")
        made = cls(texts["id"], case_id, texts["annotator"], kind, number, texts["raw"],
                   texts["source_id"], texts["old_source_id"], locator,
                   _span(case_id, data.get("target")), _span(case_id, data.get("claim")),
                   texts["note"], texts["timestamp"],
                   {k: v for k, v in data.items() if k not in known})
        made.check()
        return made


def _span(case_id: str, value: object) -> tuple[int, int] | None:
    if value is None:
        return None
    if (isinstance(value, list) and len(value) == 2
            and all(type(v) is int and v >= 0 for v in value) and value[0] <= value[1]):
        return (value[0], value[1])
    raise CorrectionError(f"case {case_id!r}: {str(value)[:40]} is not a span [start, end]")


def ordered(corrections: Sequence[Correction]) -> list[Correction]:
    """``corrections`` in the order they apply: as made (timestamp, then id)."""
    return sorted(corrections, key=lambda c: (c.timestamp, c.id))


__all__ = ["Correction", "CorrectionError", "CorrectionKind", "ordered"]
