"""Two reviewers' windows on one team project, each on a real X server (Xvfb, keys through
xdotool), both at once; the lead's ``citeview team status`` shows the work of both while their
windows are open, and each window's status bar says its verdicts are saved on the server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.gui.conftest import reviewer_home
from tests.gui.xserver import App, xvfb

pytestmark = [pytest.mark.slow, pytest.mark.own_x]

DATASET = Path(__file__).parents[1] / "data" / "samples" / "policies.dataset.jsonl"
ROOT = Path(__file__).parents[2]


def team_status(address: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "citeview", "team", "status", address,
                          "--format", "json"], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)
    assert out.returncode == 0, out.stderr
    found: dict[str, Any] = json.loads(out.stdout)
    return found


def judged_by(status: dict[str, Any]) -> dict[str, int]:
    return {r["name"]: r["judged"] for r in status["reviewers"]}


def test_two_reviewer_windows_on_one_project_and_the_leads_status_shows_both(
        tmp_path: Path, pg: Any) -> None:
    from citeview.core.inputs import load_input
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member

    lead = pg.address("xteam")
    PgBackend().create_file(lead, load_input(str(DATASET)), overlap=2)
    for who in ("ana", "ben"):
        add_member(lead, who)
    with ExitStack() as stack:
        apps = []
        for who in ("ana", "ben"):
            display = stack.enter_context(xvfb("1280x800"))
            home = reviewer_home(tmp_path / who, who)
            app = App(display, home, pg.address("xteam", user=who))
            stack.callback(app.quit)
            apps.append(app)
        for app in apps:
            app.wait(lambda a=app: a.title().startswith("handbook-line-level"), timeout=40,
                     what="the first case")
        time.sleep(0.8)  # the reviewer reads the case
        apps[0].key("1")  # ana: supported
        apps[1].key("3")  # ben: unsupported
        deadline = time.monotonic() + 20
        while judged_by(team_status(lead)) != {"ana": 1, "ben": 1}:
            assert time.monotonic() < deadline, team_status(lead)
            time.sleep(0.3)
        status = team_status(lead)
        assert {r["name"] for r in status["reviewers"]} >= {"ana", "ben"}
    with PgBackend().open(lead, readonly=True) as project:
        assert sorted((a.annotator, a.verdict) for a in project.annotations()) == [
            ("ana", "supported"), ("ben", "unsupported")]
