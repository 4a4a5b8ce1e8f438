"""Inter-annotator agreement between two sessions of the same cases.

Items are citation sources: (case id, citation number, raw marker, source id). Agreement is
measured over the items both sessions gave a verdict (any label, "cannot tell" included), in the
cases both hold; cases in only one session are counted and listed. Each session contributes one
verdict per item: the named annotator's, or else an adjudicated verdict if there is one, else
the most recent. Percent agreement, Cohen's kappa and the confusion matrix are those of
:mod:`citeview.core.metrics`; every disagreement is listed with both verdicts and notes.

Sessions whose verdict labels (rubrics) differ cannot agree on a label only one of them has:
agreement is then measured only over the items whose two verdicts both use labels both sessions
have, the others are counted and listed as not compared, and :attr:`Agreement.warnings` says so
(with no comparable item, percent and kappa are None, never a misleading 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from citeview.core.errors import InputError
from citeview.core.metrics import Confusion, cohen_kappa, confusion_matrix, percent_agreement
from citeview.session.errors import read_errors
from citeview.session.jsonio import dumps_json
from citeview.session.merge import ADJUDICATED
from citeview.session.model import Annotation
from citeview.session.protocol import ReviewStore
from citeview.session.store import Session

Item = tuple[str, int, str, str]  # case id, citation number, raw marker, source id


@dataclass(slots=True)
class Agreement:
    a: str
    b: str
    shared_cases: int
    only_a: list[str]
    only_b: list[str]
    pairs: list[tuple[str, str]]
    labels: tuple[str, ...]
    judged_only_a: int = 0  # items with a verdict in A but not in B (shared cases)
    judged_only_b: int = 0
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    labels_only_a: tuple[str, ...] = ()  # verdict labels of A's rubric that B's lacks
    labels_only_b: tuple[str, ...] = ()
    not_compared: list[dict[str, Any]] = field(default_factory=list)  # judged in both, but
    # with a label only one rubric has
    warnings: list[str] = field(default_factory=list)
    # The reasons (issue 30) A and B gave on each compared item, in the order of ``pairs``.
    reason_pairs: list[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)

    def per_reason(self) -> dict[str, dict[str, Any]]:
        """Agreement per reason over the compared items: whether each side gave it (yes/no
        per item), as counts, percent agreement and Cohen's kappa of those two labels."""
        names = list(dict.fromkeys(r for x, y in self.reason_pairs for r in (*x, *y)))
        out: dict[str, dict[str, Any]] = {}
        for name in names:
            pairs = [("yes" if name in x else "no", "yes" if name in y else "no")
                     for x, y in self.reason_pairs]
            out[name] = {"both": sum(1 for p in pairs if p == ("yes", "yes")),
                         "only_a": sum(1 for p in pairs if p == ("yes", "no")),
                         "only_b": sum(1 for p in pairs if p == ("no", "yes")),
                         "neither": sum(1 for p in pairs if p == ("no", "no")),
                         "percent_agreement": percent_agreement(pairs),
                         "kappa": cohen_kappa(pairs)}
        return out

    @property
    def percent(self) -> float | None:
        return percent_agreement(self.pairs)

    @property
    def kappa(self) -> float | None:
        return cohen_kappa(self.pairs)

    @property
    def confusion(self) -> Confusion:
        return confusion_matrix(self.pairs, self.labels)

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a, "b": self.b,
            "cases": {"shared": self.shared_cases, "only_a": len(self.only_a),
                      "only_b": len(self.only_b), "only_a_ids": self.only_a,
                      "only_b_ids": self.only_b},
            "items": len(self.pairs), "judged_only_a": self.judged_only_a,
            "judged_only_b": self.judged_only_b,
            "percent_agreement": self.percent, "kappa": self.kappa,
            "confusion": self.confusion.to_dict(),
            "disagreements": self.disagreements,
            "labels": {"only_a": list(self.labels_only_a), "only_b": list(self.labels_only_b)},
            "not_compared": self.not_compared,
            "warnings": self.warnings,
            "reasons": self.per_reason(),
        }


def _effective(anns: Iterable[Annotation], annotator: str | None
               ) -> dict[Item, Annotation]:
    """One annotation with a verdict per item (see the module docstring)."""
    out: dict[Item, Annotation] = {}
    for a in anns:
        if a.verdict is None or (annotator is not None and a.annotator != annotator):
            continue
        k = a.key
        item = (k.case_id, k.number, k.anchor, k.source_id)
        have = out.get(item)
        if (have is None or a.annotator == ADJUDICATED
                or (have.annotator != ADJUDICATED and a.timestamp > have.timestamp)):
            out[item] = a
    return out


def _ids_by_id(store: ReviewStore) -> Iterator[tuple[str, int]]:
    """(case id, position) of every case in id order: a session file streams them from its
    index on ids, so two million-case sessions are compared holding neither's ids."""
    if isinstance(store, Session):
        with read_errors(store.path):
            for cid, pos in store.conn.execute("SELECT id, pos FROM cases ORDER BY id"):
                yield str(cid), int(pos)
        return
    yield from sorted((cid, k) for k, cid in enumerate(store.case_ids()))


def _case_sides(a: ReviewStore, b: ReviewStore) -> tuple[int, list[str], list[str]]:
    """How many cases both hold, and the ids only A holds and only B holds (each in its
    session's order), by merging the two id-ordered streams."""
    only_a: list[tuple[int, str]] = []
    only_b: list[tuple[int, str]] = []
    shared = 0
    xs, ys = _ids_by_id(a), _ids_by_id(b)
    x, y = next(xs, None), next(ys, None)
    while x is not None or y is not None:
        if y is None or (x is not None and x[0] < y[0]):
            assert x is not None
            only_a.append((x[1], x[0]))
            x = next(xs, None)
        elif x is None or y[0] < x[0]:
            only_b.append((y[1], y[0]))
            y = next(ys, None)
        else:
            shared += 1
            x, y = next(xs, None), next(ys, None)
    return shared, [cid for _, cid in sorted(only_a)], [cid for _, cid in sorted(only_b)]


def _has_case(store: ReviewStore, case_id: str) -> bool:
    if isinstance(store, Session):
        with read_errors(store.path):
            return store.conn.execute("SELECT 1 FROM cases WHERE id = ?",
                                      (case_id,)).fetchone() is not None
    try:
        store.index_of(case_id)
    except KeyError:
        return False
    return True


def _by_case(store: ReviewStore, annotator: str | None
             ) -> Iterator[tuple[str, dict[Item, Annotation]]]:
    """Each case with verdicts, in session order, with its effective verdicts (one case's
    annotations held at a time)."""
    anns = store.iter_annotations(orphaned=False, annotator=annotator)
    for cid, group in groupby(anns, key=lambda x: x.key.case_id):
        found = _effective(group, annotator)
        if found:
            yield cid, found


def compare(a: ReviewStore, b: ReviewStore, *, annotator_a: str | None = None,
            annotator_b: str | None = None) -> Agreement:
    """Agreement of ``a`` and ``b``; :class:`InputError` when they share no case. Streamed: the
    memory held is one case's annotations and what the result lists, whatever the sessions'
    sizes."""
    n_shared, ids_only_a, ids_only_b = _case_sides(a, b)
    if not n_shared:
        raise InputError(f"{a.path} and {b.path} share no case (nothing to compare)")
    rubric_a, rubric_b = a.labels, b.labels
    only_a = tuple(x for x in rubric_a if x not in rubric_b)
    only_b = tuple(x for x in rubric_b if x not in rubric_a)
    one_sided = set(only_a) | set(only_b)  # labels the other rubric cannot answer with
    labels = (tuple(x for x in rubric_a if x in rubric_b) if one_sided
              else tuple(dict.fromkeys([*rubric_a, *rubric_b])))
    result = Agreement(a.path, b.path, n_shared, ids_only_a, ids_only_b, [], labels,
                       labels_only_a=only_a, labels_only_b=only_b)
    for cid, va in _by_case(a, annotator_a):
        if not _has_case(b, cid):
            continue
        vb = _effective(b.iter_annotations(cid, orphaned=False, annotator=annotator_b),
                        annotator_b)
        for item in sorted(va, key=lambda i: (i[1], i[3], i[2])):
            x = va[item]
            y = vb.get(item)
            if y is None:
                result.judged_only_a += 1
                continue
            assert x.verdict is not None and y.verdict is not None
            entry = {
                "case_id": item[0], "citation": item[1], "source_id": item[3],
                "claim": x.claim or y.claim,
                "a": {"verdict": x.verdict, "note": x.note, "annotator": x.annotator,
                      "reasons": list(x.reasons)},
                "b": {"verdict": y.verdict, "note": y.note, "annotator": y.annotator,
                      "reasons": list(y.reasons)},
            }
            if x.verdict in one_sided or y.verdict in one_sided:
                result.not_compared.append(entry)
                continue
            result.pairs.append((x.verdict, y.verdict))
            result.reason_pairs.append((x.reasons, y.reasons))
            if x.verdict != y.verdict or set(x.reasons) != set(y.reasons):
                result.disagreements.append(entry)
    for cid, vb in _by_case(b, annotator_b):
        if not _has_case(a, cid):
            continue
        va = _effective(a.iter_annotations(cid, orphaned=False, annotator=annotator_a),
                        annotator_a)
        result.judged_only_b += sum(1 for i in vb if i not in va)
    if one_sided:
        result.warnings.append(_rubric_warning(result))
    return result


def _names(labels: tuple[str, ...]) -> str:
    return ", ".join(repr(x) for x in labels) or "none"


def _rubric_warning(ag: Agreement) -> str:
    """One line: the rubrics differ, and what agreement is (or is not) computed over."""
    head = (f"A and B use different verdict labels (only in A: {_names(ag.labels_only_a)}; "
            f"only in B: {_names(ag.labels_only_b)}): ")
    n, skipped = len(ag.pairs), len(ag.not_compared)
    if not n:
        return head + (f"none of the {skipped} citation source(s) judged in both can be "
                       "compared, so no agreement is computed")
    return head + (f"agreement covers only the {n} citation source(s) whose two verdicts use "
                   f"labels both have; {skipped} not compared")


def render_json(ag: Agreement) -> str:
    """:meth:`Agreement.to_dict` as indented JSON (lone surrogates escaped)."""
    return dumps_json(ag.to_dict(), indent=1) + "\n"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def render_text(ag: Agreement) -> str:
    lines = [
        f"A: {ag.a}",
        f"B: {ag.b}",
        *(f"Warning: {w}" for w in ag.warnings),
        f"Cases: {ag.shared_cases} in both, {len(ag.only_a)} only in A, "
        f"{len(ag.only_b)} only in B",
    ]
    for tag, ids in (("A", ag.only_a), ("B", ag.only_b)):
        if ids:
            shown = ", ".join(ids[:20]) + (f", ... ({len(ids) - 20} more)" if len(ids) > 20
                                           else "")
            lines.append(f"  only in {tag}: {shown}")
    lines += [
        f"Citation sources judged in both: {len(ag.pairs)} "
        f"(judged only in A: {ag.judged_only_a}, only in B: {ag.judged_only_b}"
        + (f"; not compared, a label only one rubric has: {len(ag.not_compared)}"
           if ag.labels_only_a or ag.labels_only_b else "") + ")",
        f"Percent agreement: {_pct(ag.percent)}",
        "Cohen's kappa: " + ("n/a (undefined: one label throughout)" if ag.kappa is None
                             and ag.pairs else "n/a" if ag.kappa is None
                             else f"{ag.kappa:.3f}"),
        *(["Not compared (a label only one rubric has):"] if ag.not_compared else []),
        *(f"  {d['case_id']} citation {d['citation']} [{d['source_id']}]: "
          f"A {d['a']['verdict']} / B {d['b']['verdict']}" for d in ag.not_compared[:20]),
        *([f"  ... ({len(ag.not_compared) - 20} more)"] if len(ag.not_compared) > 20 else []),
        "Confusion matrix (rows A, columns B):",
    ]
    m = ag.confusion
    width = max([len(x) for x in m.labels] + [5])
    lines.append(" " * (width + 2) + " ".join(f"{x[:width]:>{width}}" for x in m.labels))
    for label, row in zip(m.labels, m.counts, strict=True):
        lines.append(f"  {label:<{width}}" + " ".join(f"{n:>{width}}" for n in row))
    per_reason = ag.per_reason()
    if per_reason:
        lines.append("Agreement per reason (both / only A / only B / neither):")
        for name, r in per_reason.items():
            kappa = "n/a" if r["kappa"] is None else f"{r['kappa']:.3f}"
            lines.append(f"  {name}: {_pct(r['percent_agreement'])}, kappa {kappa} "
                         f"({r['both']} / {r['only_a']} / {r['only_b']} / {r['neither']})")
    lines.append(f"Disagreements: {len(ag.disagreements)}")
    for d in ag.disagreements:
        lines.append(f"  {d['case_id']} citation {d['citation']} [{d['source_id']}]: "
                     f"A {d['a']['verdict']} / B {d['b']['verdict']}")
        if set(d["a"]["reasons"]) != set(d["b"]["reasons"]):
            lines.append(f"    reasons: A {'; '.join(d['a']['reasons']) or '(none)'} / "
                         f"B {'; '.join(d['b']['reasons']) or '(none)'}")
        for tag in ("a", "b"):
            if d[tag]["note"]:
                lines.append(f"    {tag.upper()} note: {_one_line(d[tag]['note'])}")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]
