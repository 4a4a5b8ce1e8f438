"""citeview prompt: print citation instructions for a model, matching `citeview prepare`."""

from __future__ import annotations

import argparse
import sys

from citeview.core.policy import MULTI_SOURCE_STYLES
from citeview.core.prepare import Unit
from citeview.core.prompts import instructions

HELP = "print citation instructions for a model (the rules `citeview lint` checks)"
READS_INPUT = False  # no --max-input-size: there is no input to limit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--unit", choices=[u.value for u in Unit], default=Unit.BLOCK.value,
                        help="citable unit of the material (default: block, as `citeview "
                        "prepare`)")
    parser.add_argument("--require-locators", action="store_true",
                        help="line units: every citation must carry a line range (lint: "
                        "--require-locators)")
    parser.add_argument("--multi-source", choices=MULTI_SOURCE_STYLES, default=None,
                        help="how several sources for one statement are cited: one marker "
                        "with several ids, or one marker per source (default: either; line "
                        "units: per-marker, as the guide asks for line-level material)")
    parser.add_argument("--extra-considerations", action="store_true",
                        help="add rules for higher-quality grounding (relevance, balance, "
                        "reliability)")


def run(args: argparse.Namespace) -> int:
    text = instructions(args.unit, args.require_locators, args.multi_source,
                        args.extra_considerations)
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()
    return 0
