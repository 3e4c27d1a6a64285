#!/usr/bin/env python3
"""bench/pool.py -- the TensorFlow anchor of bench/pool.cpp: tf.nn.max_pool2d / avg_pool2d and the
max-pool gradient (MaxPoolGrad) on the same shapes, float32, NHWC, in a tf.function. Skipped
without tensorflow; never run in CI.

    python3 bench/pool.py [--seconds S] [--threads N]

Prints the minimum wall time per call for
  max:      3x3, stride 2, SAME on 1x112x112x64 (ResNet's stem pool)
  avg:      2x2, stride 2, VALID on 8x56x56x64
  max_grad: the gradient of sum(max_pool(x) * m) with respect to x, the max case's shapes
  max_jvp:  max_pool's derivative along a tangent t of x's shape (forward-mode through the tape:
            tf.autodiff.ForwardAccumulator, which runs MaxPoolGradGrad), the max case's shapes
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
        import tensorflow as tf
    except ImportError:
        print("tensorflow is not installed: skipped (pip install tensorflow-cpu, or make bench-anchors)")
        return 0
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)  # independent ops (two gradients) would run side by side otherwise
    print(f"tensorflow {tf.__version__}, threads: intra-op {tf.config.threading.get_intra_op_parallelism_threads()}, inter-op {tf.config.threading.get_inter_op_parallelism_threads()}")
    x_max = tf.random.uniform((1, 112, 112, 64), -1, 1)
    x_avg = tf.random.uniform((8, 56, 56, 64), -1, 1)
    m = tf.random.uniform((1, 56, 56, 64), -1, 1)
    max_fn = tf.function(lambda a: tf.nn.max_pool2d(a, 3, 2, "SAME"))
    avg_fn = tf.function(lambda a: tf.nn.avg_pool2d(a, 2, 2, "VALID"))

    @tf.function
    def max_grad(a, w):
        with tf.GradientTape() as tape:
            tape.watch(a)
            loss = tf.reduce_sum(tf.nn.max_pool2d(a, 3, 2, "SAME") * w)
        return tape.gradient(loss, a)

    t_max = tf.random.uniform((1, 112, 112, 64), -1, 1)

    @tf.function
    def max_jvp(a, t):
        with tf.autodiff.ForwardAccumulator(a, t) as acc:
            y = tf.nn.max_pool2d(a, 3, 2, "SAME")
        return acc.jvp(y)

    cases = (("max", lambda: max_fn(x_max).numpy()), ("avg", lambda: avg_fn(x_avg).numpy()),
             ("max_grad", lambda: max_grad(x_max, m).numpy()), ("max_jvp", lambda: max_jvp(x_max, t_max).numpy()))
    for name, fn in cases:
        fn()
        t = best(fn, args.seconds)
        print(f"{name:9s} tf.function {t * 1e6:9.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
