#!/usr/bin/env python3
"""bench/conv.py -- the TensorFlow anchor of bench/conv.cpp: tf.keras.layers.Conv2D-style
convolutions (tf.nn.conv2d, NHWC, HWIO, float32) on the same shapes, eagerly and in a tf.function,
as the seed times its conv_fn. Skipped without tensorflow; never run in CI.

    python3 bench/conv.py [--seconds S] [--threads N]

Prints the minimum wall time per call and GFLOP/s (of the forward pass) for
  seed:    a 1x200x200x100 image, 100 3x3 filters, VALID (the seed's conv_fn)
  resnet:  a 1x56x56x64 image, 64 3x3 filters, SAME
  dilated: the same with dilations 2
  grouped: a 1x56x56x128 image, 128 3x3 filters in 32 groups of 4 channels, SAME (TF's CPU
           kernel may refuse groups: then the line says so)
  small:   a 1x14x14x64 image, 64 3x3 filters, SAME (14 MFLOP: TF's per-call cost shows)
and, for seed and resnet, "gradient": the value and both gradients (image, filter) of
sum(conv2d(x, k) * m) in a tf.function, and "layer": relu(bias_add(conv2d(x, k), b)) in a
tf.function (one _FusedConv2D after grappler), bench/conv.cpp's SeedLayer / ResNetLayer.
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
    cases = [("seed", (1, 200, 200, 100), (3, 3, 100, 100), "VALID", 1),
             ("resnet", (1, 56, 56, 64), (3, 3, 64, 64), "SAME", 1),
             ("dilated", (1, 56, 56, 64), (3, 3, 64, 64), "SAME", 2),
             ("grouped", (1, 56, 56, 128), (3, 3, 4, 128), "SAME", 1),
             ("small", (1, 14, 14, 64), (3, 3, 64, 64), "SAME", 1)]
    print(f"tensorflow {tf.__version__}, threads: intra-op {tf.config.threading.get_intra_op_parallelism_threads()}, inter-op {tf.config.threading.get_inter_op_parallelism_threads()}")
    for name, xs, fs, padding, dilation in cases:
        x = tf.random.uniform(xs, -1, 1)
        k = tf.random.uniform(fs, -1, 1)
        out_h = xs[1] if padding == "SAME" else xs[1] - (fs[0] - 1) * dilation
        out_w = xs[2] if padding == "SAME" else xs[2] - (fs[1] - 1) * dilation
        flops = 2.0 * out_h * out_w * fs[3] * fs[0] * fs[1] * fs[2]

        def eager():
            return tf.nn.conv2d(x, k, strides=1, padding=padding, dilations=dilation).numpy()

        conv_fn = tf.function(lambda a, b: tf.nn.conv2d(a, b, strides=1, padding=padding, dilations=dilation))

        def function():
            return conv_fn(x, k).numpy()

        m = tf.ones((xs[0], out_h, out_w, fs[3]))

        @tf.function
        def value_and_grad(a, b, w):
            with tf.GradientTape() as tape:
                tape.watch([a, b])
                loss = tf.reduce_sum(tf.nn.conv2d(a, b, strides=1, padding=padding, dilations=dilation) * w)
            return loss, tape.gradient(loss, [a, b])

        def gradient():
            loss, (dx, dk) = value_and_grad(x, k, m)
            return loss.numpy(), dx.numpy(), dk.numpy()

        bias = tf.random.uniform((fs[3],), -2, 2)
        layer_fn = tf.function(
            lambda a, b, c: tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(a, b, strides=1, padding=padding, dilations=dilation), c)))

        def layer():  # grappler's remapper makes this one _FusedConv2D (bias and relu as oneDNN post-ops)
            return layer_fn(x, k, bias).numpy()

        runs = [("eager", eager), ("tf.function", function)]
        if name in ("seed", "resnet"):  # bench/conv.cpp's Gradient and SeedLayer / ResNetLayer rows
            runs.append(("gradient", gradient))
            runs.append(("layer", layer))
        for label, fn in runs:
            try:
                fn()
            except Exception as error:  # TF's CPU kernels refuse some grouped convolutions
                print(f"{name:7s} {label:12s} not run by TF on this machine: {str(error).splitlines()[0][:100]}")
                continue
            t = best(fn, args.seconds)
            print(f"{name:7s} {label:12s} {t * 1e3:9.3f} ms  {flops / t / 1e9:7.1f} GFLOP/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
