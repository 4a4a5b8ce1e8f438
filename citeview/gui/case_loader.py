"""Showing a case: its view-model built off the GUI thread, then its lint.

:meth:`CaseLoader.show_case` paints at once (question, a loading note) and builds the case's
view-model (:func:`citeview.gui.state.build_case_view`) and answer document in a
:class:`~citeview.gui.ops.BackgroundOp`; the panes and tables fill in when it arrives, and the
linter's diagnostics join them in a second op. Asking for another case meanwhile drops both (the
latest case asked for wins).

A big case's answer is drawn first (:func:`answer_first`: its chips placed by the marker parse,
no material read); its material, source, analysis, tables and lint follow once that is painted,
and the document drawn is kept when the analysis numbers the same citations.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from citeview.core.analysis import AnalysedCase, Analyser
from citeview.core.cases import Case
from citeview.core.diagnostics import Diagnostic
from citeview.core.errors import InputError
from citeview.core.markers import STOP, extract_citations
from citeview.core.material import Material, case_material
from citeview.core.numbering import number_at
from citeview.core.resolution import Target, resolve
from citeview.gui import message, ops
from citeview.gui.answer_document import PreparedDocument, prepare_document
from citeview.gui.answer_render import Chip, render_parts
from citeview.gui.elided import plural
from citeview.gui.navigation import select_row
from citeview.gui.ops import AfterPaint, BackgroundOp
from citeview.gui.palette import is_dark
from citeview.gui.prepared_source import PreparedSource, prepare_source
from citeview.gui.state import CaseView, build_case_view, lint_case
from citeview.gui.tables import CitationsModel, fit_columns, widen_to_fit
from citeview.gui.untrusted import safe_title

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from citeview.gui.navigation import Navigator
    from citeview.gui.panes import Panes
    from citeview.gui.progress import ProgressTracker
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.view_modes import ViewModes
    from citeview.gui.window_state import WindowState
    from citeview.session.protocol import ReviewStore

CASE_WORK = "case"  # the key of the ops building and linting the case shown
AHEAD_WORK = "ahead"  # the key of the op building the next case ahead
LOADING_DELAY_MS = 150  # a case not shown by then says "Loading"
LEXER_WORK = "lexer"  # the key of the op choosing the shown source's lexer
EARLY_WORK = "early"  # the key of the op drawing an input's answer before the input is read


@dataclass(slots=True)
class BuiltView:
    """A case's view-model and its answer document, or None where the answer drawn first
    (:func:`answer_first`) stays: then ``restyle`` lists the chips whose look differs from the
    one they were drawn with."""

    view: CaseView
    prepared: PreparedDocument | None
    restyle: list[int]


@dataclass(slots=True)
class AnswerFirst:
    """A big case's answer drawn before anything else of it: the citations' spans by the
    marker parse, each chip its number in the resolved look until the case is built."""

    spans: list[tuple[int, int]]
    prepared: PreparedDocument


@dataclass(slots=True)
class SourceFirst:
    """What the first paint of a case needs: its material, parsed once (the analysis reuses
    it), and the source its first citation cites, prepared for the source pane."""

    material: Material
    source: PreparedSource | None
    # What the first citation cites in that source: highlighted with the source's first paint.
    target: Target | None = None
    # A small case is built (and linted) in the same op: one trip to the worker per case.
    built: BuiltView | None = None
    linted: list[Diagnostic] | Exception | None = None


@dataclass(slots=True, frozen=True)
class Build:
    """What a case's view is built from: equal builds give equal views (a case built ahead is
    shown only if nothing here changed since)."""

    case: Case
    analyser: Analyser  # the session's, or the window's own without a session
    dark: bool
    font: str

    def first_phase(self) -> SourceFirst:
        return first_phase(self.case, self.dark, self.font, self.analyser)

    def answer_first(self) -> AnswerFirst:
        return answer_first(self.case, self.dark, self.font)


# How long a big case's lint waits for its answer's first paint (see lint_and_support).
PAINT_WAIT = 0.5
# A shown source tinted by this many citations is tinted after the answer is painted.
MANY_TINTS = 1_000
# A case whose answer and material together hold fewer characters is shown in one op.
SMALL_CASE = 200_000
# ... and one this small, replacing the case shown, is built right here on the GUI thread (a
# millisecond or two): a trip to the worker and back cost as much as the work.
TINY_CASE = 20_000
# How many cases are built ahead (the next one, and the one after it).
AHEAD_DEPTH = 2


def case_size(case: Case) -> int:
    """Characters of a case's answer and material (what building its view reads)."""
    return (len(case.answer) + sum(map(len, case.tool_outputs)) + len(case.context or "")
            + sum(map(len, case.documents.values())))


def first_phase(case: Case, dark: bool, font: str, analyser: Analyser | None = None
                ) -> SourceFirst:
    """:func:`prepare_first`, and for a small case its view and lint too (in a worker)."""
    analyser = Analyser() if analyser is None else analyser
    first = prepare_first(case, analyser)
    if case_size(case) < SMALL_CASE:
        first.built = build_view(case, dark, font, analyser, first.material, first.source)
        try:
            first.linted = lint(case, first.built.view.analysed)
        except RuntimeError as err:
            first.linted = err
    return first


def answer_first(case: Case, dark: bool, font: str) -> AnswerFirst:
    """The answer of ``case`` drawn with its well-formed markers as chips (in a worker; on the
    GUI thread for an input's answer read ahead): what a big case shows first."""
    # The objects made here (citations, tokens, chips: tens of thousands) would be scanned by a
    # cycle collection every 700 of them, again as they survive; they make no cycles (freed by
    # their counts), so collections wait until the drawing is done (10 ms of 100).
    collecting = gc.isenabled()
    gc.disable()
    try:
        spans = [(c.start, c.end) for c in extract_citations(case.answer)]
        return AnswerFirst(spans, prepare_document(render_parts(case.answer, spans), dark, font))
    except Exception as err:  # a bug must not leave the window stuck on "Loading"
        raise RuntimeError(
            f"cannot show case {case.id!r}: {type(err).__name__}: {err}") from err
    finally:
        if collecting:
            gc.enable()


def prepare_first(case: Case, analyser: Analyser | None = None) -> SourceFirst:
    """The material of ``case`` and its first cited source made ready to show (in a worker:
    the source pane paints before the answer is scanned, resolved and rendered)."""
    try:
        # (An empty cache holds nothing to reuse: the case's content is not hashed before
        # its first paint.)
        known = analyser.peek(case) if analyser is not None and len(analyser.cache) else None
        material = known.material if known is not None else case_material(case)
        if not material.sources:
            return SourceFirst(material, None)
        # The source the first well-formed marker names (the citation shown first), else the
        # first source: found without scanning the whole answer.
        answer = case.answer
        stop = answer.find(STOP)
        first = extract_citations(answer[:stop + 1]) if stop >= 0 else []
        shown = material.get(first[0].source_ids[0]) if first else None
        targets = resolve(first[:1], material)[0].targets if shown is not None else ()
        return SourceFirst(material, prepare_source(shown or material.sources[0],
                                                    lexer_later=True),
                           targets[0] if targets else None)
    except InputError:
        raise
    except Exception as err:  # a bug must not leave the window stuck on "Loading"
        raise RuntimeError(
            f"cannot show case {case.id!r}: {type(err).__name__}: {err}") from err


def build_view(case: Case, dark: bool, font: str, analyser: Analyser | None = None,
               material: Material | None = None,
               shown: PreparedSource | None = None,
               support: bool = True,
               drawn: list[tuple[int, int]] | None = None) -> BuiltView:
    """The view-model and the answer document of ``case`` (both safe to build in a worker),
    from its analysed case as ``analyser`` (the session's: what the window shows is what the
    session stores; a standalone one when None) has it. ``material``: already parsed
    (:func:`prepare_first`). ``support``: with the support hints (a big case gets them with
    its lint, after the answer is painted: :func:`lint_and_support`). ``drawn``: the spans of
    the citations the answer shown was drawn with (:func:`answer_first`); when the analysis
    has the same ones, that document stays (not rendered again) and only the chips that look
    otherwise are listed."""
    try:
        analyser = Analyser() if analyser is None else analyser
        analysed = analyser.analysed(case, material=material)
        if drawn is not None and drawn == [(c.citation.start, c.citation.end)
                                           for c in analysed.citations]:
            view = build_case_view(case, dark=dark, with_lint=False, analysed=analysed,
                                   render=False, support=False)
            return BuiltView(view, None, [v.index for v in view.citations
                                          if v.chip != Chip(v.number)])
        view = build_case_view(case, dark=dark, with_lint=False, analysed=analysed,
                               support=support)
        return BuiltView(view, prepare_document(view.html, dark, font), [])
    except InputError:
        raise
    except Exception as err:  # a bug must not leave the window stuck on "Loading"
        raise RuntimeError(
            f"cannot show case {case.id!r}: {type(err).__name__}: {err}") from err


def lint(case: Case, analysed: AnalysedCase | None = None) -> list[Diagnostic]:
    """The lint findings of the case shown, computed once on its analysed case."""
    try:
        return lint_case(case, analysed=analysed)
    except Exception as err:  # told as an error; the case stays usable
        raise RuntimeError(
            f"lint failed on case {case.id!r}: {type(err).__name__}: {err}") from err


@dataclass(slots=True)
class Linted:
    """The second phase of a big case: its lint findings and, left out of its first build so
    that the answer paints sooner, its support hints."""

    found: list[Diagnostic]
    support: tuple[tuple[float | None, ...], ...] | None = None


def lint_and_support(case: Case, analysed: AnalysedCase | None,
                     painted: threading.Event | None = None) -> Linted:
    """:func:`lint`, then the support hints of ``analysed`` (in a worker). ``painted``: waited
    for first (at most :data:`PAINT_WAIT` seconds; waiting holds no GIL): a worker running
    beside the answer's first paint takes the GIL from it."""
    if painted is not None:
        painted.wait(PAINT_WAIT)
    found = lint(case, analysed)
    return Linted(found, analysed.support if analysed is not None else None)


class CaseLoader(QObject):
    caseChanged = Signal(int)  # index of the case asked for
    viewReady = Signal()  # the case's view-model is shown
    lintReady = Signal()  # lint diagnostics merged into the shown case

    def __init__(self, state: WindowState, panes: Panes, modes: ViewModes, navigator: Navigator,
                 progress: ProgressTracker, review_session: ReviewSession,
                 landing: Callable[[], bool], window: QWidget, synchronous: bool) -> None:
        super().__init__(window)
        self.state = state
        self.panes = panes
        self.modes = modes
        self.navigator = navigator
        self.progress = progress
        self.review_session = review_session
        self.landing = landing  # the case shown lands on a citation of the advancer's choice
        self.window = window  # its title and palette
        self.synchronous = synchronous  # snapshot mode: built here, now
        # The analyser without a session (a session brings its own: see _build).
        self.analyser = Analyser(maxsize=16)
        self._pending: tuple[int | None, int] | None = None  # (citation, source) once shown
        self._loading_timer = QTimer(self)
        self._loading_timer.setSingleShot(True)
        self._loading_timer.setInterval(LOADING_DELAY_MS)
        self._loading_timer.timeout.connect(self._show_loading)
        # What the tables' columns were last fitted to (see fit_tables).
        self._fitted: dict[str, tuple[int, ...]] = {}
        # The case being built, until its view is shown.
        self._building: Build | None = None
        # The cases likely asked for next (AHEAD_DEPTH of them), built ahead in the worker
        # while the reviewer reads, by case index: what each was built from, and its first
        # phase; see prefetch_next().
        self._ahead: dict[int, tuple[Build, SourceFirst]] = {}
        # The case being built ahead now (and its index), and the one shown as soon as that
        # lands (asked for while it was being built: not built a second time behind it).
        self._ahead_building: Build | None = None
        self._ahead_index = -1
        self._ahead_started = threading.Event()  # set once the worker began that build
        self._awaiting: Build | None = None
        # Built ahead once the case shown is painted: a worker building beside the paint took
        # the GIL from it (each case switch took 4 ms longer).
        self._ahead_later = AfterPaint(self.prefetch_next, self)
        # A big case's tints (10,000 spans mapped to rows) once its answer is painted.
        self._tints: tuple[CaseView, str, list[tuple[int, int]]] | None = None
        self._tints_later = AfterPaint(self._apply_tints, self)
        # What a big case's lint waits for (its answer painted), and what sets it.
        self._lint_gate: threading.Event | None = None
        self._lint_after_paint = AfterPaint(self._release_lint, self)
        # A big case's answer drawn first: the citations' spans it was drawn with (until the
        # case is built), and the rest of the case started once it is painted.
        self._drawn: list[tuple[int, int]] | None = None
        self._rest_later = AfterPaint(self._build_rest, self)
        # An input's answer drawn before the input is read (see draw_early): what it was drawn
        # from and as, the chip clicked meanwhile, and the opening of the input after its paint.
        self._early: tuple[Build, AnswerFirst] | None = None
        self._clicked: int | None = None
        self._then: Callable[[], None] | None = None
        self._open_later = AfterPaint(self._open_input, self)
        # The item counts of the case shown, stored once it is painted (see _on_built).
        self._sizes: list[tuple[ReviewStore, str, tuple[int, ...]]] = []
        self._sizes_later = AfterPaint(self._record_sizes, self)
        # The tables' columns fitted and the status bar's counts of the case shown, in the
        # frame after the one that paints its answer and source (fitting a table's columns to
        # a new case took 1.7 ms, a third of a case switch; the tables repaint then anyway).
        self._chrome_pending = False
        self._chrome_later = AfterPaint(self._fit_chrome, self)

    def show_case(self, index: int, citation: int | None = 0, source: int = 0) -> None:
        """Show case ``index``; ``citation`` (its ``source``-th source) becomes active once its
        view is ready."""
        if self.state.dataset is None or not 0 <= index < len(self.state.dataset):
            return
        try:
            case = self.state.dataset.get(index)
        except InputError as err:
            message.error(str(err))
            return
        ops.collect_after_paint()  # (collections wait for the case's first paint)
        # A tiny case is built here when it replaces one shown; the first case of an input is
        # built in the worker while the window finishes setting up beside it.
        inline = self.synchronous or (self.state.view is not None and case_size(case) < TINY_CASE)
        self._ahead_later.cancel()  # (asked again once this case shows)
        self._rest_later.cancel()
        self._drawn = None
        early, self._early = self._early, None
        clicked, self._clicked = self._clicked, None
        self._release_lint()
        self.state.set_case_index(index)
        self.progress.show_case(case.id)
        self.progress.busy()
        self.state.set_view(None)
        self.state.set_active(None, self.state.active_source)
        self._pending = (citation, source)
        self.navigator.hold_tables()  # the new case's answer and source paint first
        select_row(self.panes.cases_table, self.panes.cases_proxy, index)
        self.window.setWindowTitle(self._title(case.id))
        self.panes.question.setText(case.question or "")
        self.panes.question.setVisible(bool(case.question))
        # Most cases show within a frame or two: "Loading" only for one that takes longer (a
        # placeholder painted and replaced at once costs a repaint per case switch).
        self._loading_timer.start()
        self.caseChanged.emit(index)
        build = self._building = self._build(case)
        ahead = self._ahead.pop(index, None)  # (the one after it stays: see prefetch_next)
        self._awaiting = None
        if inline and ahead is not None and ahead[0] == build:
            ops.cancel(self, CASE_WORK)  # nothing older lands after it
            self._on_first(ahead[1])  # built ahead, from the same case, policy and look
            return
        if (early is not None and not inline and case_size(case) >= SMALL_CASE
                and early[0].case.answer == case.answer
                and (early[0].dark, early[0].font) == (build.dark, build.font)):
            # Its answer is drawn already (read ahead of the input): the rest of it now.
            ops.cancel(self, CASE_WORK)
            self._drawn = early[1].spans
            if clicked is not None and self._pending == (0, 0):
                self._pending = (clicked, 0)
            self._build_rest()
            return
        if not inline and case_size(case) >= SMALL_CASE:
            # A big case: its answer first (reading and resolving its material takes seconds).
            (BackgroundOp(self, build.answer_first, key=CASE_WORK)
             .success(self._on_answer).failure(self._on_build_failed).run())
            return
        if inline and self._ahead_building == build and ops.pending(self, AHEAD_WORK):
            if self._ahead_started.is_set():
                # Being built ahead right now (a key pressed soon after the last case showed):
                # shown when that lands, not built again here beside it (both taking the GIL).
                ops.cancel(self, CASE_WORK)
                self._awaiting = build
                return
            ops.cancel(self, AHEAD_WORK)  # not begun: built here, now, and not again there
        (BackgroundOp(self, build.first_phase, key=CASE_WORK)
         .success(self._on_first).failure(self._on_build_failed)
         .run(here=inline))

    def _build(self, case: Case) -> Build:
        """What building ``case`` for the window now reads."""
        session = self.review_session.session
        return Build(case, session.analyser if session is not None else self.analyser,
                     is_dark(self.window.palette()), self.panes.answer.font().toString())

    def prefetch_next_soon(self) -> None:
        """:meth:`prefetch_next` once the case shown now is painted."""
        self._ahead_later.request()

    def ahead_targets(self) -> list[int]:
        """The cases a reviewer most likely opens next, in order: the next one not done
        (Ctrl+Enter, a case's last verdict), which is mostly the next one (Ctrl+PgDown), and
        the one after that."""
        here = at = self.state.case_index
        targets: list[int] = []
        for _ in range(AHEAD_DEPTH):
            nxt = self.progress.next_undone(at)
            at = nxt if nxt is not None and nxt != here and nxt not in targets else at + 1
            if at == here:
                break
            targets.append(at)
        return targets

    def prefetch_next(self) -> None:
        """Build ahead the first of :meth:`ahead_targets` not built yet (the next one once that
        lands): with the case after the next one built too, a key pressed while a slow build
        was under way (a loaded machine) still finds its case built."""
        targets = self.ahead_targets()
        # (One built from what changed since, a session's policy or the answer's font, goes.)
        self._ahead = {i: a for i, a in self._ahead.items()
                       if i in targets and a[0] == self._build_of(i)}
        for index in targets:
            if index in self._ahead:
                continue
            if (self._ahead_index == index and ops.pending(self, AHEAD_WORK)
                    and self._ahead_building == self._build_of(index)):
                return  # being built now
            if self.prefetch(index):
                return

    def _build_of(self, index: int) -> Build | None:
        dataset = self.state.dataset
        if dataset is None or not 0 <= index < len(dataset):
            return None
        try:
            return self._build(dataset.get(index))
        except InputError:
            return None

    def prefetch(self, index: int) -> bool:
        """Build tiny case ``index`` ahead in the worker (a case the reviewer will likely open
        next), so opening it only shows it. Used once, if nothing it was built from changed
        by then; a failure is told when the case is opened and built again. Whether a build
        started."""
        dataset = self.state.dataset
        if self.synchronous or dataset is None or not 0 <= index < len(dataset):
            return False
        try:
            case = dataset.get(index)
        except InputError:
            return False  # told when it is opened
        if case_size(case) >= TINY_CASE:
            return False
        build = self._ahead_building = self._build(case)
        self._ahead_index = index
        started = self._ahead_started = threading.Event()

        def work() -> SourceFirst:
            started.set()
            return build.first_phase()

        def keep(first: SourceFirst) -> None:
            self._ahead_building = None
            self._ahead_index = -1
            if self._awaiting == build and self._building == build:
                self._awaiting = None
                self._on_first(first)  # asked for while it was built
            else:
                self._ahead[index] = (build, first)
                if first.built is not None and first.built.prepared is not None:
                    # Its answer laid out now, while the window idles: opening it swaps
                    # documents (the layout was half of showing the answer).
                    self.panes.answer.lay_out_ahead(first.built.prepared)
                if self._building is None and not self.review_session.making():
                    # The one after it (not while a case is being shown; nor while the
                    # session is made: its policy builds them again).
                    self.prefetch_next()

        def failed(_err: Exception) -> None:
            self._ahead_building = None
            self._ahead_index = -1
            if self._awaiting == build and self._building == build:
                self._awaiting = None  # built again, its failure told as usual
                (BackgroundOp(self, build.first_phase, key=CASE_WORK)
                 .success(self._on_first).failure(self._on_build_failed).run())

        (BackgroundOp(self, work, key=AHEAD_WORK)
         .success(keep).failure(failed).run())
        return True

    def _on_answer(self, first: AnswerFirst) -> None:
        """A big case's answer drawn first: shown now; the rest of the case is built once it
        is painted (a worker beside the paint takes the GIL from it)."""
        if self._building is None:
            return
        self.panes.answer.set_prepared(first.prepared, [])
        self._drawn = first.spans
        self._rest_later.request()

    def _build_rest(self) -> None:
        """The first phase of the case whose answer was drawn first."""
        if self._building is not None:
            (BackgroundOp(self, self._building.first_phase, key=CASE_WORK)
             .success(self._on_first).failure(self._on_build_failed).run())

    def chip_before_view(self, index: int) -> None:
        """A chip of an answer drawn first, clicked while its case is built: that citation is
        the one made active once it is (its source and span shown then)."""
        if self.state.view is None and self._drawn is not None:
            self._clicked = index  # (drawn before the input was read: kept for its case)
            if self._pending is not None:
                self._pending = (index, 0)

    def draw_early(self, answer: str, then: Callable[[], None]) -> None:
        """Draw ``answer``, read ahead of the big input it is the answer of, before that input
        is read and checked whole; ``then`` opens the input once the drawing is painted (or
        at once if it cannot be drawn). The case shown next keeps the drawing when its answer
        is this one."""
        self._ahead_later.cancel()
        self._rest_later.cancel()
        self._release_lint()
        self.state.set_view(None)
        self.state.set_active(None, self.state.active_source)
        build = self._build(Case("", answer))
        self._then = then

        def drawn(first: AnswerFirst) -> None:
            self.panes.answer.set_prepared(first.prepared, [])
            self._early = (build, first)
            self._drawn = first.spans
            self._pending = None
            self._open_later.request()

        # Drawn here, now: the window has nothing else to do before it shows the new input (a
        # worker's drawing took 4-6x its CPU time in wall time, handing the GIL to and fro with
        # the event loop on a busy machine); read in a worker after the paint.
        (BackgroundOp(self, build.answer_first, key=EARLY_WORK)
         .success(drawn).failure(lambda _err: self._open_later.request()).run(here=True))

    def cancel_early(self) -> bool:
        """Another input is opened: an input whose answer was drawn early is not opened after
        its paint (its drawing gives way to what is shown next). Whether one was."""
        dropped = self._then is not None or self._early is not None
        self._open_later.cancel()
        self._then = None
        self._early = None
        return dropped

    def _open_input(self) -> None:
        then, self._then = self._then, None
        if then is not None:
            then()

    def forget_early(self) -> None:
        """The input whose answer was drawn early could not be opened (told already): the case
        shown before it again, or nothing."""
        self._early = self._drawn = self._clicked = None
        dataset = self.state.dataset
        if dataset is not None and 0 <= self.state.case_index < len(dataset):
            self.show_case(self.state.case_index)
        else:
            self.panes.answer.clear_content("")

    def _on_first(self, first: SourceFirst) -> None:
        """First phase: the source the first citation cites is shown (filled in pieces), then
        the view-model and the answer are built."""
        if self._building is None:
            return
        b = self._building
        if first.source is not None:
            self.panes.source.adopt(first.source)
            self.panes.source.show_source(first.source.source)
            if first.target is not None and self._pending == (0, 0):
                # The first citation's span with the first paint of its lines; activating the
                # citation once the case is built highlights the same span again.
                self.panes.source.highlight(first.target)
        if first.built is not None:
            self._on_built(first.built, first.linted)
            return
        material, shown, drawn = first.material, first.source, self._drawn
        (BackgroundOp(self, lambda: build_view(b.case, b.dark, b.font, b.analyser,
                                               material, shown, support=False, drawn=drawn),
                      key=CASE_WORK)
         .success(self._on_built).failure(self._on_build_failed)
         .run(here=self.synchronous))

    def sizes_pending(self) -> bool:
        """Whether item counts of a case shown wait for its paint to join the progress, or its
        tables' columns and status-bar counts for that paint."""
        return bool(self._sizes) or self._chrome_pending

    def _fit_chrome(self) -> None:
        """The tables fitted and the counts shown, put off by :meth:`_on_built`."""
        if self._chrome_pending:
            self._chrome_pending = False
            self.fit_tables()
            self.update_counts()

    def _record_sizes(self) -> None:
        """The item counts put off by :meth:`_on_built`, into the session (if still open)."""
        sizes, self._sizes = self._sizes, []
        for session, case_id, counts in sizes:
            if session is self.review_session.session and not session.closed:
                session.record_sizes(case_id, counts)

    def _release_lint(self) -> None:
        """Let the lint waiting for the answer's paint start (painted, or another case asked
        for: the lane must not wait for it)."""
        gate, self._lint_gate = self._lint_gate, None
        if gate is not None:
            gate.set()

    def _apply_tints(self, *_: object) -> None:
        """The tints put off by :meth:`_on_built`, if their case and source are still shown."""
        tints, self._tints = self._tints, None
        source = self.panes.source
        if (tints is not None and self.state.view is tints[0]
                and source.shown_source_id() == tints[1]):
            source.set_tints(tints[2])

    def show_nothing(self, text: str) -> None:
        """No case to show (an empty input): clear the panes and tables, saying ``text``."""
        ops.cancel(self, CASE_WORK)
        self.state.set_view(None)
        self.state.set_active(None, self.state.active_source)
        self.panes.answer.clear_content(text)
        self.panes.sources_model.set_rows([])
        self.panes.citations_model.set_view(None)
        self.panes.source.show_source(None)

    def stop(self) -> None:
        """Nothing built or linted now may land (the window closes)."""
        self._ahead_later.cancel()
        self._rest_later.cancel()
        self._open_later.cancel()
        self._chrome_later.cancel()  # (its counts would read the session just closed)
        self._tints_later.cancel()
        self._chrome_pending = False
        self._then = None
        self._release_lint()
        ops.cancel(self)

    def _title(self, case_id: str) -> str:
        path = self.state.path
        name = os.path.basename(path) if path else "demo"
        return f"{safe_title(case_id)} \u2014 {safe_title(name)} \u2014 citeview"

    def fit_tables(self) -> None:
        """Size the citations and sources tables' columns to the case shown, when the longest
        texts of their first rows changed (cases of a dataset mostly look alike: sizing the
        columns costs more than showing the case)."""
        for name, table, model, width in (
                ("citations", self.panes.citations_table, self.panes.citations_model, 260),
                ("sources", self.panes.sources_table, self.panes.sources_model, 160)):
            shape = model.text_lengths(64)
            if self._fitted.get(name) != shape:
                self._fitted[name] = shape
                fit_columns(table, width)
        self.fit_verdicts()

    def fit_verdicts(self) -> None:
        """The Verdict column shows every label of the rubric, and the verdicts of the first
        rows, whole (it was sized to the case's first rows, often not judged yet)."""
        session = self.review_session.session
        texts = list(session.labels) if session is not None else []
        view = self.state.view
        if view is not None:
            texts += [c.verdict_text for c in view.citations[:64] if c.verdict_text]
        widen_to_fit(self.panes.citations_table, CitationsModel.VERDICT_COLUMN, texts)

    def _show_loading(self) -> None:
        if self.state.view is None and self._building is not None:
            if self._drawn is None:  # (an answer drawn first stays)
                self.panes.answer.clear_content("Loading\u2026")
            message.info("Loading case\u2026", message.KEEP)

    def _on_build_failed(self, err: Exception) -> None:
        self._loading_timer.stop()
        self._building = None
        self.panes.answer.clear_content(str(err))
        message.error(str(err))
        self.review_session.start_making()  # the review need not wait for a broken case

    def _on_built(self, result: BuiltView,
                  linted: list[Diagnostic] | Exception | None = None) -> None:
        view = result.view
        self._drawn = None
        self.state.set_view(view)
        self.navigator.hold_tables()  # the answer and source paint first
        # Lint already done (a small case): its findings join before the tables are filled,
        # so the tables and chips are filled once, not again when lint lands.
        restyle = set(self._apply_lint(linted)) if isinstance(linted, list) else set()
        claims = [(c.shown_claim if c.shown_claim is not None
                   else view.case.answer[c.claim[0]:c.claim[1]], c.claim)
                  for c in view.citations]
        if result.prepared is not None:
            self.panes.answer.set_prepared(result.prepared, claims)
        else:  # the answer drawn first stays: its chips take their looks
            self.panes.answer.set_claims(claims)
            restyle.update(result.restyle)
        restyle.update(self.progress.decorate(view))
        if restyle:
            self.panes.answer.update_chips([view.citations[i].chip for i in sorted(restyle)])
        self.modes.refresh_raw()
        self._building = None
        self._loading_timer.stop()
        loaded = self.panes.source.shown_prepared()
        if loaded is not None and loaded.lexer_later and not loaded.lexer_done:
            # The lexer after the first paint: the first guess imports Pygments' lexers.
            (BackgroundOp(self, loaded.guess_lexer, key=LEXER_WORK)
             .success(lambda _: self.panes.source.colour_later())
             .run(here=self.synchronous, after_paint=True))
        self.panes.sources_model.set_rows(view.sources)
        self.panes.citations_model.set_view(view)
        if self.synchronous:
            self.fit_tables()
        else:
            self._chrome_pending = True
            self._chrome_later.request()
        source = self.panes.source
        shown, shown_src = source.shown_source_id(), source.shown_source()
        if shown is not None and any(r.source is shown_src for r in view.sources):
            # Shown by the first phase: it keeps its document; the other citations tint it
            # (many: after the answer is painted).
            spans = view.cited_spans.get(shown, [])
            if self.synchronous or len(spans) < MANY_TINTS:
                source.set_tints(spans)
            else:
                self._tints = (view, shown, spans)
                self._tints_later.request()
        else:
            self.panes.source.show_source(None)
        if self.synchronous:
            self.update_counts()
        pending = self._pending
        self._pending = None
        if pending is not None and pending[0] is not None and view.citations:
            # (Not said in the status bar: cleared below. A message shown and cleared hid and
            # showed the status bar's labels, each a layout of the window before the paint.)
            self.navigator.activate_citation(min(pending[0], len(view.citations) - 1),
                                            pending[1], tell=False)
        elif view.sources and view.sources[0].source is not None and not (
                view.citations and self.landing()):
            # (a case the advance lands in shows its landing citation's source once, not this
            # one first)
            self.navigator.show_source_row(view.sources[0])
        session = self.review_session.session
        if session is not None and view.analysed is not None and not session.closed:
            # First analysis of this case: its counts join the progress (stored once), after
            # the case's first paint (a write to the session file, and the progress it
            # repaints, took 2 ms of each case switch).
            self._sizes.append((session, view.case.id, view.analysed.item_counts))
            if self.synchronous:
                self._record_sizes()  # (a snapshot: no frame to wait for)
            else:
                self._sizes_later.request()
        activated = pending is not None and pending[0] is not None and bool(view.citations)
        if activated or not (view.citations and self.landing()):
            # (A case the advance lands in says its landing citation instead: cleared, then
            # told, the status bar hid and showed its labels again before the paint.)
            message.clear()
        self.viewReady.emit()
        if case_size(view.case) < TINY_CASE:  # (a big case's next is not built ahead)
            self.prefetch_next_soon()
        if isinstance(linted, Exception):
            message.error(str(linted))
            return
        if linted is not None:
            if self.modes.raw_mode:
                self.modes.show_raw_active()
            self.lintReady.emit()
            return
        case, analysed = view.case, view.analysed
        painted: threading.Event | None = None
        if not self.synchronous:
            # Started now (the case is not settled until it lands), linting once the answer
            # is painted.
            self._release_lint()
            painted = self._lint_gate = threading.Event()
            self._lint_after_paint.request()
        (BackgroundOp(self, lambda: lint_and_support(case, analysed, painted), key=CASE_WORK)
         .success(self._on_linted).failure(lambda err: message.error(str(err)))
         .run(here=self.synchronous, after_paint=True))

    def _on_linted(self, linted: Linted) -> None:
        """Second phase: lint diagnostics join the tables, chips and raw view (and the support
        hints the tables and tooltips show)."""
        view = self.state.view
        if view is None:
            return
        if linted.support is not None and len(linted.support) == len(view.citations):
            view.set_support(linted.support)
        changed = self._apply_lint(linted.found)
        if changed:
            self.panes.answer.update_chips([view.citations[i].chip for i in changed])
        self.panes.citations_model.set_view(view)  # its last column, lint's, stretches: no fit
        if self.state.active is not None:
            self.navigator.select_citation_row(self.state.active)
        self.modes.refresh_raw()
        if self.modes.raw_mode:
            self.modes.show_raw_active()
        self.update_counts()
        self.lintReady.emit()

    def _apply_lint(self, found: list[Diagnostic]) -> list[int]:
        """Lint's findings join the shown view-model; the citations whose chip changed."""
        assert self.state.view is not None
        # Blind: the reviewer judges without the linter's opinion.
        return self.state.view.apply_lint(None if self.state.blind else found)

    def refresh_citation(self, index: int) -> None:
        """Redraw citation ``index`` after its state changed (a verdict was set): its chip in
        the answer and its row in the table."""
        view = self.state.view
        if view is None or not 0 <= index < len(view.citations):
            return
        self.panes.answer.update_chips([view.citations[index].chip])
        self.panes.citations_model.refresh_citation(index)

    def update_counts(self) -> None:
        """The status bar's counts of the shown case."""
        if self.state.view is None or self.state.dataset is None:
            self.panes.counts_label.setText("")
            return
        c = self.state.view.counts()
        # Each count says what it counts: "0 problems" beside rows that all carry a lint
        # warning read as "nothing found".
        case = f"Case {number_at(self.state.case_index)}/{len(self.state.dataset)}"
        cited = f"{plural(c['citations'], 'citation')}, {c['problems']} with a problem"
        sources = plural(c["sources"], "source")
        if c["missing"]:
            sources += f", {c['missing']} missing"
        lint = f"lint: {plural(c['errors'], 'error')}, {plural(c['warnings'], 'warning')}"
        dot = " \u00b7 "
        # Shorter forms for a narrow pane: each still says what it counts (the sources are
        # listed in their own table, the case's place in the title).
        self.panes.counts_label.set_forms(dot.join((case, cited, sources, lint)),
                                   dot.join((case, cited, lint)), dot.join((cited, lint)),
                                   cited)


__all__ = ["CASE_WORK", "SMALL_CASE", "AnswerFirst", "BuiltView", "CaseLoader", "Linted",
           "SourceFirst", "answer_first", "build_view", "first_phase", "lint",
           "lint_and_support", "prepare_first"]
