"""Evidence and a corrected locator in a real X server (Xvfb; mouse and keys through
xdotool): the evidence dragged with the mouse and the locator fixed with the keyboard alone
are in the session, read back as ``citeview export`` writes them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import load_sample
from tests.gui.conftest import THREE
from tests.gui.xserver import xvfb

pytestmark = [pytest.mark.slow, pytest.mark.own_x]


def test_evidence_marked_with_the_mouse_and_a_locator_fixed_with_the_keyboard(
        tmp_path: Path) -> None:
    data = tmp_path / "three.jsonl"
    data.write_text("".join(json.dumps(load_sample(f"{n}.case.json")) + "\n" for n in THREE),
                    encoding="utf-8")
    root = Path(__file__).parent.parent.parent
    with xvfb("1280x800") as display:
        env = {k: v for k, v in os.environ.items() if k != "XAUTHORITY"}
        env.update(DISPLAY=display, QT_QPA_PLATFORM="xcb", HOME=str(tmp_path),
                   XDG_CONFIG_HOME=str(tmp_path / ".config"),
                   CITEVIEW_DATA_DIR=str(tmp_path / "data"),
                   PYTHONPATH=os.pathsep.join([str(root), *sys.path]))
        done = subprocess.run([sys.executable, "-m", "tests.gui.x_mark_evidence", str(data),
                               str(tmp_path / "settings.ini")], env=env, capture_output=True,
                              text=True, timeout=120, cwd=root)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["case"] == THREE[0] and seen["active"] == 1, seen
    line4 = tuple(seen["line4"])
    # What the window showed: the dragged line as evidence, the corrected chip marked.
    assert tuple(seen["selected"]) == line4, seen
    assert [tuple(s) for s in seen["evidence_shown"]] == [line4], seen
    assert seen["chip"].endswith("\u00b1"), seen

    out = subprocess.run([sys.executable, "-m", "citeview", "export",
                          str(data.with_suffix(".citeview")), "--format", "json"],
                         capture_output=True, text=True, check=True, cwd=root)
    doc = json.loads(out.stdout)
    [ev] = doc["evidence"]
    assert (ev["case_id"], ev["number"], ev["source_id"], ev["annotator"]) == (
        THREE[0], 2, "turn0file0", "qa")
    assert (ev["start"], ev["end"]) == line4
    assert (ev["first_line"], ev["last_line"]) == (4, 4)
    assert ev["text"] == "Remote work requests are submitted through the HR portal."
    [fix] = doc["corrections"]
    assert (fix["case_id"], fix["kind"], fix["number"], fix["locator"]) == (
        THREE[0], "relocate", 2, "L4-L5"), fix
    # The corrected answer: the second citation now cites L4-L5.
    out = subprocess.run([sys.executable, "-m", "citeview", "export",
                          str(data.with_suffix(".citeview")), "--format", "corrections",
                          "--shape", "pairs"], capture_output=True, text=True, check=True,
                         cwd=root)
    [pair] = [json.loads(line) for line in out.stdout.splitlines()]
    assert pair["case_id"] == THREE[0]
    assert "\ue200cite\ue202turn0file0\ue202L4-L5\ue201" in pair["chosen"][0]["content"]
    assert "\ue200cite\ue202turn0file0\ue202L2-L5\ue201" in pair["rejected"][0]["content"]
