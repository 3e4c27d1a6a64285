#!/usr/bin/env python3
"""bench/stencil.py -- the TensorFlow and JAX anchors of bench/stencil.cpp: one explicit heat step
from shifted slices, float32, as their users write it, on the same sizes. Each library that is not
installed is skipped; never run in CI.

    python3 bench/stencil.py [--seconds S] [--threads N]

Prints the minimum wall time per call (the result brought back as a NumPy array) for
  1d/n:  u[1:-1] + 0.1 * (u[2:] - 2 u[1:-1] + u[:-2])                       n = 4096, 1M
  2d/n:  u[1:-1, 1:-1] + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
         - 4 u[1:-1, 1:-1])                                                 n x n, n = 66, 1026
with NumPy (eager, for scale), tf.function, tf.function(jit_compile=True) and jax.jit.
"""
import argparse
import sys

import numpy as np

from anchor_timing import best, jax_or_none, tensorflow_or_none


def step_1d(u):
    mid = u[1:-1]
    return mid + 0.1 * (u[2:] - 2.0 * mid + u[:-2])


def step_2d(u):
    mid = u[1:-1, 1:-1]
    return mid + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4.0 * mid)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=1.0, help="time spent per measurement")
    p.add_argument("--threads", type=int, default=0, help="TF's intra- and inter-op threads (0: TF's default, all cores)")
    args = p.parse_args()
    rng = np.random.default_rng(5)
    inputs = [("1d", n, rng.uniform(-1, 1, n).astype(np.float32), step_1d) for n in (4096, 1 << 20)]
    inputs += [("2d", n, rng.uniform(-1, 1, (n, n)).astype(np.float32), step_2d) for n in (66, 1026)]

    rows = []
    for form, n, u, step in inputs:
        rows.append((form, n, "numpy", best(lambda: step(u), args.seconds)))

    tf = tensorflow_or_none(args.threads)
    if tf is not None:
        print(f"tensorflow {tf.__version__}")
        for form, n, u, step in inputs:
            t = tf.constant(u)
            for name, fn in (("tf.function", tf.function(step)), ("tf.function(jit_compile)", tf.function(step, jit_compile=True))):
                fn(t)
                rows.append((form, n, name, best(lambda: fn(t).numpy(), args.seconds)))

    jax = jax_or_none()
    if jax is not None:
        print(f"jax {jax.__version__}")
        for form, n, u, step in inputs:
            x = jax.device_put(u)
            fn = jax.jit(step)
            fn(x).block_until_ready()
            rows.append((form, n, "jax.jit", best(lambda: np.asarray(fn(x)), args.seconds)))

    for form, n, name, seconds in rows:
        print(f"{form}/{n:<8d} {name:26s} {seconds * 1e6:10.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
