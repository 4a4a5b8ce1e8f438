"""Fixtures for widget tests: a shown source pane and the samples resolved by the real core."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.cases import Case
from citeview.core.markers import scan
from citeview.core.material import Material, case_material
from citeview.core.resolution import Resolution, resolve

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def resolved_sample(name: str) -> tuple[Case, Material, list[Resolution]]:
    """A sample case, its material and its citations resolved, in reading order."""
    data = json.loads((SAMPLES / name).read_text(encoding="utf-8"))
    case = Case.from_dict(data, name)
    material = case_material(case)
    citations = scan(case.answer, known_ids=[s.id for s in material.sources]).citations
    return case, material, resolve(citations, material)


@pytest.fixture
def source_view(qtbot):  # type: ignore[no-untyped-def]
    from citeview.gui.source_view import QSourceView

    view = QSourceView()
    qtbot.addWidget(view)
    view.resize(640, 420)
    view.show()
    qtbot.waitExposed(view)
    return view
