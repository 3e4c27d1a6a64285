#!/usr/bin/env python3
"""bench/loop_gradient.py -- the TensorFlow and JAX anchors of bench/loop_gradient.cpp: the value and
gradient of a loss that runs a recurrence through a loop, float32, in a jax.jit / tf.function. Each
is skipped without its package; never run in CI.

    python3 bench/loop_gradient.py [--seconds S] [--threads N]

Prints the minimum wall time per call, for (4096 per state, 100 steps) and (64, 1000), of
  forward:         sum(h) after h <- tanh(h * w + x) n times from h = x
  value_and_grad:  the loss and its gradient with respect to w
JAX: lax.fori_loop with the trip count fixed when jit traces (a scan: JAX has no reverse mode for a
while_loop whose trip count is known only at run time). TensorFlow: a tf.while_loop over a run-time
trip count under a GradientTape (what staticflow's loop is).
"""
from anchor_timing import best, run_anchors

SHAPES = ((4096, 100), (64, 1000))


def inputs(np, size):
    i = np.arange(size) % 1000
    x = (-0.5 + 0.001 * i).astype(np.float32)
    w = (0.9 - 0.0005 * i).astype(np.float32)
    return x, w


def jax_cases(seconds):
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError:
        print("jax is not installed: skipped (pip install jax[cpu])")
        return
    print(f"jax {jax.__version__}")
    for size, steps in SHAPES:
        x, w = (jnp.asarray(a) for a in inputs(np, size))

        def loss(w_, x_, n=steps):
            return jnp.sum(jax.lax.fori_loop(0, n, lambda _, h: jnp.tanh(h * w_ + x_), x_))

        forward = jax.jit(loss)
        value_and_grad = jax.jit(jax.value_and_grad(loss))
        cases = (("forward", lambda: forward(w, x).block_until_ready()),
                 ("value_and_grad", lambda: jax.block_until_ready(value_and_grad(w, x))))
        for name, fn in cases:
            fn()
            print(f"{name:15s} {size:5d} x {steps:5d} jax.jit {best(fn, seconds) * 1e6:10.1f} us")


def tensorflow_cases(seconds, threads):
    try:
        import numpy as np
        import tensorflow as tf
    except ImportError:
        print("tensorflow is not installed: skipped (pip install tensorflow-cpu)")
        return
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)  # independent ops (two gradients) would run side by side otherwise
    print(f"tensorflow {tf.__version__}")
    for size, steps in SHAPES:
        x, w = (tf.constant(a) for a in inputs(np, size))
        n = tf.constant(steps)

        def loss(w_, x_, n_):
            _, h = tf.while_loop(lambda i, h: i < n_, lambda i, h: (i + 1, tf.tanh(h * w_ + x_)), (0, x_))
            return tf.reduce_sum(h)

        forward = tf.function(loss)

        @tf.function
        def value_and_grad(w_, x_, n_):
            with tf.GradientTape() as tape:
                tape.watch(w_)
                l = loss(w_, x_, n_)
            return l, tape.gradient(l, w_)

        cases = (("forward", lambda: forward(w, x, n).numpy()),
                 ("value_and_grad", lambda: [r.numpy() for r in value_and_grad(w, x, n)]))
        for name, fn in cases:
            fn()
            print(f"{name:15s} {size:5d} x {steps:5d} tf.function {best(fn, seconds) * 1e6:10.1f} us")


if __name__ == "__main__":
    run_anchors(__doc__, jax_cases, tensorflow_cases)
