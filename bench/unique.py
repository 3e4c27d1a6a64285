#!/usr/bin/env python3
"""bench/unique.py -- the TensorFlow anchor of bench/unique.cpp: tf.unique (y and idx) on the same
data, eagerly and in a tf.function. Skipped without tensorflow; never run in CI.

    python3 bench/unique.py [--seconds S] [--threads N]

Prints the minimum wall time per call for
  few_int:    1M int32 values drawn from 1000 distinct ones
  many_float: 1M float32 values uniform in [0, 1) (almost all distinct)
"""
import argparse
import sys
from anchor_timing import best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=2.0, help="time spent per measurement")
    p.add_argument("--threads", type=int, default=0, help="TF's intra- and inter-op threads (0: TF's default, all cores)")
    args = p.parse_args()
    try:
        import numpy as np
        import tensorflow as tf
    except ImportError:
        print("tensorflow is not installed: skipped (pip install tensorflow-cpu, or make bench-anchors)")
        return 0
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)  # independent ops (two gradients) would run side by side otherwise
    rng = np.random.default_rng(5)
    size = 1 << 20
    cases = [("few_int", tf.constant(rng.integers(0, 1000, size).astype(np.int32) * 7919)),
             ("many_float", tf.constant(rng.random(size, dtype=np.float32)))]
    print(f"tensorflow {tf.__version__}, threads: intra-op {tf.config.threading.get_intra_op_parallelism_threads()}, inter-op {tf.config.threading.get_inter_op_parallelism_threads()}")
    unique_fn = tf.function(lambda v: tf.unique(v))
    for name, x in cases:
        def eager():
            y, idx = tf.unique(x)
            return y.numpy(), idx.numpy()

        def function():
            y, idx = unique_fn(x)
            return y.numpy(), idx.numpy()

        for label, fn in (("eager", eager), ("tf.function", function)):
            fn()
            t = best(fn, args.seconds)
            print(f"{name:10s} {label:12s} {t * 1e3:9.3f} ms  ({len(fn()[0])} distinct)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
