"""Retry helper for flaky network calls."""

import time


def retry(fn, attempts=3, delay=1.0):
    """Call fn until it succeeds, at most `attempts` times."""
    for i in range(attempts):
        try:
            return fn()
        except OSError:
            if i == attempts - 1:
                raise
            time.sleep(delay * 2 ** i)
