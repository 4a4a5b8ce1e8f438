"""Export, report and agree write, byte for byte, what they wrote before they streamed (issue
26): outputs recorded on 2026-12-02 from the implementation of the time, for sessions of every
kind of case (tests/session/_golden.py), in one process and in several."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from _golden import AGREE, COMMANDS, GOLDEN, normalised, sessions

from citeview.cli import main
from citeview.session import Annotation, AnnotationKey, Session


def _outputs(tmp: Path, extra: list[str]) -> dict[str, bytes]:
    paths = sessions(tmp)
    todo = [(f.format(name=n), [a.format(path=p) for a in argv])
            for n, p in paths.items() for f, argv in COMMANDS]
    todo += [(f, [a.format(a=paths["a"], b=paths["b"]) for a in argv]) for f, argv in AGREE]
    got = {}
    for fname, argv in todo:
        out = tmp / f"out-{fname}"
        # --jobs is for the commands that analyse cases (not agree, not a whole-session json)
        whole = argv[0] == "agree" or argv[:1] + argv[-2:] == ["export", "--format", "json"]
        jobs = [] if whole else extra
        assert main([*argv, *jobs, "-o", str(out)]) == 0
        got[fname] = normalised(out.read_bytes(), tmp)
    return got


@pytest.mark.parametrize("jobs", [[], ["--jobs", "1"], ["--jobs", "3"]])
def test_outputs_equal_the_ones_recorded_before_streaming(tmp_path: Path,
                                                          jobs: list[str]) -> None:
    got = _outputs(tmp_path, jobs)
    assert sorted(got) == sorted(p.name for p in GOLDEN.iterdir())
    for name, data in got.items():
        assert data == (GOLDEN / name).read_bytes(), name


def _many(tmp: Path, n: int) -> Path:
    """A session of ``n`` cases: the mixed session's cases again and again under new ids, with
    its verdicts (so the annotations and reviews of many cases pass through the workers)."""
    src = sessions(tmp)["mixed"]
    path = tmp / f"many-{n}.citeview"
    with Session.open(str(src), readonly=True) as s:
        ids = s.case_ids()
        cases = [s.get_case(ids[k % len(ids)]) for k in range(n)]
        data = s.conn.execute("SELECT case_id, annotator, number, raw, source_id, verdict, "
                              "note, timestamp, claim FROM annotations").fetchall()
    copies = [replace(c, id=f"{c.id}#{k}") for k, c in enumerate(cases)]
    with Session.create(str(path), copies, annotator="ana") as out:
        for k, c in enumerate(cases):
            for cid, who, num, raw, sid, verdict, note, stamp, claim in data:
                if cid == c.id:
                    out.put_annotation(Annotation(AnnotationKey(f"{cid}#{k}", num, raw, sid),
                                                  who, verdict, note, stamp, claim))
    return path


@pytest.mark.parametrize("fmt", [["export", "--format", "jsonl"], ["export", "--format", "csv"],
                                 ["report", "--format", "json"]])
def test_several_processes_write_the_same_bytes_as_one(tmp_path: Path, fmt: list[str]) -> None:
    path = _many(tmp_path, 150)  # three tasks of 64 cases for the workers
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out-{jobs}"
        assert main([fmt[0], str(path), *fmt[1:], "--jobs", jobs, "-o", str(out)]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert outs[0].count(b"\n") > 150
