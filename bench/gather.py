#!/usr/bin/env python3
"""bench/gather.py -- the TensorFlow and JAX anchors of bench/gather.cpp: an embedding lookup
(tf.gather / jnp.take) and its gradient on the same shapes, float32, in a tf.function / jax.jit.
Each is skipped without its package; never run in CI.

    python3 bench/gather.py [--seconds S] [--threads N]

Prints the minimum wall time per call for
  lookup:    gather(table, ids), a [50000, 64] table and 4096 int32 ids in [0, 2000)
  gradient:  the gradient of sum(gather(table, ids) * w) with respect to table (dense, as
             staticflow's; TF's tape gives IndexedSlices, converted here with tf.convert_to_tensor)
"""
import argparse
import sys
from anchor_timing import best

VOCABULARY, WIDTH, LOOKUPS = 50000, 64, 4096


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
    table = tf.random.uniform((VOCABULARY, WIDTH), -1, 1)
    w = tf.random.uniform((LOOKUPS, WIDTH), -1, 1)
    ids = tf.random.uniform((LOOKUPS,), 0, 2000, dtype=tf.int32)
    lookup = tf.function(lambda t, i: tf.gather(t, i))

    @tf.function
    def gradient(t, i, weights):
        with tf.GradientTape() as tape:
            tape.watch(t)
            loss = tf.reduce_sum(tf.gather(t, i) * weights)
        return tf.convert_to_tensor(tape.gradient(loss, t))

    for name, fn in (("lookup", lambda: lookup(table, ids).numpy()), ("gradient", lambda: gradient(table, ids, w).numpy())):
        fn()
        print(f"{name:9s} tf.function {best(fn, seconds) * 1e6:9.1f} us")


def jax_cases(seconds):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("jax is not installed: skipped (pip install jax[cpu])")
        return
    print(f"jax {jax.__version__}")
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    table = jax.random.uniform(k1, (VOCABULARY, WIDTH), minval=-1, maxval=1)
    w = jax.random.uniform(k2, (LOOKUPS, WIDTH), minval=-1, maxval=1)
    ids = jax.random.randint(k3, (LOOKUPS,), 0, 2000, dtype=jnp.int32)
    lookup = jax.jit(lambda t, i: jnp.take(t, i, axis=0))
    gradient = jax.jit(jax.grad(lambda t, i, weights: jnp.sum(jnp.take(t, i, axis=0) * weights)))
    for name, fn in (("lookup", lambda: lookup(table, ids).block_until_ready()),
                     ("gradient", lambda: gradient(table, ids, w).block_until_ready())):
        fn()
        print(f"{name:9s} jax.jit     {best(fn, seconds) * 1e6:9.1f} us")


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
