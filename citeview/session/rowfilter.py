"""Which rows a read asks for (by case, annotator, citation, orphaned, citation source): one
filter the SQLite file and the server turn into a WHERE clause and the memory store tests rows
against, so the three stores select the same rows (each spelled these conditions out)."""

from __future__ import annotations

from dataclasses import dataclass

from citeview.session.model import AnnotationKey


@dataclass(slots=True, frozen=True)
class RowFilter:
    """Each condition that is not None must hold. ``key``: rows of that citation source (its
    case, number, anchor and source)."""

    case_id: str | None = None
    annotator: str | None = None
    number: int | None = None
    orphaned: bool | None = None
    key: AnnotationKey | None = None

    def conditions(self) -> list[tuple[str, object]]:
        """(column, value) of every condition, as the tables name the columns."""
        found: list[tuple[str, object]] = []
        key = self.key
        if key is not None:
            found += [("case_id", key.case_id), ("number", key.number), ("raw", key.anchor),
                      ("source_id", key.source_id)]
        if self.case_id is not None and (key is None or key.case_id != self.case_id):
            found.append(("case_id", self.case_id))
        if self.number is not None and (key is None or key.number != self.number):
            found.append(("number", self.number))
        if self.annotator is not None:
            found.append(("annotator", self.annotator))
        if self.orphaned is not None:
            found.append(("orphaned", int(self.orphaned)))
        return found

    def where(self, alias: str, mark: str = "?") -> tuple[list[str], list[object]]:
        """The conditions as SQL (``alias.column = mark``) and their arguments."""
        found = self.conditions()
        return [f"{alias}.{column} = {mark}" for column, _ in found], [v for _, v in found]

    def sql(self, alias: str) -> tuple[str, list[object]]:
        """`` WHERE ...`` for SQLite (empty when nothing is asked) and its arguments."""
        conds, args = self.where(alias)
        return (" WHERE " + " AND ".join(conds) if conds else ""), args

    def matches(self, case_id: str, annotator: str, key: AnnotationKey | None = None,
                orphaned: bool = False) -> bool:
        """Whether a row of ``case_id`` by ``annotator`` (of citation source ``key``,
        orphaned or not) is asked for."""
        if self.case_id is not None and case_id != self.case_id:
            return False
        if self.annotator is not None and annotator != self.annotator:
            return False
        if self.orphaned is not None and orphaned != self.orphaned:
            return False
        if self.key is not None and key != self.key:
            return False
        return self.number is None or (key is not None and key.number == self.number)


__all__ = ["RowFilter"]
