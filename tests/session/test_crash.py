"""A writer killed with SIGKILL at random moments never loses a committed annotation nor
damages the session."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeview.core.cases import Case
from citeview.session import AnnotationKey, Session

WRITER = Path(__file__).with_name("_crash_writer.py")
ROUNDS = 14


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_while_writing_never_loses_a_returned_write(tmp_path: Path) -> None:
    path = str(tmp_path / "crash.citeview")
    Session.create(path, [Case("c", "Claim.\ue200cite\ue202f0\ue201")]).close()
    rng = random.Random(1234)
    confirmed: set[int] = set()
    next_number = 1
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for round_no in range(ROUNDS):
        with subprocess.Popen([sys.executable, str(WRITER), path, str(next_number)],
                              stdout=subprocess.PIPE, text=True, env=env) as child:
            assert child.stdout is not None
            if round_no % 5 == 4:
                # Now and then kill it early: while it starts, opens and takes the lock.
                time.sleep(rng.uniform(0.0, 0.3))
            else:
                assert child.stdout.readline().strip() == "ready"
                time.sleep(rng.uniform(0.0, 0.25))
            child.send_signal(signal.SIGKILL)
            out, _ = child.communicate()
            assert child.returncode == -signal.SIGKILL
        printed = [int(line) for line in out.split() if line.isdigit()]
        confirmed.update(printed)
        next_number = max([next_number - 1, *printed]) + 1
        with Session.open(path, annotator="checker") as s:  # the dead writer's lock is stale
            assert s.integrity_check() == "ok"
            stored = {a.key.number: a for a in s.annotations("c", annotator="writer")}
            missing = confirmed - stored.keys()
            assert not missing, f"round {round_no}: lost committed writes {sorted(missing)[:5]}"
            for n in printed:
                assert stored[n].note == f"note {n} ✓"
            key = AnnotationKey("c", 1, "\ue200cite\ue202f0\ue201", "f0")
            assert (s.annotation(key, "writer") is not None) == (1 in stored)
    assert len(confirmed) > ROUNDS  # the writers did get to write
