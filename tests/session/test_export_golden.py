"""Export, report and agree write, byte for byte, what they wrote before they streamed (issue
26): outputs recorded on 2026-12-02 from the implementation of the time, for sessions of every
kind of case (tests/session/_golden.py), in one process and in several."""

from __future__ import annotations

from pathlib import Path

import pytest
from _golden import AGREE, COMMANDS, GOLDEN, normalised, sessions

from citeview.cli import main


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
