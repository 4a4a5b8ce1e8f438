"""Beyond a verdict (issue 30): evidence spans, error reasons and corrected citations, each a
key in the Review menu (and so on the shortcut sheet) and an edit on the review's undo stack.

With a citation active:

- E marks the text selected in the source pane (mouse, or Shift+arrows) as evidence for the
  shown source; Shift+E removes the evidence under the source's caret (else the last marked).
  Evidence shows in its own colour, beside the cited span's.
- R opens the reason picker: number keys tick the session's reasons (several per verdict);
  keys typed before it appeared never tick one.
- L cites the lines selected in the source pane instead (a provider's citation: the selected
  characters); S cites the source shown in the source pane (chosen in the sources list)
  instead, its selected lines or the whole of it; Delete says the citation should go.
- A adds a citation to the claim selected in the answer (rendered or raw): the source shown in
  the source pane, its selected lines.
- W rewords the words selected in the answer (prose outside markers; rendered or raw): a small
  dialog holds them, editable; Enter keeps the new wording (selecting a reworded span again
  edits its reword). The rendered answer shows the new words after the old ones, as plain
  text marked with a pencil in amber (:meth:`ReviewMarks.show_added`); undo takes it back.

Corrections are stored beside the case (never by changing the answer); a corrected chip
carries a mark and its tooltip says what changed; Review > Corrections of This Case lists them.
A citation added with A is a chip of its own in the rendered answer (plain text, "+ id L9",
pale green, dashed underline) at the end of its claim; clicking it shows its source with its
lines highlighted; undo takes it away (:meth:`ReviewMarks.show_added`).

Keys pressed while a case is still loading: R and Delete (the active citation's, as verdict
keys) are kept for it; E, Shift+E, L, S, A and W need a selection in the shown case, so the status
bar says they were not applied.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow

from citeview.core.corrections import (
    Correction,
    CorrectionKind,
    added_target,
    apply_corrections,
    fits,
    lines_of_span,
    locator_of,
    reword_problem,
)
from citeview.core.errors import InputError
from citeview.core.material import SourceLines
from citeview.core.placement import SENTENCE_PUNCTUATION
from citeview.gui import dialogs, message
from citeview.gui.side_by_side import build_map
from citeview.gui.tables import CitationsModel, locator_text, one_line, widen_to_fit
from citeview.session.edits import (
    add_citation_edit,
    annotation_edit,
    change_source_edit,
    evidence_edit,
    relocate_edit,
    remove_citation_edit,
    remove_evidence_edit,
    reword_edit,
)
from citeview.session.events import Change, CorrectionChanged, EvidenceChanged
from citeview.session.model import AnnotationKey, Evidence, annotation_key

if TYPE_CHECKING:
    from citeview.core.material import Source
    from citeview.gui.panes import Panes
    from citeview.gui.review import ReviewController
    from citeview.gui.side_by_side import PositionMap
    from citeview.gui.state import CaseView, CitationView
    from citeview.gui.window_state import WindowState
    from citeview.session.protocol import ReviewStore

#: Keys of the gestures (the Review menu shows them; the shortcut sheet is made from it).
EVIDENCE_KEY, REMOVE_EVIDENCE_KEY, REASONS_KEY = "E", "Shift+E", "R"
RELOCATE_KEY, SOURCE_KEY, REMOVE_KEY, ADD_KEY = "L", "S", "Delete", "A"
REWORD_KEY = "W"
CLIP = 60  # characters of a claim or a reword's words a one-line description quotes


def touched_lines(source: Source, span: tuple[int, int]) -> tuple[int, int] | None:
    """The [L#] labels of the first and last line ``span`` (code points of ``source.text``)
    touches (core's :func:`~citeview.core.corrections.lines_of_span`), None when it touches
    none. Core looks at each line it is given: it is given the lines near the span only (found
    by bisection; a 200,000-line source took a quarter second a key press)."""
    lines = source.lines
    if not lines:
        return None
    starts = lines.starts if isinstance(lines, SourceLines) else [ln.start for ln in lines]
    a, b = span
    first = max(bisect_left(starts, a) - 1, 0)  # the line holding a, or the one before it
    last = bisect_left(starts, max(b, a + 1)) + 1
    found = lines_of_span(lines[first:last], a, b)
    return None if found == (0, 0) else found


def describe(correction: Correction) -> str:
    """One line saying what a correction changes."""
    where = (correction.locator or
             (f"characters {correction.target[0]}\u2013{correction.target[1]}"
              if correction.target else "the whole source"))
    kind = correction.kind
    if kind is CorrectionKind.RELOCATE:
        of = f" of {correction.source_id}" if correction.source_id else ""
        return f"cite {where}{of} instead"
    if kind is CorrectionKind.CHANGE_SOURCE:
        old = correction.old_source_id or "its source"
        return f"cite {correction.source_id} ({where}) instead of {old}"
    if kind is CorrectionKind.REMOVE:
        return "remove this citation"
    claim = correction.claim or (0, 0)
    if kind is CorrectionKind.REWORD:
        return f"reword {claim[0]}\u2013{claim[1]} as \u201c{one_line(correction.text, CLIP)}\u201d"
    return f"add a citation of {correction.source_id} ({where}) at {claim[0]}\u2013{claim[1]}"


def _nearest(text: str, needle: str, guess: int) -> int | None:
    """Where ``needle`` starts in ``text`` nearest ``guess`` (among its first 1,000
    occurrences); None when it is empty or not there."""
    hits: list[int] = []
    at = text.find(needle) if needle else -1
    while at >= 0 and len(hits) < 1000:
        hits.append(at)
        at = text.find(needle, at + 1)
    return min(hits, key=lambda h: abs(h - guess)) if hits else None


class ReviewMarks(QObject):
    """The evidence, reasons and corrections keys of the window (see the module docstring)."""

    def __init__(self, state: WindowState, panes: Panes, review: ReviewController,
                 raw_mode: Callable[[], bool], window: QMainWindow) -> None:
        super().__init__(window)
        self.state, self.panes, self.review = state, panes, review
        self.raw_mode = raw_mode  # whether the raw answer pane is the one shown
        self.window = window
        # The view last decorated and the numbers of its citations that show marks.
        self._decorated: tuple[CaseView | None, set[int]] = (None, set())
        # The reason picker (a dialog; tests drive it with keys, or replace it).
        self.prompt_reasons: Callable[[Sequence[str], Sequence[str], str],
                                      tuple[str, ...] | None] = (
            lambda reasons, chosen, title: dialogs.back_to(
                window, dialogs.pick_reasons(window, reasons, chosen, title)))
        # The reword dialog (tests drive it with keys, or replace it).
        self.prompt_reword: Callable[[str, str], str | None] = (
            lambda text, title: dialogs.back_to(window, dialogs.ask_reword(window, text,
                                                                            title)))
        act = self._act
        # Keys pressed while a case loads: R and Delete act on the active citation, as the
        # verdict keys do, so they are kept for the case (run once it shows, in order); E,
        # Shift+E, L, S and A act on a selection made in the shown case, which a loading case
        # does not have yet: the status bar says so (nothing is lost silently).
        held, selection = self._kept, self._needs_selection
        self.evidence_action = act("Mark Selection as &Evidence",
                                   selection(EVIDENCE_KEY, self.mark_evidence), EVIDENCE_KEY,
                                   "The text selected in the source supports the claim: keep "
                                   "it as evidence (E)")
        self.remove_evidence_action = act(
            "Remove E&vidence", selection(REMOVE_EVIDENCE_KEY, self.remove_evidence),
            REMOVE_EVIDENCE_KEY,
            "Remove the evidence at the source's caret, else the last marked (Shift+E)")
        self.reasons_action = act("&Reasons\u2026", held(self.pick_reasons), REASONS_KEY,
                                  "Why the shown source fails the claim: number keys tick "
                                  "reasons (R)")
        self.relocate_action = act("Cite Selected &Lines Instead",
                                   selection(RELOCATE_KEY, self.relocate), RELOCATE_KEY,
                                   "The citation should cite the lines selected in the source "
                                   "(L)")
        self.source_action = act("Cite Shown &Source Instead",
                                 selection(SOURCE_KEY, self.change_source), SOURCE_KEY,
                                 "The citation should cite the source shown (chosen in the "
                                 "sources list), its selected lines (S)")
        self.remove_action = act("Remo&ve Citation", held(self.remove_citation), REMOVE_KEY,
                                 "The citation should not be there (Delete)")
        self.add_action = act("&Add Citation to Selected Claim",
                              selection(ADD_KEY, self.add_citation), ADD_KEY,
                              "Cite the source shown, its selected lines, for the claim "
                              "selected in the answer (A)")
        self.reword_action = act("Re&word Selected Text\u2026",
                                 selection(REWORD_KEY, self.reword), REWORD_KEY,
                                 "The words selected in the answer should read otherwise: "
                                 "edit them (W)")
        self.list_action = act("Corrections of This &Case\u2026", self.show_corrections, None,
                               "What you corrected in this case's citations")
        panes.answer.addedActivated.connect(self.show_added_source)
        review.add_actions([None, self.evidence_action, self.remove_evidence_action,
                            self.reasons_action, None, self.relocate_action,
                            self.source_action, self.remove_action, self.add_action,
                            self.reword_action, self.list_action])

    def _act(self, text: str, slot: Callable[[], None], key: str | None,
             tip: str) -> QAction:
        act = QAction(text, self.window)
        if key:
            act.setShortcut(QKeySequence(key))
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.setToolTip(tip)
        act.triggered.connect(lambda _=False: slot())
        self.window.addAction(act)
        return act

    def _kept(self, slot: Callable[[], None]) -> Callable[[], None]:
        """``slot``, or while a case loads, ``slot`` kept for it (see ``__init__``)."""
        def run() -> None:
            if not self.review.hold(run):
                slot()
        return run

    def _needs_selection(self, key: str, slot: Callable[[], None]) -> Callable[[], None]:
        """``slot``, or while a case loads, a status bar message that ``key`` was not used."""
        def run() -> None:
            if self.review.loading():
                message.warning(f"{key} not applied: the case is still loading (select in it "
                                f"once it shows, then press {key} again)", 8000)
                return
            slot()
        return run

    @property
    def session(self) -> ReviewStore | None:
        return self.review.session

    # ------------------------------------------------------------------ what is shown

    def citation_changed(self) -> None:
        """A citation (or another of its sources) became active: show its evidence."""
        self.show_evidence()

    def case_shown(self) -> None:
        """A case was shown: its corrections on the chips, the active citation's evidence."""
        self.decorate()
        self.show_added()
        self.show_evidence()

    def session_changed(self, change: Change) -> None:
        view = self.state.view
        if (view is None or self.session is None
                or not isinstance(change, EvidenceChanged | CorrectionChanged)
                or change.case_id != view.case.id):
            return
        if isinstance(change, EvidenceChanged):
            self.show_evidence()
        self.decorate()
        if isinstance(change, CorrectionChanged):
            self.show_added()

    def _my_evidence(self, key: AnnotationKey) -> list[Evidence]:
        s = self.session
        if s is None:
            return []
        return s.evidence(key.case_id, key=key, annotator=s.annotator)

    def show_evidence(self) -> None:
        """The evidence of the active citation's shown source, in the source pane."""
        found = self._active_key()
        source = self.panes.source
        if found is None or source.shown_source_id() != found[0].source_id:
            source.set_evidence([])
            return
        source.set_evidence([(e.start, e.end) for e in self._my_evidence(found[0])])

    def decorate(self) -> None:
        """This annotator's corrections (chips and tooltips) and evidence (tooltips) on the
        shown case's citations."""
        view, s = self.state.view, self.session
        if view is None:
            return
        mine = ([] if s is None else s.corrections(view.case.id, annotator=s.annotator))
        by_citation: dict[tuple[int, str], list[str]] = {}
        moved: dict[tuple[int, str], str] = {}  # the lines last given (mine are in order)
        for c in mine:
            if c.kind not in (CorrectionKind.ADD, CorrectionKind.REWORD):
                by_citation.setdefault((c.number, c.anchor), []).append(describe(c))
            if c.kind in (CorrectionKind.RELOCATE, CorrectionKind.CHANGE_SOURCE):
                moved[(c.number, c.anchor)] = (
                    c.locator or (f"characters {c.target[0]}\u2013{c.target[1]}"
                                  if c.target else "whole source"))
            elif c.kind is CorrectionKind.REMOVE:
                moved.pop((c.number, c.anchor), None)
        marked: dict[tuple[int, str], dict[str, list[str]]] = {}
        for e in ([] if s is None else s.evidence(view.case.id, annotator=s.annotator)):
            per = marked.setdefault((e.key.number, e.key.anchor), {})
            per.setdefault(e.key.source_id, []).append(
                e.lines or f"characters {e.start}\u2013{e.end}")
        # Only the citations that have marks now or had them (10,000 citations: not each).
        touched = {n for n, _a in (*by_citation, *marked)}
        if self._decorated[0] is view:
            touched |= self._decorated[1]
        else:  # another view: any of its citations may carry marks from before
            touched |= {cv.number for cv in view.citations if cv.corrections or cv.evidence}
        now: set[int] = set()
        widened: list[str] = []  # the Locator column's new texts
        for number in sorted(touched):
            found = view.analysed.citation(number) if view.analysed is not None else None
            if found is None:
                continue
            cv = view.citations[found.index]
            lines = tuple(by_citation.get((cv.number, cv.analysed.anchor), ()))
            relocated = moved.get((cv.number, cv.analysed.anchor))
            spans = marked.get((cv.number, cv.analysed.anchor), {})
            cv.evidence = tuple(f"({sid}): {', '.join(spans[sid])}"  # (tooltips only)
                                for sid in cv.citation.source_ids if sid in spans)
            if lines or cv.evidence:
                now.add(number)
            if lines != cv.corrections or relocated != cv.relocated:
                cv.corrections, cv.relocated = lines, relocated
                self.panes.answer.update_chips([cv.chip])
                self.panes.citations_model.refresh_citation(cv.index)
                if relocated is not None:
                    widened.append(locator_text(cv))
        # "L2-L3 → L4-L5" reads whole, as verdicts do (the column measured once for all).
        widen_to_fit(self.panes.citations_table, CitationsModel.LOCATOR_COLUMN, widened)
        self._decorated = (view, now)

    def _added(self, kind: CorrectionKind = CorrectionKind.ADD) -> list[Correction]:
        """This annotator's added citations (or rewords) of the shown case that still fit
        its answer (a reword of a span reworded again: the last one only)."""
        view, s = self.state.view, self.session
        if view is None or s is None or view.analysed is None:
            return []
        found = [c for c in s.corrections(view.case.id, annotator=s.annotator)
                 if c.kind is kind and fits(view.analysed, c)]
        if kind is CorrectionKind.REWORD:
            found = list({c.claim: c for c in found}.values())
        return found

    @staticmethod
    def _rendered_end(view: CaseView, pmap: PositionMap, rendered: str, a: int, b: int) -> int:
        """Where the answer's span ``a..b`` ends in the rendered text: its last words found
        nearest the map's guess (Markdown syntax the rendering took out moves it a little)."""
        claim = view.case.answer[a:b].rstrip()
        guess = pmap.to_rendered(a + len(claim))
        tail = " ".join(claim.split()[-4:])
        at = _nearest(rendered, tail, guess - len(tail))
        return guess if at is None else at + len(tail)

    def show_added(self) -> None:
        """The citations this annotator added, as chips of their own in the rendered answer,
        each at the end of its claim (after the sentence's punctuation, where the guide puts
        a marker)."""
        view, answer = self.state.view, self.panes.answer
        added = self._added()
        reworded = self._added(CorrectionKind.REWORD)
        answer.clear_added()  # (before mapping: the map reads the document's text)
        if view is None or not (added or reworded):
            return
        pmap, u16 = build_map(view, answer)
        rendered = answer.document().toRawText()
        marks, struck = [], []
        for corr in reworded:
            assert corr.claim is not None
            end = self._rendered_end(view, pmap, rendered, *corr.claim)
            struck.append((u16.to_utf16(min(pmap.to_rendered(corr.claim[0]), end)),
                           u16.to_utf16(end)))
            old = view.case.answer[corr.claim[0]:corr.claim[1]]
            tip = (f"Reworded by you: \u201c{one_line(old)}\u201d \u2192 "
                   f"\u201c{one_line(corr.text)}\u201d (a correction; Ctrl+Z takes it "
                   "back)")
            marks.append((u16.to_utf16(end), corr.text or "(words taken out)", corr.id, tip))
        items = []
        for corr in added:
            assert corr.claim is not None
            end = self._rendered_end(view, pmap, rendered, *corr.claim)
            while end < len(rendered) and rendered[end] in SENTENCE_PUNCTUATION:
                end += 1
            where = corr.locator or (f"{corr.target[0]}\u2013{corr.target[1]}"
                                     if corr.target else "")
            label = f"{corr.source_id} {where}".strip()
            tip = (f"Added by you: {describe(corr).removeprefix('add ')} "
                   "(a correction; click to show its source)")
            items.append((u16.to_utf16(end), label, corr.id, tip))
        answer.set_added(items, marks, struck)

    def show_added_source(self, correction_id: str) -> None:
        """An added chip was clicked: its source in the source pane, its lines highlighted
        and scrolled into view, as a chip's are."""
        view = self.state.view
        corr = next((c for c in self._added() if c.id == correction_id), None)
        if view is None or corr is None or view.analysed is None:
            return
        try:
            target = added_target(view.analysed, corr)
        except InputError as err:
            message.warning(str(err), 6000)
            return
        self.panes.source.highlight(target)
        self.show_evidence()
        where = f" {corr.locator}" if corr.locator else ""
        message.info(f"Added citation: {corr.source_id}{where} (your correction; Ctrl+Z "
                     "takes it back)")

    def corrections_text(self) -> list[str]:
        """This annotator's corrections of the shown case, one line each (the list)."""
        view, s = self.state.view, self.session
        if view is None or s is None:
            return []
        out = []
        for c in s.corrections(view.case.id, annotator=s.annotator):
            what = describe(c)
            if c.kind is CorrectionKind.ADD and c.claim is not None:
                clip = one_line(view.case.answer[c.claim[0]:c.claim[1]], CLIP)
                out.append(f"Added: {what.removeprefix('add ')} \u2014 \u201c{clip}\u201d")
            elif c.kind is CorrectionKind.REWORD and c.claim is not None:
                clip = one_line(view.case.answer[c.claim[0]:c.claim[1]], CLIP)
                new = one_line(c.text, CLIP)
                out.append(f"Reworded: \u201c{clip}\u201d \u2192 \u201c{new}\u201d")
            else:
                out.append(f"Citation {c.number}: {what}")
        return out

    def corrected_citations(self) -> list[str] | str:
        """The citations of the shown case's corrected answer in reading order (``source
        locator``), or why it cannot be made (a correction no longer fits the answer)."""
        view, s = self.state.view, self.session
        if view is None or s is None:
            return []
        try:
            done = apply_corrections(s.analysed(view.case.id),
                                     s.corrections(view.case.id, annotator=s.annotator))
        except InputError as err:
            return str(err)
        return [" + ".join(ids) + (f" {locator}" if locator else "")
                for ids, locator in done.citations]

    def show_corrections(self) -> None:
        lines = self.corrections_text()
        text = "\n".join(lines) if lines else "No corrections in this case."
        if lines:
            cited = self.corrected_citations()
            text += ("\n\nThe corrected answer cites, in reading order:\n"
                     + ("\n".join(f"{k}. {c}" for k, c in enumerate(cited, 1))
                        if isinstance(cited, list) else cited))
        dlg = dialogs.SummaryDialog(text, self.window)
        dlg.setWindowTitle("Corrections of this case")
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()

    # ------------------------------------------------------------------ the gestures

    def _active_key(self) -> tuple[AnnotationKey, CitationView] | None:
        view = self.state.view
        if view is None or self.state.active is None:
            return None
        cur = self.review.current()
        if cur is None or not cur[0].citation.source_ids:
            return None
        cv, k = cur
        return annotation_key(view.case.id, cv.analysed, cv.citation.source_ids[k]), cv

    def _selection(self, what: str) -> tuple[Source, tuple[int, int]] | None:
        """The shown source and the span selected in it (says what is missing)."""
        source = self.panes.source
        shown, span = source.shown_source(), source.selected_span()
        if shown is None or span is None or span[0] == span[1]:
            message.warning(f"Select {what} in the source first (mouse, or Shift+arrows)", 6000)
            return None
        return shown, span

    def mark_evidence(self) -> None:
        found = self.review.key()
        s = self.session
        if found is None or s is None:
            return
        key, _cv = found
        if self.panes.source.shown_source_id() != key.source_id:
            message.warning(f"The source pane does not show {key.source_id}, the source of "
                            f"citation {key.number}", 6000)
            return
        picked = self._selection("the text that supports the claim")
        if picked is None:
            return
        source, (a, b) = picked
        lines = touched_lines(source, (a, b)) or (0, 0)
        if self.review.record(lambda: evidence_edit(s, key, a, b, first_line=lines[0],
                                                    last_line=lines[1],
                                                    text=source.text[a:b])):
            where = f" {locator_of(*lines)}" if lines[0] else ""
            message.info(f"Evidence{where} marked for citation {key.number} ({key.source_id})")

    def remove_evidence(self) -> None:
        found = self.review.key()
        s = self.session
        if found is None or s is None:
            return
        key = found[0]
        mine = self._my_evidence(key)
        if not mine:
            message.warning(f"No evidence marked for citation {key.number} ({key.source_id})",
                            5000)
            return
        at = (self.panes.source.cursor_offset()
              if self.panes.source.shown_source_id() == key.source_id else None)
        under = [e for e in mine if at is not None and e.start <= at <= e.end]
        gone = under[0] if under else max(mine, key=lambda e: (e.timestamp, e.id))
        if self.review.record(lambda: remove_evidence_edit(s, gone)):
            message.info(f"Evidence removed from citation {key.number} ({key.source_id})")

    def pick_reasons(self) -> None:
        found = self.review.key()
        s = self.session
        if found is None or s is None:
            return
        key, cv = found
        if not s.reasons:
            message.warning("This session's rubric has no reasons", 5000)
            return
        old = s.annotation(key)
        chosen = self.prompt_reasons(s.reasons, old.reasons if old else (),
                                     f"Reasons: citation {key.number}, {key.source_id}")
        if chosen is None or chosen == (old.reasons if old else ()):
            return
        claim = cv.analysed.claim_text
        if self.review.record(lambda: annotation_edit(
                s, key, reasons=chosen, claim=claim,
                recovered=cv.citation.recovered is not None)):
            message.info(f"Citation {key.number} ({key.source_id}): "
                         + ("; ".join(chosen) if chosen else "reasons cleared"))

    @staticmethod
    def _where(source: Source, span: tuple[int, int], lined: bool
               ) -> tuple[str | None, tuple[int, int] | None]:
        """``(locator, target)`` of a selection: a marker's [L#] lines; a provider's citation,
        or a source without labelled lines there, the characters (core counts their lines)."""
        lines = touched_lines(source, span) if lined else None
        if lines is None:
            return None, span
        return locator_of(*lines), None

    def relocate(self) -> None:
        found = self.review.key()
        s, view = self.session, self.state.view
        if found is None or s is None or view is None:
            return
        key, cv = found
        if self.panes.source.shown_source_id() != key.source_id:
            message.warning(f"Show {key.source_id} (citation {key.number}) to pick its lines",
                            6000)
            return
        picked = self._selection("the lines it should cite")
        if picked is None:
            return
        source, span = picked
        locator, target = self._where(source, span, cv.analysed.has_marker)
        only = key.source_id if len(cv.citation.source_ids) > 1 else ""
        if self.review.record(lambda: relocate_edit(s, view.case.id, cv.analysed,
                                                    locator=locator, target=target,
                                                    source_id=only)):
            old = cv.citation.locator or "its span"
            new = locator or f"characters {span[0]}\u2013{span[1]}"
            message.info(f"Citation {key.number}: {old} \u2192 {new} (Ctrl+Z takes it back)")

    def change_source(self) -> None:
        found = self.review.key()
        s, view = self.session, self.state.view
        if found is None or s is None or view is None:
            return
        key, cv = found
        shown = self.panes.source.shown_source()
        if shown is None or shown.id == key.source_id:
            message.warning("Show the source it should cite (the sources list), then S", 6000)
            return
        span = self.panes.source.selected_span()
        locator: str | None = None
        target: tuple[int, int] | None = None
        if span is not None and span[0] < span[1]:
            locator, target = self._where(shown, span, cv.analysed.has_marker)
        new_id = str(shown.id)
        if self.review.record(lambda: change_source_edit(
                s, view.case.id, cv.analysed, new_id, old_source_id=key.source_id,
                locator=locator, target=target)):
            message.info(f"Citation {key.number}: {key.source_id} \u2192 {new_id}"
                         + (f" {locator}" if locator else ""))

    def remove_citation(self) -> None:
        found = self.review.key()
        s, view = self.session, self.state.view
        if found is None or s is None or view is None:
            return
        cv = found[1]
        if self.review.record(lambda: remove_citation_edit(s, view.case.id, cv.analysed)):
            message.info(f"Citation {cv.number} marked for removal (Ctrl+Z takes it back)")

    def selected_claim(self, view: CaseView) -> tuple[int, int] | None:
        """The claim selected in the answer, as code points of the answer: exact in the raw
        pane; in the rendered one, the selected text found in the answer where the rendering
        maps it."""
        if self.raw_mode():
            raw = self.panes.raw
            cursor = raw.textCursor()
            if not cursor.hasSelection():
                return None
            return (raw.offset_of(cursor.selectionStart()), raw.offset_of(cursor.selectionEnd()))
        answer = self.panes.answer
        cursor = answer.textCursor()
        if not cursor.hasSelection():
            return None
        shown = cursor.selectedText().replace("\u2029", "\n").strip("\u00a0 \n")
        pmap, u16 = build_map(view, answer)
        guess = pmap.to_raw(u16.from_utf16(cursor.selectionStart()))
        text = view.case.answer
        start = _nearest(text, shown, guess)
        if start is not None:
            return start, start + len(shown)
        end = pmap.to_raw(u16.from_utf16(cursor.selectionEnd()))
        return (guess, end) if end > guess else None

    def add_citation(self) -> None:
        s, view = self.session, self.state.view
        if s is None or view is None:
            return
        claim = self.selected_claim(view)
        if claim is None or claim[0] >= claim[1]:
            message.warning("Select the claim in the answer first", 6000)
            return
        inside = [cv.number for cv in view.citations
                  if claim[0] < cv.citation.start < claim[1] and cv.analysed.has_marker]
        if inside:
            message.warning(f"The claim selected holds citation {inside[0]}: select a claim "
                            "without a citation", 6000)
            return
        shown = self.panes.source.shown_source()
        if shown is None:
            message.warning("Show the source to cite (the sources list) first", 6000)
            return
        span = self.panes.source.selected_span()
        locator: str | None = None
        target: tuple[int, int] | None = None
        if span is not None and span[0] < span[1]:
            locator, target = self._where(shown, span, True)
        sid = str(shown.id)
        if self.review.record(lambda: add_citation_edit(s, view.case.id, claim, sid,
                                                        locator=locator, target=target)):
            message.info(f"Citation of {sid}" + (f" {locator}" if locator else "")
                         + " added to the claim selected (Ctrl+Z takes it back)")

    def reword(self) -> None:
        """W: the words selected in the answer reworded (see the module docstring)."""
        s, view = self.session, self.state.view
        if s is None or view is None:
            return
        span = self.selected_claim(view)
        if span is None or span[0] >= span[1]:
            message.warning("Select the words to reword in the answer first", 6000)
            return
        earlier = [c for c in s.corrections(view.case.id, annotator=s.annotator)
                   if c.kind is CorrectionKind.REWORD and c.claim is not None]
        # A span reworded before, selected again (or its words within it): its reword edited.
        same = next((c for c in reversed(earlier) if c.claim == span), None) or next(
            (c for c in reversed(earlier) if c.claim is not None
             and c.claim[0] <= span[0] and span[1] <= c.claim[1]), None)
        if same is not None and same.claim is not None:
            span = same.claim
        elif view.analysed is not None:  # told before the dialog, not after the typing
            probe = Correction("probe", view.case.id, s.annotator, CorrectionKind.REWORD,
                               claim=span)
            problem = reword_problem(view.analysed, probe)
            if problem is not None:
                message.warning(f"Cannot reword: {problem}", 8000)
                return
        old = view.case.answer[span[0]:span[1]]
        new = self.prompt_reword(same.text if same is not None else old,
                                 f"Reword: \u201c{one_line(old, 40)}\u201d")
        if new is None or new == (same.text if same is not None else old):
            return
        if self.review.record(lambda: reword_edit(s, view.case.id, span, new,
                                                  replacing=same)):
            message.info(f"Reworded \u201c{one_line(old, 40)}\u201d (Ctrl+Z takes it back)")


__all__ = ["ReviewMarks", "describe", "touched_lines"]
