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

Corrections are stored beside the case (never by changing the answer); a corrected chip
carries a mark and its tooltip says what changed; Review > Corrections of This Case lists them.
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
    apply_corrections,
    lines_of_span,
    locator_of,
)
from citeview.core.errors import InputError
from citeview.core.material import SourceLines
from citeview.gui import dialogs, message
from citeview.gui.side_by_side import build_map
from citeview.session.edits import (
    add_citation_edit,
    annotation_edit,
    change_source_edit,
    evidence_edit,
    relocate_edit,
    remove_citation_edit,
    remove_evidence_edit,
)
from citeview.session.events import Change, CorrectionChanged, EvidenceChanged
from citeview.session.model import AnnotationKey, Evidence, annotation_key

if TYPE_CHECKING:
    from citeview.core.material import Source
    from citeview.gui.panes import Panes
    from citeview.gui.review import ReviewController
    from citeview.gui.state import CaseView, CitationView
    from citeview.gui.window_state import WindowState
    from citeview.session.protocol import ReviewStore

#: Keys of the gestures (the Review menu shows them; the shortcut sheet is made from it).
EVIDENCE_KEY, REMOVE_EVIDENCE_KEY, REASONS_KEY = "E", "Shift+E", "R"
RELOCATE_KEY, SOURCE_KEY, REMOVE_KEY, ADD_KEY = "L", "S", "Delete", "A"


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
    return f"add a citation of {correction.source_id} ({where}) at {claim[0]}\u2013{claim[1]}"


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
        act = self._act
        self.evidence_action = act("Mark Selection as &Evidence", self.mark_evidence,
                                   EVIDENCE_KEY, "The text selected in the source supports "
                                   "the claim: keep it as evidence (E)")
        self.remove_evidence_action = act(
            "Remove E&vidence", self.remove_evidence, REMOVE_EVIDENCE_KEY,
            "Remove the evidence at the source's caret, else the last marked (Shift+E)")
        self.reasons_action = act("&Reasons\u2026", self.pick_reasons, REASONS_KEY,
                                  "Why the shown source fails the claim: number keys tick "
                                  "reasons (R)")
        self.relocate_action = act("Cite Selected &Lines Instead", self.relocate,
                                   RELOCATE_KEY, "The citation should cite the lines selected "
                                   "in the source (L)")
        self.source_action = act("Cite Shown &Source Instead", self.change_source, SOURCE_KEY,
                                 "The citation should cite the source shown (chosen in the "
                                 "sources list), its selected lines (S)")
        self.remove_action = act("Remo&ve Citation", self.remove_citation, REMOVE_KEY,
                                 "The citation should not be there (Delete)")
        self.add_action = act("&Add Citation to Selected Claim", self.add_citation, ADD_KEY,
                              "Cite the source shown, its selected lines, for the claim "
                              "selected in the answer (A)")
        self.list_action = act("Corrections of This &Case\u2026", self.show_corrections, None,
                               "What you corrected in this case's citations")
        review.add_actions([None, self.evidence_action, self.remove_evidence_action,
                            self.reasons_action, None, self.relocate_action,
                            self.source_action, self.remove_action, self.add_action,
                            self.list_action])

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
        for c in mine:
            if c.kind is not CorrectionKind.ADD:
                by_citation.setdefault((c.number, c.anchor), []).append(describe(c))
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
        for number in sorted(touched):
            found = view.analysed.citation(number) if view.analysed is not None else None
            if found is None:
                continue
            cv = view.citations[found.index]
            lines = tuple(by_citation.get((cv.number, cv.analysed.anchor), ()))
            spans = marked.get((cv.number, cv.analysed.anchor), {})
            cv.evidence = tuple(f"({sid}): {', '.join(spans[sid])}"  # (tooltips only)
                                for sid in cv.citation.source_ids if sid in spans)
            if lines or cv.evidence:
                now.add(number)
            if lines != cv.corrections:
                cv.corrections = lines
                self.panes.answer.update_chips([cv.chip])
                self.panes.citations_model.refresh_citation(cv.index)
        self._decorated = (view, now)

    def corrections_text(self) -> list[str]:
        """This annotator's corrections of the shown case, one line each (the list)."""
        view, s = self.state.view, self.session
        if view is None or s is None:
            return []
        out = []
        for c in s.corrections(view.case.id, annotator=s.annotator):
            what = describe(c)
            if c.kind is CorrectionKind.ADD and c.claim is not None:
                claim = " ".join(view.case.answer[c.claim[0]:c.claim[1]].split())
                clip = claim if len(claim) <= 60 else claim[:59] + "\u2026"
                out.append(f"Added: {what.removeprefix('add ')} \u2014 \u201c{clip}\u201d")
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
        if shown:
            hits: list[int] = []
            at = text.find(shown)
            while at >= 0 and len(hits) < 1000:
                hits.append(at)
                at = text.find(shown, at + 1)
            if hits:
                start = min(hits, key=lambda h: abs(h - guess))
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


__all__ = ["ReviewMarks", "describe", "touched_lines"]
