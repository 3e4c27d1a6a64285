"""bench/anchor_timing.py -- timing shared by the Python anchors of the benchmarks (checkpoint.py,
conv.py): not a benchmark itself."""
import argparse
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


def tensorflow_or_none(threads):
    """TensorFlow with its intra- and inter-op threads set (0: its default), or None (and a line saying the
    cases are skipped) when it is not installed."""
    try:
        import tensorflow as tf
    except ImportError:
        print("tensorflow is not installed: skipped (pip install tensorflow-cpu)")
        return None
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)  # independent ops (two gradients) would run side by side otherwise
    return tf


def jax_or_none():
    """jax, or None (and a line saying the cases are skipped) when it is not installed."""
    try:
        import jax
    except ImportError:
        print("jax is not installed: skipped (pip install 'jax[cpu]')")
        return None
    return jax


def run_anchors(doc, jax_cases, tensorflow_cases):
    """The command line the anchor scripts share: --seconds per case, --threads for TensorFlow;
    runs jax_cases(seconds), then tensorflow_cases(seconds, threads)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per case (default 1)")
    parser.add_argument("--threads", type=int, default=0, help="TensorFlow intra- and inter-op threads (default: its own)")
    args = parser.parse_args()
    jax_cases(args.seconds)
    tensorflow_cases(args.seconds, args.threads)
