#!/usr/bin/env python3
"""bench/gradients.py -- the TensorFlow and JAX anchors of bench/gradients.cpp (issue 18's targets
(a) and (b)): the forward call and value_and_grad on the same inputs, float32, in a jax.jit /
tf.function. Each is skipped without its package; never run in CI.

    python3 bench/gradients.py [--seconds S] [--threads N]
    taskset -c 0 python3 bench/gradients.py     # one core, as bench/gradients.cpp runs

Prints the minimum wall time per call and value_and_grad / forward for
  (a) sum((a*b + c*d - a/(b+1)) * 0.5) with respect to a, b, c, d; 16M float32 each
  (b) sum(tanh(x*w + b)) with respect to w; 1M float32
"""
from anchor_timing import best, run_anchors

BIG = 1 << 24
MID = 1 << 20


def ramp(np, n, lo, step):
    return (lo + step * (np.arange(n) % 1000)).astype(np.float32)


def inputs_a(np):
    return (ramp(np, BIG, -1.0, 0.002), ramp(np, BIG, 0.5, 0.001), ramp(np, BIG, 2.0, -0.003),
            ramp(np, BIG, -0.5, 0.001))


def inputs_b(np):
    return ramp(np, MID, -1.0, 0.002), ramp(np, MID, 0.5, -0.001)


def report(name, anchor, forward, value_and_grad, seconds):
    forward()
    value_and_grad()
    f = best(forward, seconds)
    vg = best(value_and_grad, seconds)
    print(f"({name}) {anchor:12s} forward {f * 1e6:9.1f} us  value_and_grad {vg * 1e6:9.1f} us  "
          f"ratio {vg / f:.2f}x")


def jax_cases(seconds):
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
    except ImportError:
        print("jax is not installed: skipped (pip install jax[cpu])")
        return
    print(f"jax {jax.__version__}")
    a, b, c, d = (jnp.asarray(v) for v in inputs_a(np))
    loss_a = lambda a_, b_, c_, d_: jnp.sum((a_ * b_ + c_ * d_ - a_ / (b_ + 1.0)) * 0.5)
    fa = jax.jit(loss_a)
    vga = jax.jit(jax.value_and_grad(loss_a, argnums=(0, 1, 2, 3)))
    report("a", "jax.jit", lambda: fa(a, b, c, d).block_until_ready(),
           lambda: jax.block_until_ready(vga(a, b, c, d)), seconds)
    x, w = (jnp.asarray(v) for v in inputs_b(np))
    bias = jnp.float32(0.1)
    loss_b = lambda w_: jnp.sum(jnp.tanh(x * w_ + bias))
    fb = jax.jit(loss_b)
    vgb = jax.jit(jax.value_and_grad(loss_b))
    report("b", "jax.jit", lambda: fb(w).block_until_ready(), lambda: jax.block_until_ready(vgb(w)), seconds)


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
    a, b, c, d = (tf.constant(v) for v in inputs_a(np))

    @tf.function
    def fa(a_, b_, c_, d_):
        return tf.reduce_sum((a_ * b_ + c_ * d_ - a_ / (b_ + 1.0)) * 0.5)

    @tf.function
    def vga(a_, b_, c_, d_):
        with tf.GradientTape() as tape:
            tape.watch([a_, b_, c_, d_])
            l = tf.reduce_sum((a_ * b_ + c_ * d_ - a_ / (b_ + 1.0)) * 0.5)
        return l, tape.gradient(l, [a_, b_, c_, d_])

    report("a", "tf.function", lambda: fa(a, b, c, d).numpy(),
           lambda: [t.numpy() for t in tf.nest.flatten(vga(a, b, c, d))], seconds)
    x, w = (tf.constant(v) for v in inputs_b(np))
    bias = tf.constant(0.1, tf.float32)

    @tf.function
    def fb(w_):
        return tf.reduce_sum(tf.tanh(x * w_ + bias))

    @tf.function
    def vgb(w_):
        with tf.GradientTape() as tape:
            tape.watch(w_)
            l = tf.reduce_sum(tf.tanh(x * w_ + bias))
        return l, tape.gradient(l, w_)

    report("b", "tf.function", lambda: fb(w).numpy(), lambda: [t.numpy() for t in vgb(w)], seconds)


if __name__ == "__main__":
    run_anchors(__doc__, jax_cases, tensorflow_cases)
