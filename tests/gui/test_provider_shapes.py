"""Issue 28's provider shapes open in the window: each fixture shows one chip per citation,
in reading order, and a click on a chip shows its source."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled
from citeview.gui.review_session import ANNOTATOR_KEY

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")
DATA = Path(__file__).parent.parent / "data" / "providers"
CHIPS = {"assistants-thread-message.json": 3, "azure-agents-messages.json": 1,
         "xai-responses.json": 2, "cohere-chat.json": 2, "perplexity-chat.json": 3,
         "gemini-interactions.json": 2, "gemini-interactions-steps.json": 2,
         "bedrock-converse-citations.json": 3, "bedrock-converse.exchange.json": 2,
         "vertex-citation-metadata.json": 2, "anthropic-web-fetch.json": 1,
         "lint/cv610.json": 3, "lint/cv611.json": 2}
SOURCES = {"assistants-thread-message.json": "file-policy", "azure-agents-messages.json": "url0",
           "xai-responses.json": "url0", "cohere-chat.json": "doc0",
           "perplexity-chat.json": "result1", "gemini-interactions.json": "src0",
           "gemini-interactions-steps.json": "src0",
           "bedrock-converse-citations.json": "doc0", "bedrock-converse.exchange.json": "doc0",
           "vertex-citation-metadata.json": "cite0",
           "anthropic-web-fetch.json": "fetch0", "lint/cv610.json": "doc0",
           "lint/cv611.json": "url0"}


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("shapes")
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "ana")
    win = MainWindow(settings=settings)
    win.resize(1200, 800)
    win.show()
    yield win
    win.close()
    win.deleteLater()


@pytest.mark.parametrize("name", sorted(CHIPS))
def test_each_new_shape_opens_with_a_chip_per_citation(qtbot, window, name: str) -> None:
    win = window
    assert win.open_path(str(DATA / name))
    qtbot.waitUntil(lambda: is_settled(win) and win.view is not None, timeout=10000)
    assert win.view is not None
    assert win.answer.chip_count() == CHIPS[name]
    assert [win.answer.chip_text(i).lstrip("~").rstrip("!")[:1] for i in range(CHIPS[name])] \
        == [str(n) for n in range(1, CHIPS[name] + 1)]
    # The first citation's first source is the one the provider named.
    assert win.view.citations[0].citation.source_ids[0] == SOURCES[name]
    if win.review_session.session is not None:
        win.review_session.close()
