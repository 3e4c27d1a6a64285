#!/usr/bin/env python3
"""bench/conv3d.py -- the TensorFlow anchor of bench/conv3d.cpp: tf.nn.conv3d (NDHWC, DHWIO,
float32, SAME, 3x3x3 filters) on the same shapes, eagerly and in a tf.function, and the gradient
of sum(conv3d(x, k) * m) with respect to x and k in a tf.function (tf.GradientTape). Skipped
without tensorflow; never run in CI.

    python3 bench/conv3d.py [--seconds S] [--threads N]

Prints the minimum wall time per call and GFLOP/s (of the forward) for
  video:    a 1x8x56x56x64 volume, 64 filters (a C3D-style layer)
  medical:  a 1x32x32x32x16 volume, 32 filters (a 3-D U-Net-style layer)
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
    cases = [("video", (1, 8, 56, 56, 64), 64), ("medical", (1, 32, 32, 32, 16), 32)]
    print(f"tensorflow {tf.__version__}, threads: intra-op {tf.config.threading.get_intra_op_parallelism_threads()}, inter-op {tf.config.threading.get_inter_op_parallelism_threads()}")
    for name, xs, outs in cases:
        x = tf.random.uniform(xs, -1, 1)
        k = tf.random.uniform((3, 3, 3, xs[4], outs), -1, 1)
        m = tf.random.uniform(xs[:4] + (outs,), -1, 1)
        flops = 2.0 * xs[1] * xs[2] * xs[3] * outs * 27 * xs[4]

        def eager():
            return tf.nn.conv3d(x, k, strides=[1, 1, 1, 1, 1], padding="SAME").numpy()

        conv_fn = tf.function(lambda a, b: tf.nn.conv3d(a, b, strides=[1, 1, 1, 1, 1], padding="SAME"))

        def function():
            return conv_fn(x, k).numpy()

        @tf.function
        def value_and_grad(a, b, w):
            with tf.GradientTape() as tape:
                tape.watch([a, b])
                loss = tf.reduce_sum(tf.nn.conv3d(a, b, strides=[1, 1, 1, 1, 1], padding="SAME") * w)
            return loss, tape.gradient(loss, [a, b])

        def gradient():
            loss, (dx, dk) = value_and_grad(x, k, m)
            return loss.numpy(), dx.numpy(), dk.numpy()

        for label, fn in (("eager", eager), ("tf.function", function), ("gradient", gradient)):
            fn()
            t = best(fn, args.seconds)
            print(f"{name:8s} {label:12s} {t * 1e3:9.3f} ms  {flops / t / 1e9:7.1f} GFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
