"""Small review sessions with verdicts chosen by hand, shared by the review tests.

Material: turn0file0 (line level, L1-L3) and turn0file1 (a block). Cases:

- c1: 4 sentences; citations 1 (turn0file0 L1), 2 (turn0file0 L2), 3 (turn0file1); the 4th
  sentence is uncited.
- c2: a heading (not a sentence), then 2 sentences: citation 1 (turn0file0 L3) in the first,
  citations 2 (turn0file0 L2) and 3 (turn0file1) in the second.
- c3: 2 sentences; citation 1 names an unknown source (lint CV201).
- c4: 1 sentence; citation 1 (turn0file0 L2). Only in session B.

Session A (annotator "ana", 2026-01-01): c1 = supported, partially supported, unsupported (case
done); c2 = supported, cannot tell, unsupported (in progress); c3 not started.
Session B (annotator "bo", 2026-01-02): c1 = supported, unsupported, unsupported; c2 =
supported, cannot tell, partially supported; c4 = supported. B has no c3.
"""

from __future__ import annotations

from pathlib import Path

from citeview.core.cases import Case
from citeview.session import Annotation, CaseReview, ReviewState, Session, case_citations

S, D, E = "\ue200", "\ue202", "\ue201"
SUP, PART, UNS, CT = "supported", "partially supported", "unsupported", "cannot tell"


def cite(sid: str, loc: str | None = None) -> str:
    return f"{S}cite{D}{sid}" + (f"{D}{loc}" if loc else "") + E


MATERIAL = (
    f"Citation Marker: {cite('turn0file0')}\nTitle: Handbook\n\n"
    "[L1] Employees may work remotely up to three days per week.\n"
    "[L2] Additional remote days require manager approval.\n"
    "[L3] Requests go through the HR portal.\n\n"
    f"Citation Marker: {cite('turn0file1')}\n[Block1]\n"
    "Receipts must be uploaded within thirty days.\n"
)

ANSWERS = {
    "c1": (f"Remote work is allowed three days a week.{cite('turn0file0', 'L1')} "
           f"More days need manager approval.{cite('turn0file0', 'L2')} "
           f"Receipts are due in thirty days.{cite('turn0file1')} Nothing else matters.\n"),
    "c2": (f"# Summary\n\nRequests use the HR portal.{cite('turn0file0', 'L3')} "
           f"Approval is needed.{cite('turn0file0', 'L2')}{cite('turn0file1')}\n"),
    "c3": f"Travel is free.{cite('nosuch')} Ask anyone.\n",
    "c4": f"Managers approve extra days.{cite('turn0file0', 'L2')}\n",
}

VERDICTS_A = {"c1": [SUP, PART, UNS], "c2": [SUP, CT, UNS]}
VERDICTS_B = {"c1": [SUP, UNS, UNS], "c2": [SUP, CT, PART], "c4": [SUP]}


def case(cid: str) -> Case:
    return Case(cid, ANSWERS[cid], "How does remote work go?", [MATERIAL])


def build(path: Path, case_ids: list[str], annotator: str, verdicts: dict[str, list[str]],
          day: str, notes: dict[tuple[str, int], str] | None = None,
          states: dict[str, ReviewState] | None = None) -> Session:
    """A session at ``path`` with the verdicts given, one per citation (its only source), at
    ``2026-01-<day>`` timestamps."""
    session = Session.create(str(path), [case(c) for c in case_ids], annotator=annotator)
    for cid, vs in verdicts.items():
        slots = case_citations(session.get_case(cid))
        for slot, verdict in zip(slots, vs, strict=True):
            key = slot.keys(cid)[0]
            note = (notes or {}).get((cid, slot.number), "")
            session.put_annotation(Annotation(key, annotator, verdict, note,
                                              f"2026-01-{day}T10:00:00.000Z", slot.claim))
    for cid, state in (states or {}).items():
        session.put_review(CaseReview(cid, annotator, state, timestamp=f"2026-01-{day}T11:00Z"))
    return session


def session_a(tmp: Path, name: str = "a.citeview") -> Session:
    return build(tmp / name, ["c1", "c2", "c3"], "ana", VERDICTS_A, "01",
                 notes={("c1", 2): "only half of it", ("c2", 3): "=1+1 not in the block"},
                 states={"c1": ReviewState.DONE, "c2": ReviewState.IN_PROGRESS})


def session_b(tmp: Path, name: str = "b.citeview") -> Session:
    return build(tmp / name, ["c1", "c2", "c4"], "bo", VERDICTS_B, "02",
                 notes={("c1", 2): "says nothing about more days"},
                 states={"c1": ReviewState.DONE, "c2": ReviewState.DONE,
                         "c4": ReviewState.DONE})
