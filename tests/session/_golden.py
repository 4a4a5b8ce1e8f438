"""Sessions whose exports were recorded before export, report and agree streamed (issue 26):
the outputs in tests/data/export-golden/ are what the implementation of 2026-12-02 wrote for
them, byte for byte, and every later implementation must write the same."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from _review_cases import session_a, session_b

from citeview.core.inputs import load_input
from citeview.session import Annotation, CaseReview, ReviewState, Session, case_citations

DATA = Path(__file__).parent.parent / "data"
GOLDEN = DATA / "export-golden"
# Inputs of every kind the sessions hold: sample cases, providers' responses (citations read
# from the payload), a recorded stream, hostile edge cases.
INPUTS = [
    "samples/policies.dataset.jsonl", "samples/handbook-rule-breaking.case.json",
    "samples/contract-block-level.case.json", "samples/transit-multi-turn.case.json",
    "providers/chat-completion.json", "providers/anthropic-char.json",
    "providers/anthropic-pages.json", "providers/openai-responses.web-search.json",
    "providers/gemini.grounding.json", "providers/exchanges.jsonl",
    "providers/cohere-chat.json", "providers/perplexity-chat.json",
    "streams/openai-responses.sse", "streams/anthropic-messages.sse",
]
# Session files kept in tests/data/sessions (older schemas are brought up to date in memory).
FILES = ["provider-window", "v010-api", "v010-window", "pre-wild"]
VERDICTS = ("supported", "partially supported", "unsupported", "cannot tell")


def mixed_session(path: Path) -> Session:
    """A session of :data:`INPUTS`' cases, with verdicts on every other citation source by two
    annotators (one of them twice: a newer verdict), notes with formula triggers and a done
    review."""
    cases = []
    for name in INPUTS:
        cases.extend(load_input(str(DATA / name)).iter_cases())
    seen: set[str] = set()
    unique = [c for c in cases if not (c.id in seen or seen.add(c.id))]  # type: ignore[func-returns-value]
    session = Session.create(str(path), unique, annotator="ana")
    k = 0
    for cid in session.case_ids():
        for slot in case_citations(session.get_case(cid)):
            for key in slot.keys(cid):
                k += 1
                if k % 2:
                    continue
                verdict = VERDICTS[k % len(VERDICTS)]
                note = "=SUM(A1)" if k % 5 == 0 else f"note {k}"
                session.put_annotation(Annotation(key, "ana", verdict, note,
                                                  f"2026-01-01T10:{k % 60:02d}:00.000Z",
                                                  slot.claim))
                if k % 3 == 0:
                    session.put_annotation(Annotation(key, "bo", VERDICTS[(k + 1) % 4], "",
                                                      "2026-01-02T10:00:00.000Z", slot.claim))
        if k % 4 == 0:
            session.put_review(CaseReview(cid, "ana", ReviewState.DONE,
                                          timestamp="2026-01-03T11:00Z"))
    return session


def sessions(tmp: Path) -> dict[str, Path]:
    """Every golden session, made or copied under ``tmp`` (closed), by name."""
    out: dict[str, Path] = {}
    for name, make in (("mixed", mixed_session), ("a", session_a), ("b", session_b)):
        path = tmp / f"{name}.citeview"
        make(path).close() if make is mixed_session else make(tmp, path.name).close()
        out[name] = path
    for name in FILES:
        path = tmp / f"{name}.citeview"
        shutil.copyfile(DATA / "sessions" / f"{name}.citeview", path)
        out[name] = path
    return out


# (output file name, argv after "citeview" with {name} for the session path, {b} for b's)
COMMANDS = [
    ("{name}.jsonl", ["export", "{path}", "--format", "jsonl"]),
    ("{name}.csv", ["export", "{path}", "--format", "csv"]),
    ("{name}.json", ["export", "{path}", "--format", "json"]),
    ("{name}.report.json", ["report", "{path}", "--format", "json"]),
    ("{name}.report.txt", ["report", "{path}"]),
]
AGREE = [("agree.a-b.json", ["agree", "{a}", "{b}", "--format", "json"]),
         ("agree.a-b.txt", ["agree", "{a}", "{b}"])]


def normalised(data: bytes, tmp: Path) -> bytes:
    """An output with what differs between runs made fixed: the sessions' folder and the
    moment a session was made."""
    data = data.replace(str(tmp).encode(), b"{tmp}")
    return re.sub(rb'"created":"[0-9T:.Z-]+"', b'"created":"{created}"', data)
