"""Benchmark: the window's GUI thread while it counts a session file's cases (issue 26).

    python benchmarks/bench_count_window.py SESSION.citeview [--idle]

A copy of SESSION (one whose item counts and rows are not stored yet: made, never opened) is
opened in a window (offscreen); a 5 ms ``QTimer`` on the GUI thread ticks until the progress
stops saying "counting". Printed: how long the count took, how often the timer fired and its
longest gaps (target: < 50 ms). A session of 1,000 cases or more is counted by the background
pass (``citeview/session/prefill.py``, which stores the export rows too); ``--idle`` keeps
the window 20 s with nothing asked of it instead (give a session already counted): what the
machine's load alone does to the timer.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session")
    parser.add_argument("--idle", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    tmp = tempfile.mkdtemp(prefix="citeview-count-")
    path = os.path.join(tmp, "s.citeview")
    shutil.copyfile(args.session, path)
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from citeview.gui.main_window import MainWindow
    from citeview.gui.review_session import ANNOTATOR_KEY

    settings = QSettings(os.path.join(tmp, "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "qa")
    win = MainWindow(settings=settings)
    win.resize(1000, 700)
    win.show()
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    t0 = time.perf_counter()
    assert win.open_path(path)
    opened = time.perf_counter() - t0
    timer.start()
    start = last[0] = time.perf_counter()
    seen = False
    while time.perf_counter() - start < 3600:
        app.processEvents()
        text = win.progress_label.text()
        waited = time.perf_counter() - start
        if "counting" in text:
            seen = True
        elif (waited > 20 if args.idle else (seen or waited > 20)) and "Citations judged" in text:
            break
        time.sleep(0.001)
    took = time.perf_counter() - start
    timer.stop()
    print(f"open_path {opened * 1000:.0f} ms; {'idle' if args.idle else 'counted'} "
          f"{took:.1f} s; progress {win.progress_label.text()!r}")
    print(f"timer fired {len(gaps)} times, longest gap {max(gaps) * 1000:.1f} ms, "
          f"gaps > 50 ms: {sum(g > 0.05 for g in gaps)}, > 20 ms: {sum(g > 0.02 for g in gaps)}")
    win.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
