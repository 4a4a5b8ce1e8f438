"""Timing shared by the benchmarks: the user CPU time of this process.

Kernel time (page faults while the heap grows to a new size) depends on the allocator and the
machine, not on the code measured, and it grows faster than linearly with the heap; wall time
depends on whatever else the machine runs. User CPU time is the code's own work.
"""

from __future__ import annotations

import time

try:
    import resource

    def user_time() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_utime

except ImportError:  # Windows: no getrusage; process time includes kernel time there
    def user_time() -> float:
        return time.process_time()
