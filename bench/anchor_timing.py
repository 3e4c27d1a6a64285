"""bench/anchor_timing.py -- timing shared by the Python anchors of the benchmarks (checkpoint.py,
conv.py): not a benchmark itself."""
import time


def best(fn, seconds):
    """The minimum wall time of fn() over at least `seconds` and at least three calls."""
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 3:
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
