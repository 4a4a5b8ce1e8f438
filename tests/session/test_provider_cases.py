"""Review, export, report, agree and merge on cases whose citations are a provider's
annotations: the same numbering (the analysed case's), keys with ``KIND@START-END`` anchors."""

from __future__ import annotations

from pathlib import Path

from citeview.core.inputs import load_input
from citeview.session import Annotation, Session, case_citations
from citeview.session.agree import compare
from citeview.session.interchange import export_document, import_document
from citeview.session.merge import merge_sessions
from citeview.session.report import summarize
from citeview.session.rows import iter_rows

DATA = Path(__file__).parent.parent / "data" / "providers"
FILES = ["anthropic-char.json", "gemini-web.json", "responses-file.json", "anthropic-web.json"]
SUP, UNS = "supported", "unsupported"


def cases() -> list:
    return [load_input(str(DATA / name)).get(0) for name in FILES]


def build(path: Path, annotator: str, verdicts: dict[str, list[str]], day: str) -> Session:
    s = Session.create(str(path), cases(), annotator=annotator)
    for cid, vs in verdicts.items():
        slots = case_citations(s.get_case(cid))
        for slot, verdict in zip(slots, vs, strict=False):
            for key in slot.keys(cid):
                s.put_annotation(Annotation(key, annotator, verdict, "",
                                            f"2026-02-{day}T10:00:00.000Z", slot.claim))
    return s


def test_keys_rows_and_report(tmp_path: Path) -> None:
    with build(tmp_path / "a.citeview", "ana",
               {"anthropic-char": [SUP, UNS], "gemini-web": [SUP, SUP, UNS]}, "01") as s:
        slots = case_citations(s.get_case("anthropic-char"))
        assert [(x.number, x.anchor, x.claim) for x in slots] == [
            (1, "char_location@60-60", "Staff get 25 days of paid leave a year"),
            (2, "char_location@147-147", "Flights need a manager's written approval.")]
        rows = [r for r in iter_rows(s) if r.case_id == "anthropic-char"]
        assert [(r.number, r.source_id, r.status, r.verdict, r.anchor, r.source_kind)
                for r in rows] == [
            (1, "doc0", "ok", SUP, "char_location@60-60", "document"),
            (2, "doc1", "ok", UNS, "char_location@147-147", "document")]
        assert rows[0].cited_text == "Staff receive 25 days of paid leave per year."
        assert rows[0].claim == "Staff get 25 days of paid leave a year"
        gemini = [r for r in iter_rows(s) if r.case_id == "gemini-web"]
        # Citation 2 cites two chunks: one row (and one verdict) per source.
        assert [(r.number, r.source_id, r.verdict) for r in gemini] == [
            (1, "chunk0", SUP), (2, "chunk1", SUP), (2, "chunk0", SUP), (3, "chunk2", UNS)]
        report = summarize(s)
        assert report["citations"]["markers"] == 2 + 3 + 2 + 2
        assert report["recall"]  # sentences and their citations are counted


def test_export_import_agree_and_merge(tmp_path: Path) -> None:
    a = build(tmp_path / "a.citeview", "ana", {"gemini-web": [SUP, SUP, UNS]}, "01")
    b = build(tmp_path / "b.citeview", "bo", {"gemini-web": [SUP, UNS, UNS]}, "02")
    with a, b:
        ag = compare(a, b)
        assert ag.pairs == [(SUP, SUP), (SUP, UNS), (SUP, UNS), (UNS, UNS)]
        merged, _ = merge_sessions(a, b, str(tmp_path / "c.citeview"))
        exported = export_document(a)
    with merged:
        key = case_citations(merged.get_case("gemini-web"))[1].keys("gemini-web")[0]
        assert (merged.annotation(key, "ana").verdict, merged.annotation(key, "bo").verdict) \
            == (SUP, UNS)
    with import_document(exported, str(tmp_path / "again.citeview")) as again:
        assert [x.verdict for x in again.annotations("gemini-web")] == [SUP, SUP, SUP, UNS]
        assert not any(x.orphaned for x in again.annotations())


def test_the_text_report_does_not_call_provider_citations_markers(tmp_path: Path) -> None:
    """A provider's citations have no marker: the report's text counts them as citations in
    the answers (the JSON keeps its "markers" key)."""
    import subprocess
    import sys

    build(tmp_path / "a.citeview", "ana", {"anthropic-char": [SUP]}, "01").close()
    out = subprocess.run([sys.executable, "-m", "citeview", "report", str(tmp_path / "a.citeview")],
                         check=True, capture_output=True, text=True).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("Citations:"))
    assert line.startswith("Citations: 9 in the answers, 10 cited sources"), line
    assert "markers" not in line
