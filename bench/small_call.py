#!/usr/bin/env python3
"""bench/small_call.py -- the TensorFlow and JAX anchors of bench/small_call.cpp (benchmark (b)):
the per-call cost of f(x, y) = x * x + y on 4 float32s, a tf.function and a jax.jit function called
with tensors already on the device, the result brought back as a NumPy array. Each is skipped when
its package is not installed; never run in CI.

    python3 bench/small_call.py [--seconds S] [--threads N]

Prints the minimum wall time per call in microseconds.
"""
import sys

from anchor_timing import best, run_anchors


def jax_cases(seconds):
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("jax is not installed: skipped (pip install 'jax[cpu]')")
        return
    f = jax.jit(lambda x, y: x * x + y)
    x = jnp.asarray([1, 2, 3, 4], dtype=jnp.float32)
    y = jnp.asarray([4, 3, 2, 1], dtype=jnp.float32)
    call = lambda: f(x, y).block_until_ready()
    call()
    print(f"jax {jax.__version__:10s} jit call       {best(call, seconds) * 1e6:9.2f} us")


def tensorflow_cases(seconds, threads):
    try:
        import tensorflow as tf
    except ImportError:
        print("tensorflow is not installed: skipped (pip install tensorflow-cpu)")
        return
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
    f = tf.function(lambda x, y: x * x + y)
    x = tf.constant([1, 2, 3, 4], dtype=tf.float32)
    y = tf.constant([4, 3, 2, 1], dtype=tf.float32)
    call = lambda: f(x, y).numpy()
    call()
    print(f"tensorflow {tf.__version__:10s} tf.function call {best(call, seconds) * 1e6:9.2f} us")


if __name__ == "__main__":
    run_anchors(__doc__, jax_cases, tensorflow_cases)
    sys.exit(0)
