#!/usr/bin/env python3
"""bench/strings.py -- the TensorFlow anchor of bench/strings.cpp: the same string ops on the same
sizes in a tf.function (JAX has no string arrays). Skipped without TensorFlow; never run in CI.

    python3 bench/strings.py [--seconds S] [--threads N]

Prints the minimum wall time per call for
  join:         a + "-" + b over 100000 pairs of ASCII strings of 0-19 bytes (tf.strings.join)
  to_number:    tf.strings.to_number(s) * 2 over 100000 decimal strings
  reduce_join:  tf.strings.reduce_join(x, axis=1, separator=",") of a [1000, 100] string tensor
Each result is brought to the host (.numpy()), as staticflow's comes back in a container.
"""
import argparse
import random
import sys
from anchor_timing import best, tensorflow_or_none

COUNT, ROWS, COLUMNS = 100000, 1000, 100


def text(rng):
    return "".join(chr(ord("a") + rng.randrange(26)) for _ in range(rng.randrange(20)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=2.0, help="time spent per measurement")
    p.add_argument("--threads", type=int, default=0, help="TF's intra- and inter-op threads (0: TF's default, all cores)")
    args = p.parse_args()
    tf = tensorflow_or_none(args.threads)
    if tf is None:
        return 0
    rng = random.Random(5)
    a = tf.constant([text(rng) for _ in range(COUNT)])
    b = tf.constant([text(rng) for _ in range(COUNT)])
    numbers = tf.constant([f"{rng.randrange(200000) - 100000}.{rng.randrange(100)}" for _ in range(COUNT)])
    grid = tf.constant([[text(rng) for _ in range(COLUMNS)] for _ in range(ROWS)])
    join = tf.function(lambda x, y: tf.strings.join([x, y], separator="-"))
    to_number = tf.function(lambda s: tf.strings.to_number(s) * 2.0)
    reduce_join = tf.function(lambda x: tf.strings.reduce_join(x, axis=1, separator=","))
    print(f"tensorflow {tf.__version__}, threads: intra-op {tf.config.threading.get_intra_op_parallelism_threads()}, inter-op {tf.config.threading.get_inter_op_parallelism_threads()}")
    for name, fn in (("join", lambda: join(a, b).numpy()), ("to_number", lambda: to_number(numbers).numpy()),
                     ("reduce_join", lambda: reduce_join(grid).numpy())):
        fn()
        print(f"{name:12s} tf.function {best(fn, args.seconds) * 1e3:9.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
