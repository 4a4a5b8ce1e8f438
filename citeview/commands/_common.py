"""Options shared by several subcommands."""

from __future__ import annotations

import argparse

from citeview.core.markers import DEFAULT_FAMILIES


def add_families(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--families",
        default=",".join(DEFAULT_FAMILIES),
        type=lambda s: tuple(f for f in s.split(",") if f),
        help="comma-separated citation families to accept (default: cite)",
    )
