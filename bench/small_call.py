#!/usr/bin/env python3
"""bench/small_call.py -- the TensorFlow and JAX anchors of bench/small_call.cpp (benchmark (b)):
the per-call cost of f(x, y) = x * x + y on 4 float32s, a tf.function and a jax.jit function called
with tensors already on the device, the result brought back as a NumPy array. Each is skipped when
its package is not installed; never run in CI.

    python3 bench/small_call.py [--seconds S] [--threads N]

Prints the minimum wall time per call in microseconds.
"""
import sys

from anchor_timing import best, jax_or_none, run_anchors, tensorflow_or_none


def time_call(label, f, x, y, to_host, seconds):
    """Prints the best time of one call of f(x, y) with its result brought to the host."""
    call = lambda: to_host(f(x, y))
    call()
    print(f"{label:28s} {best(call, seconds) * 1e6:9.2f} us")


def jax_cases(seconds):
    jax = jax_or_none()
    if jax is None:
        return
    import jax.numpy as jnp
    x = jnp.asarray([1, 2, 3, 4], dtype=jnp.float32)
    y = jnp.asarray([4, 3, 2, 1], dtype=jnp.float32)
    time_call(f"jax {jax.__version__} jit", jax.jit(lambda a, b: a * a + b), x, y,
              lambda r: r.block_until_ready(), seconds)


def tensorflow_cases(seconds, threads):
    tf = tensorflow_or_none(threads)
    if tf is None:
        return
    x = tf.constant([1, 2, 3, 4], dtype=tf.float32)
    y = tf.constant([4, 3, 2, 1], dtype=tf.float32)
    time_call(f"tensorflow {tf.__version__} tf.function", tf.function(lambda a, b: a * a + b), x, y,
              lambda r: r.numpy(), seconds)


if __name__ == "__main__":
    run_anchors(__doc__, jax_cases, tensorflow_cases)
    sys.exit(0)
