"""Child process for test_pg_routing.py: one reviewer taking cases from a project until the
server has none left for them, marking each done. Prints ``took CASE`` after each committed
review; with ``hold`` it takes one case, prints ``holding CASE`` and waits to be killed."""

from __future__ import annotations

import sys
import time

from citeview.session.model import CaseReview, ReviewState, now_iso
from citeview.session.pg import PgBackend


def main() -> None:
    address, mode = sys.argv[1], sys.argv[2]
    with PgBackend().open(address) as session:
        if mode == "hold":
            held = session.next_cases(1)
            print("holding", held[0], flush=True)
            time.sleep(600)
            return
        while True:
            held = session.next_cases(1)
            if not held:
                break
            case_id = held[0]
            session.put_review(CaseReview(case_id, session.annotator, ReviewState.DONE,
                                          None, "", now_iso()))
            print("took", case_id, flush=True)
    print("finished", flush=True)


if __name__ == "__main__":
    main()
