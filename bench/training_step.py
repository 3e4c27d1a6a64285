#!/usr/bin/env python3
"""bench/training_step.py -- issue 18 (c)'s anchors: the training step of bench/training_step.cpp
(784-256-256-10 MLP, relu, softmax cross-entropy averaged over the batch, float32, Adam with
Keras's defaults and learning rate 1e-3) as tf.function and as jax.jit, at batch 32, 128 and 256,
on this machine. Whatever is not pip-installed (tensorflow-cpu, jax[cpu]) is skipped; never run
in CI.

    python3 bench/training_step.py [--threads N] [--seconds S]

Prints the median and minimum time per step in microseconds; compare with the CPU-time column of
bench_training_step (one thread each unless --threads says otherwise).
"""
import argparse
import os
import statistics
import sys
import time

IN, HIDDEN, OUT = 784, 256, 10
LEARNING_RATE = 1e-3
BATCHES = (32, 128, 256)


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1, help="intra- and inter-op threads (default 1, as the C++ benchmark)")
    p.add_argument("--seconds", type=float, default=1.0, help="time spent per measurement")
    return p.parse_args()


def data(np, batch):
    rng = np.random.default_rng(batch)
    x = rng.random((batch, IN), dtype=np.float32)
    y = np.zeros((batch, OUT), np.float32)
    y[np.arange(batch), rng.integers(0, OUT, batch)] = 1
    return x, y


def glorot(np, rng, fan_in, fan_out):
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32)


def initial_params(np):
    rng = np.random.default_rng(18)
    return [glorot(np, rng, IN, HIDDEN), np.zeros(HIDDEN, np.float32), glorot(np, rng, HIDDEN, HIDDEN),
            np.zeros(HIDDEN, np.float32), glorot(np, rng, HIDDEN, OUT), np.zeros(OUT, np.float32)]


def timed(step, seconds):
    step()  # trace and compile
    step()
    samples = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(samples) < 10:
        t0 = time.perf_counter()
        step()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6, min(samples) * 1e6


def bench_tensorflow(np, args):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)  # independent ops (two gradients) would run side by side otherwise
    tf.config.threading.set_inter_op_parallelism_threads(1)
    for batch in BATCHES:
        x, y = (tf.constant(a) for a in data(np, batch))
        params = [tf.Variable(p) for p in initial_params(np)]
        opt = tf.keras.optimizers.Adam(LEARNING_RATE)

        @tf.function
        def train_step(x, y):
            with tf.GradientTape() as tape:
                a1 = tf.nn.relu(x @ params[0] + params[1])
                a2 = tf.nn.relu(a1 @ params[2] + params[3])
                logits = a2 @ params[4] + params[5]
                loss = -tf.reduce_mean(tf.reduce_sum(y * tf.nn.log_softmax(logits), axis=1))
            opt.apply_gradients(zip(tape.gradient(loss, params), params))
            return loss

        def step():
            return train_step(x, y).numpy()

        med, best = timed(step, args.seconds)
        print(f"tf.function  batch {batch:4d}: median {med:9.1f} us, min {best:9.1f} us")


def bench_jax(np, args):
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=%s intra_op_parallelism_threads=%d"
                          % ("false" if args.threads == 1 else "true", args.threads))
    import jax
    import jax.numpy as jnp

    def loss_fn(params, x, y):
        a1 = jax.nn.relu(x @ params[0] + params[1])
        a2 = jax.nn.relu(a1 @ params[2] + params[3])
        logits = a2 @ params[4] + params[5]
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), axis=1))

    @jax.jit
    def train_step(params, m, v, t, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        t = t + 1
        alpha = LEARNING_RATE * jnp.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        m = [mi + (g - mi) * (1 - 0.9) for mi, g in zip(m, grads)]
        v = [vi + (g * g - vi) * (1 - 0.999) for vi, g in zip(v, grads)]
        params = [p - alpha * mi / (jnp.sqrt(vi) + 1e-7) for p, mi, vi in zip(params, m, v)]
        return params, m, v, t, loss

    for batch in BATCHES:
        x, y = (jnp.asarray(a) for a in data(np, batch))
        state = [[jnp.asarray(p) for p in initial_params(np)], None, None, jnp.float32(0)]
        state[1] = [jnp.zeros_like(p) for p in state[0]]
        state[2] = [jnp.zeros_like(p) for p in state[0]]

        def step():
            params, m, v, t, loss = train_step(*state, x, y)
            state[:] = [params, m, v, t]
            return loss.block_until_ready()

        med, best = timed(step, args.seconds)
        print(f"jax.jit      batch {batch:4d}: median {med:9.1f} us, min {best:9.1f} us")


def main():
    args = parse()
    try:
        import numpy as np
    except ImportError:
        print("training_step.py: numpy is not installed; nothing to run")
        return 0
    for name, run in (("tensorflow", bench_tensorflow), ("jax", bench_jax)):
        try:
            __import__(name)
        except ImportError:
            print(f"training_step.py: {name} is not installed; skipped")
            continue
        run(np, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
