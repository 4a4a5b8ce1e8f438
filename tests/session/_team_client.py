"""Child process for test_team_faults.py and benchmarks/bench_team.py: one reviewer judging the
cases the server hands out (3 ahead) through the outbox, until none are left.

``_team_client.py ADDRESS ANNOTATOR LOG SEED [PAUSE_S]``. After each verdict is written it
appends a JSON line to LOG (fsync'ed): ``saved`` when the server acknowledged it (nothing waits
in the outbox), ``queued`` when it waits in the outbox. While the server cannot be reached it
keeps judging the cases already handed out, then tries again every 0.1 s. Prints ``finished``
when the server has no case left for it and nothing waits.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

from citeview.session.errors import ServerUnreachable, SessionInUse
from citeview.session.model import Annotation, CaseReview, ReviewState, citation_slots, now_iso
from citeview.session.outbox import OutboxStore
from citeview.session.team_client import open_team_project


def _open(address: str, annotator: str) -> OutboxStore:
    """Open, waiting while the server is down at start or still holds the killed client's
    window; then take the window (this is the same reviewer)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return open_team_project(address, annotator=annotator,
                                     force=time.monotonic() > deadline - 25)
        except (ServerUnreachable, SessionInUse):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def main() -> None:
    address, annotator, log_path, seed = sys.argv[1:5]
    pause = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    rng = random.Random(int(seed))
    store = _open(address, annotator)
    labels = list(store.labels)
    log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (kept open: a line per verdict)

    def record(entry: dict[str, object]) -> None:
        log.write(json.dumps(entry) + "\n")
        log.flush()
        os.fsync(log.fileno())

    while True:
        if not store.online or store.waiting:
            store.retry()
        held = store.next_cases(3)
        todo = [c for c in held if store.review(c).state is not ReviewState.DONE]
        if not todo:
            if store.online and not store.waiting:
                break
            time.sleep(0.1)
            continue
        case_id = todo[0]
        for slot in citation_slots(store.analysed(case_id)):
            for key in slot.keys(case_id):
                verdict = rng.choice(labels)
                store.put_annotation(Annotation(key, annotator, verdict, "", now_iso(),
                                                slot.claim))
                record({"state": "queued" if store.waiting else "saved", "case_id": case_id,
                        "key": [key.number, key.anchor, key.source_id], "verdict": verdict})
                if pause:
                    time.sleep(pause)
        store.put_review(CaseReview(case_id, annotator, ReviewState.DONE, None, "", now_iso()))
    store.close()
    print("finished", flush=True)


if __name__ == "__main__":
    main()
