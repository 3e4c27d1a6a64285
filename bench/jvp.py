#!/usr/bin/env python3
"""bench/jvp.py -- the TensorFlow and JAX anchors of bench/jvp.cpp: a Jacobian-vector product and a
Hessian-vector product on the same shapes, float32, in a jax.jit / tf.function. Each is skipped
without its package; never run in CI.

    python3 bench/jvp.py [--seconds S] [--threads N]

Prints the minimum wall time per call for (1M float32 per array, b = 0.1)
  forward:   tanh(x * w + b)
  jvp:       tanh(x * w + b) and its derivative along dw with respect to w
             (jax.jvp; TensorFlow: tf.autodiff.ForwardAccumulator)
  hvp:       the Hessian of sum(tanh(x * w + b)) with respect to w applied to v
             (JAX: jvp of grad, forward over reverse; TensorFlow: a ForwardAccumulator around a tape)
"""
from anchor_timing import best, run_anchors

SIZE = 1 << 20


def inputs(np):
    i = np.arange(SIZE) % 1000
    x = (-1.0 + 0.002 * i).astype(np.float32)
    w = (0.5 - 0.001 * i).astype(np.float32)
    dw = (0.25 + 0.0005 * i).astype(np.float32)
    return x, w, dw


def jax_cases(seconds):
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError:
        print("jax is not installed: skipped (pip install jax[cpu])")
        return
    print(f"jax {jax.__version__}")
    x, w, dw = (jnp.asarray(a) for a in inputs(np))
    b = jnp.float32(0.1)
    layer = lambda w_: jnp.tanh(x * w_ + b)
    loss = lambda w_: jnp.sum(jnp.tanh(x * w_ + b))
    forward = jax.jit(layer)
    jvp = jax.jit(lambda w_, t: jax.jvp(layer, (w_,), (t,)))
    hvp = jax.jit(lambda w_, t: jax.jvp(jax.grad(loss), (w_,), (t,))[1])
    cases = (("forward", lambda: forward(w).block_until_ready()),
             ("jvp", lambda: jax.block_until_ready(jvp(w, dw))),
             ("hvp", lambda: hvp(w, dw).block_until_ready()))
    for name, fn in cases:
        fn()
        print(f"{name:8s} jax.jit {best(fn, seconds) * 1e6:9.1f} us")


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
    x, w, dw = (tf.constant(a) for a in inputs(np))
    b = tf.constant(0.1, tf.float32)

    @tf.function
    def forward(w_):
        return tf.tanh(x * w_ + b)

    @tf.function
    def jvp(w_, t):
        with tf.autodiff.ForwardAccumulator(w_, t) as acc:
            y = tf.tanh(x * w_ + b)
        return y, acc.jvp(y)

    @tf.function
    def hvp(w_, t):
        with tf.autodiff.ForwardAccumulator(w_, t) as acc:
            with tf.GradientTape() as tape:
                tape.watch(w_)
                l = tf.reduce_sum(tf.tanh(x * w_ + b))
            g = tape.gradient(l, w_)
        return acc.jvp(g)

    cases = (("forward", lambda: forward(w).numpy()),
             ("jvp", lambda: [r.numpy() for r in jvp(w, dw)]),
             ("hvp", lambda: hvp(w, dw).numpy()))
    for name, fn in cases:
        fn()
        print(f"{name:8s} tf.function {best(fn, seconds) * 1e6:9.1f} us")


if __name__ == "__main__":
    run_anchors(__doc__, jax_cases, tensorflow_cases)
