"""Every fuzz target (fuzz/targets.py) for a few examples: no exception escapes citeview but its
own InputError (and subclasses), with a one-line message; lint's output is always complete.

The examples are derandomized (the same each run, so CI is reproducible); run the targets for
longer and at random with ``python fuzz/run.py --seconds 600``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.targets import TARGETS  # noqa: E402

EXAMPLES = {"markers": 150, "material": 80, "inputs": 60, "commands": 25,
            "session-export": 25, "session-file": 40, "policy": 30}


@pytest.mark.parametrize("name", list(TARGETS))
def test_fuzz_target(name: str) -> None:
    target = TARGETS[name]
    run = settings(max_examples=EXAMPLES[name], derandomize=True, deadline=None, database=None,
                   suppress_health_check=list(HealthCheck))(given(target.strategy)(target.check))
    run()


def test_every_target_runs_in_ci() -> None:
    assert set(EXAMPLES) == set(TARGETS)
