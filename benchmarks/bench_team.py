"""Benchmark: team review on a throwaway PostgreSQL cluster (issue 29).

    python benchmarks/bench_team.py [--cases 100000] [--reviewers 20] [--writes 60]
                                    [--pace 0.3,1.0] [--no-fsync]

1. A project of ``--cases`` cases (the sample cases repeated with new ids) is created on the
   server (``PgBackend.create_file``: cases copied in with COPY), beside the file session made
   from the same cases in the same run (``Session.create_file``).
2. One reviewer alone (the baseline, same run), then ``--reviewers`` processes at once, each
   through its outbox as the window does (``team_client.open_team_project``): take the next
   cases (``next_cases``, 3 ahead: the hand-out), judge each citation of the first
   (``put_annotation``: into the outbox file, then committed on the server; timed until it is
   acknowledged), mark it done; ``--writes`` verdicts each. A reviewer paces as a fast human
   does: a verdict every 0.3-1.0 s (``--pace``; uniform, a seed per reviewer), the pause not
   timed. Then the ``--reviewers`` again with no pause at all (a stress figure: every process
   writes back to back, on a machine whose cores they share with the server). Reported:
   median and p99 of a verdict write and of a hand-out. Targets (paced): verdict write
   median < 10 ms, p99 < 50 ms.
3. The project is exported (``citeview export``'s writer, JSON) beside the file session's
   export of the same cases and verdicts.

The cluster is started by ``tests/pg_cluster.py`` (``initdb`` in a temporary folder, a Unix
socket; as root it runs as ``nobody``) and removed at the end. It runs with fsync on
(PostgreSQL's defaults; ``synchronous_commit`` on: an acknowledged verdict is on disk), unlike
the test suite's; ``--no-fsync`` for the tests' setting.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import ms, percentile, wall_time  # noqa: E402

from citeview.core.cases import Case  # noqa: E402
from citeview.session.interchange import write_json  # noqa: E402
from citeview.session.store import Session  # noqa: E402

SAMPLES = ROOT / "tests" / "data" / "samples"


def many_cases(n: int) -> list[Case]:
    lines = [json.loads(x) for x in
             (SAMPLES / "policies.dataset.jsonl").read_text(encoding="utf-8").splitlines() if x]
    found = []
    for i in range(n):
        data = dict(lines[i % len(lines)])
        data["id"] = f"case-{i:06d}"
        found.append(Case.from_dict(data))
    return found


REVIEWER = r"""
import json, random, sys, time
from citeview.session.model import Annotation, CaseReview, ReviewState, citation_slots, now_iso
from citeview.session.team_client import open_team_project

address, who, writes, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
low, high = (float(x) for x in sys.argv[5].split(","))
pace = random.Random(who)
store = open_team_project(address, annotator=who, ahead=0)
labels = list(store.labels)
hand, put = [], []
sys.stdout.write("ready\n"); sys.stdout.flush()
sys.stdin.readline()  # everyone starts together
n = 0
while n < writes:
    t = time.perf_counter(); held = store.next_cases(3); hand.append(time.perf_counter() - t)
    if not held:
        break
    cid = held[0]
    for slot in citation_slots(store.analysed(cid)):
        for key in slot.keys(cid):
            if high > 0:
                time.sleep(pace.uniform(low, high))  # reading the claim and the source
            t = time.perf_counter()
            store.put_annotation(Annotation(key, who, labels[n % len(labels)], "", now_iso()))
            put.append(time.perf_counter() - t)
            assert store.waiting == 0  # acknowledged: committed on the server
            n += 1
    store.put_review(CaseReview(cid, who, ReviewState.DONE, None, "", now_iso()))
store.close()
json.dump({"hand": hand, "put": put}, open(out, "w"))
"""


def export(store: Any, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as out:
        write_json(store, out)


def review_round(cluster: Any, address: str, tmp: Path, reviewers: int, writes: int,
                 tag: str, pace: str) -> tuple[list[float], list[float], float]:
    """``reviewers`` processes (a role each, as a lead sets a team up) judging at once;
    (hand-out times, verdict write times, wall time)."""
    from citeview.session.pg.team import add_member

    env = dict(os.environ, PYTHONPATH=str(ROOT), CITEVIEW_DATA_DIR=str(tmp / "data"))
    procs = []
    for i in range(reviewers):
        who = f"{tag}{i:02d}"
        add_member(address, who)
        procs.append(subprocess.Popen(
            [sys.executable, "-c", REVIEWER, cluster.address("bench", user=who), who,
             str(writes), str(tmp / f"{who}.json"), pace], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, env=env))
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    t = time.perf_counter()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        assert p.wait(600) == 0
        assert p.stdin is not None and p.stdout is not None
        p.stdin.close()
        p.stdout.close()
    wall = time.perf_counter() - t
    hand: list[float] = []
    put: list[float] = []
    for i in range(reviewers):
        got = json.loads((tmp / f"{tag}{i:02d}.json").read_text())
        hand += got["hand"]
        put += got["put"]
    return hand, put, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--reviewers", type=int, default=20)
    parser.add_argument("--writes", type=int, default=60, help="verdicts per reviewer")
    parser.add_argument("--pace", default="0.3,1.0",
                        help="seconds between a reviewer's verdicts: LOW,HIGH (uniform)")
    parser.add_argument("--no-fsync", action="store_true",
                        help="the server without fsync (the tests' setting), for comparison")
    args = parser.parse_args()

    from tests.pg_cluster import remove_cluster, start_cluster, unavailable

    why = unavailable()
    if why:
        sys.exit(f"bench_team: {why}")
    from citeview.session.pg import PgBackend

    cases = many_cases(args.cases)
    tmp = Path(tempfile.mkdtemp(prefix="citeview-bench-team-"))
    cluster = start_cluster(durable=not args.no_fsync)
    try:
        address = cluster.address("bench")
        made_server = wall_time(lambda: PgBackend().create_file(address, cases, overlap=2))
        file_path = str(tmp / "bench.citeview")
        made_file = wall_time(lambda: Session.create_file(file_path, cases))
        print(f"create a {args.cases:,}-case project: server {made_server:.2f} s, "
              f"file session {made_file:.2f} s (same run)")

        print(f"server fsync {'off' if args.no_fsync else 'on'}, synchronous_commit on")
        # alone first: the baseline of the same run; then the team paced as people; then the
        # team with no pause (stress)
        for n, pace, how in ((1, args.pace, f"paced {args.pace} s"),
                             (args.reviewers, args.pace, f"paced {args.pace} s"),
                             (args.reviewers, "0,0", "no pause, stress")):
            tag = f"r{n}{'p' if pace != '0,0' else 's'}x"
            hand, put, wall = review_round(cluster, address, tmp, n, args.writes, tag, pace)
            print(f"{n} reviewer{'s' if n > 1 else ''} at once ({how}), {len(put)} verdicts in "
                  f"{wall:.1f} s: verdict write median {ms(statistics.median(put), 2)}, p99 "
                  f"{ms(percentile(put, 99), 2)} (targets < 10 ms, < 50 ms); next-case "
                  f"hand-out median {ms(statistics.median(hand), 2)}, p99 "
                  f"{ms(percentile(hand, 99), 2)}")

        # The same verdicts in the file session, then both exported.
        with PgBackend().open(address, readonly=True) as project, \
                Session.open(file_path, annotator="") as file:
            for ann in project.iter_annotations():
                file.put_annotation(ann)
            exp_server = wall_time(lambda: export(project, tmp / "server.json"))
            exp_file = wall_time(lambda: export(file, tmp / "file.json"))
        print(f"export (JSON) of the {args.cases:,}-case project: server {exp_server:.2f} s, "
              f"file session {exp_file:.2f} s (same run)")
    finally:
        remove_cluster(cluster)
        subprocess.run(["rm", "-rf", str(tmp)], check=False)


if __name__ == "__main__":
    main()
