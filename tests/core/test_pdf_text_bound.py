"""PDF page text is read within a bound (issue 31, item 5): a page whose content stream holds
too many text operators is "not checked" (CV608, saying why) instead of a stall; the pages
around it are read and checked as before. The PDF is made by ``make_hostile_pdf.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pypdf = pytest.importorskip("pypdf")

from make_hostile_pdf import NORMAL, exchange, heavy_pdf  # noqa: E402

from citeview.cli import main  # noqa: E402
from citeview.core.providers import pdf  # noqa: E402
from citeview.core.providers.pdf import pdf_page_texts  # noqa: E402


@pytest.fixture
def extracted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The page numbers whose text pypdf was asked to extract."""
    calls: list[int] = []
    real = pypdf.PageObject.extract_text

    def extract_text(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(self.page_number + 1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pypdf.PageObject, "extract_text", extract_text)
    return calls


def test_a_page_with_200k_text_operators_is_not_parsed(extracted: list[int]) -> None:
    found = pdf_page_texts(heavy_pdf(100_000))
    assert found.ok and found.unread == frozenset({1})
    assert found.pages[0] == "" and NORMAL[0] in found.pages[1]
    assert extracted == [2]  # the heavy page's content stream was never handed to pypdf


def test_a_normal_page_is_still_read(extracted: list[int]) -> None:
    found = pdf_page_texts(heavy_pdf(200))  # 400 operators: a page of text
    assert found.unread == frozenset() and "w199" in found.pages[0]
    assert extracted == [1, 2]


def test_the_whole_document_has_a_budget_too(extracted: list[int],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Many pages each under the page bound stop being read once they add up past the
    document's."""
    monkeypatch.setattr(pdf, "MAX_PAGE_TOKENS", 1_000)
    monkeypatch.setattr(pdf, "MAX_DOCUMENT_TOKENS", 2_500)
    from _pdf import make_pdf

    pages = [[f"p{n} line {i}" for i in range(100)] for n in range(6)]
    found = pdf_page_texts(make_pdf(pages))
    assert len(extracted) < 6 and found.unread == frozenset(range(len(extracted) + 1, 7))
    assert all(found.pages[n - 1] for n in extracted)


def test_the_heavy_page_is_cv608_and_the_other_is_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "heavy.json"
    path.write_text(json.dumps(exchange(heavy_pdf(100_000))), encoding="utf-8")
    assert main(["resolve", "--json", str(path)]) == 0
    heavy, normal = json.loads(capsys.readouterr().out)
    (target,) = heavy["targets"]
    assert target["status"] == "unchecked" and "too much text to read" in target["detail"]
    assert normal["targets"][0]["status"] == "ok"
    assert main(["lint", "--select", "CV608", str(path)]) == 0
    (finding,) = [line for line in capsys.readouterr().out.splitlines() if ": CV608 " in line]
    assert "page 1 has too much text to read" in finding
