"""Child process for test_crash.py: writes annotations in a loop, printing each number after its
transaction has committed, until it is killed."""

from __future__ import annotations

import sys

from citeview.session.model import Annotation, AnnotationKey, CaseReview, ReviewState
from citeview.session.store import Session


def main() -> None:
    path, start = sys.argv[1], int(sys.argv[2])
    session = Session.open(path, annotator="writer")
    print("ready", flush=True)
    i = start
    while True:
        key = AnnotationKey("c", i, "\ue200cite\ue202f0\ue201", "f0")
        session.put_annotation(Annotation(key, "writer", "supported", f"note {i} ✓", f"t{i}"))
        if i % 7 == 0:  # a second kind of row, so case reviews are exercised too
            session.put_review(CaseReview("c", "writer", ReviewState.IN_PROGRESS, None,
                                          f"case note {i}", f"t{i}"))
        print(i, flush=True)
        i += 1


if __name__ == "__main__":
    main()
