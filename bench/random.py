#!/usr/bin/env python3
"""bench/random.py -- the TensorFlow and JAX anchors of bench/random.cpp: stateless random numbers
and dropout on float32 [1M] (2^20 values), in a tf.function / jax.jit, the seed an argument (a new
one per step costs no retrace). Each is skipped without its package; never run in CI.

    python3 bench/random.py [--seconds S] [--threads N]

Prints the minimum wall time per call for
  uniform:  tf.random.stateless_uniform / jax.random.uniform
  normal:   tf.random.stateless_normal / jax.random.normal
  dropout:  tf.nn.experimental.stateless_dropout(x, 0.5) / a jnp.where on a uniform draw
(JAX's default generator is threefry, not Philox: same job, other numbers.)
"""
import argparse
import sys
from anchor_timing import best

SIZE = 1 << 20


def tensorflow_cases(seconds, threads):
    try:
        import tensorflow as tf
    except ImportError:
        print("tensorflow is not installed: skipped (pip install tensorflow-cpu, or make bench-anchors)")
        return
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)  # independent ops (two gradients) would run side by side otherwise
    print(f"tensorflow {tf.__version__}, threads: intra-op {tf.config.threading.get_intra_op_parallelism_threads()}, inter-op {tf.config.threading.get_inter_op_parallelism_threads()}")
    x = tf.ones((SIZE,))
    seed = tf.constant([1, 2], tf.int64)
    uniform = tf.function(lambda s: tf.random.stateless_uniform((SIZE,), s))
    normal = tf.function(lambda s: tf.random.stateless_normal((SIZE,), s))
    dropout = tf.function(lambda v, s: tf.nn.experimental.stateless_dropout(v, 0.5, s))
    for name, fn in (("uniform", lambda: uniform(seed).numpy()), ("normal", lambda: normal(seed).numpy()),
                     ("dropout", lambda: dropout(x, seed).numpy())):
        fn()
        print(f"{name:8s} tf.function {best(fn, seconds) * 1e6:9.1f} us")


def jax_cases(seconds):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("jax is not installed: skipped (pip install jax[cpu])")
        return
    print(f"jax {jax.__version__}")
    x = jnp.ones((SIZE,))
    key = jax.random.PRNGKey(0)
    uniform = jax.jit(lambda k: jax.random.uniform(k, (SIZE,)))
    normal = jax.jit(lambda k: jax.random.normal(k, (SIZE,)))
    dropout = jax.jit(lambda v, k: jnp.where(jax.random.uniform(k, v.shape) >= 0.5, v * 2, 0))
    for name, fn in (("uniform", lambda: uniform(key).block_until_ready()), ("normal", lambda: normal(key).block_until_ready()),
                     ("dropout", lambda: dropout(x, key).block_until_ready())):
        fn()
        print(f"{name:8s} jax.jit     {best(fn, seconds) * 1e6:9.1f} us")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=2.0, help="time spent per measurement")
    p.add_argument("--threads", type=int, default=0, help="TF's intra- and inter-op threads (0: TF's default, all cores)")
    args = p.parse_args()
    tensorflow_cases(args.seconds, args.threads)
    jax_cases(args.seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
