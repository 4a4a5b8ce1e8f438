"""citeview: inspect answers that cite their sources with inline citation markers."""

__version__ = "0.1.0"
