"""citeview screenshot: a PNG of the window and the state read back from the widgets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from citeview.cli import main
from tests.conftest import SAMPLES

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")

TRANSIT = str(SAMPLES / "transit-multi-turn.case.json")


def shoot(capsys, *args: str) -> dict:
    assert main(["screenshot", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_transit_click_each_chip(qapp, capsys, tmp_path: Path) -> None:
    expected = {  # chip -> (chip text, source, first, last, claim start)
        1: ("1", "turn0search0", "L1", "L2", "Single-ride fares go from $2.75"),
        2: ("2+1", "turn0search1", "L1", "L2", "It is the first increase since 2019"),
        3: ("3", "turn0search1", "L2", "L2", "Rider groups objected to the timing."),
        4: ("4", "turn1news0", "L1", "L1", "Rider groups objected to the timing."),
    }
    for n, (chip, sid, first, last, claim) in expected.items():
        out = tmp_path / f"click{n}.png"
        state = shoot(capsys, TRANSIT, "--click", str(n), "--size", "1200x700", "--out", str(out))
        assert (state["active_citation"], state["chip"], state["source_id"]) == (n, chip, sid)
        assert (state["first_line"], state["last_line"]) == (first, last)
        assert state["claim"].startswith(claim)
        image = QImage(str(out))
        assert (image.width(), image.height()) == (1200, 700)
    assert state["highlighted_text"] == (
        "The council approved the transit budget, including the fare change, by a 7-2 vote.")


def test_demo_without_click_has_the_first_citation_active(qapp, capsys, tmp_path) -> None:
    state = shoot(capsys, "--demo", "--out", str(tmp_path / "demo.png"))
    assert state["case"] == "demo-line-level"
    assert state["active_citation"] == 1
    assert state["highlighted_text"].startswith("Bikes can be unlocked")


def test_raw_view_and_case_selection(qapp, capsys, tmp_path) -> None:
    state = shoot(capsys, "--demo", "--case", "demo-rule-breaking", "--click", "3", "--raw",
                  "--out", str(tmp_path / "raw.png"))
    assert state["raw"] is True
    assert state["source_missing"] is True and state["source_id"] is None
    assert state["chip"].endswith("!")


@pytest.mark.parametrize("args, message", [
    (["--click", "9"], "has 4 citations"),
    (["--click", "0"], "from 1"),
    (["--case", "nope"], "no case with id"),
])
def test_bad_requests_exit_2_with_one_line(qapp, capsys, tmp_path, args, message) -> None:
    assert main(["screenshot", TRANSIT, *args, "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "x.png").exists()


def test_input_or_demo_is_required(qapp, capsys, tmp_path) -> None:
    assert main(["screenshot", "--out", str(tmp_path / "x.png")]) == 2
    assert "INPUT" in capsys.readouterr().err


def test_a_session_shows_its_verdicts(qapp, capsys, tmp_path) -> None:
    from citeview.core.inputs import load_input
    from citeview.session.edits import set_verdict
    from citeview.session.model import case_citations
    from citeview.session.store import Session

    with Session.create(str(tmp_path / "t.citeview"), load_input(TRANSIT), annotator="ana") as s:
        case = s.get_case(s.case_ids()[0])
        slot = case_citations(case)[2]
        set_verdict(s, slot.keys(case.id)[0], "unsupported")
    state = shoot(capsys, str(tmp_path / "t.citeview"), "--click", "3",
                  "--out", str(tmp_path / "s.png"))
    assert state["active_citation"] == 3 and state["chip"] == "3\u2717"
    assert state["verdict"] == "unsupported"
    assert "Citations judged 1/4" in state["progress"]
    state = shoot(capsys, str(tmp_path / "t.citeview"), "--click", "1",
                  "--out", str(tmp_path / "s.png"))
    assert state["verdict"] is None


def test_json_says_the_cited_span_is_on_screen_when_its_lines_wrap(qapp, capsys,
                                                                   tmp_path: Path) -> None:
    """Issue #24: the span was highlighted below the pane's bottom while the read-back said
    "highlighted"; the JSON now reads the viewport's geometry."""
    marker = "\ue200cite\ue202turn0file0\ue201"
    long = " ".join(["the line goes on about the policy and its appendix"] * 6)
    material = f"Citation Marker: {marker}\nTitle: Wrapped\n\n" + "\n".join(
        f"[L{k}] line {k}: {long}" for k in range(1, 301))
    answer = " ".join(f"Claim {loc}\ue200cite\ue202turn0file0\ue202{loc}\ue201."
                      for loc in ("L300", "L150-L151", "L2"))
    case = tmp_path / "wrapped.case.json"
    case.write_text(json.dumps({"id": "wrapped", "answer": answer, "tool_outputs": [material]}),
                    encoding="utf-8")
    for size in ("1024x700", "1400x860", "1920x1000"):
        for n, (first, last) in enumerate((("L300", "L300"), ("L150", "L151"), ("L2", "L2")), 1):
            state = shoot(capsys, str(case), "--click", str(n), "--size", size,
                          "--out", str(tmp_path / "w.png"))
            assert (state["first_line"], state["last_line"]) == (first, last)
            assert state["span_in_view"] is True, (size, n)
            top, bottom = (int(label[1:]) for label in state["visible_lines"])
            assert top <= int(first[1:]) and int(last[1:]) <= bottom, (size, n, state)
