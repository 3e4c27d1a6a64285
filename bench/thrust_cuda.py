#!/usr/bin/env python3
"""bench/thrust_cuda.py -- the JAX anchor of bench/thrust_cuda.cu on the same GPU: jax.jit of the
benchmark's reductions and gradients, float32, 2^26 elements (the matrix as [2^16, 1024]). Skipped
without JAX or without a GPU it can see; never run in CI (CI has no GPU).

    python3 bench/thrust_cuda.py [--elements N] [--seconds S]

Prints the minimum wall time per call (each call waits for its result: block_until_ready) of
  chain            (a*b + c*d - a/(b+1)) * 0.5
  copy             x + 1 (one read, one write: the bandwidth reference)
  sum              reduce_sum(a*b)
  rows / cols      the row sums and column sums of a as [n/1024, 1024]
  loss             sum(tanh(x*w + b))  and its value_and_grad w.r.t. w
  layer            sum(tanh(m + bias)) and its value_and_grad w.r.t. bias (a column sum)
  update           w - 0.01 * (w - t) on 2^24 floats, w donated (a variable's update kept on the GPU,
                   as JAX and TensorFlow keep parameters)
bench_thrust_cuda times with CUDA events on its stream (no host wait per call): compare ratios
(value_and_grad / forward, x memcpy) more than absolute times.
"""
import argparse
from anchor_timing import best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--elements", type=int, default=1 << 26)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("jax is not installed: skipped")
        return
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        print(f"jax {jax.__version__} sees no GPU: skipped")
        return
    n = args.elements
    cols = 1024
    rows = n // cols
    print(f"jax {jax.__version__} on {gpus[0].device_kind}, {n} float32 elements")
    step = 1e-7
    a = jnp.arange(n, dtype=jnp.float32) * step + 0.5
    b = jnp.arange(n, dtype=jnp.float32) * step + 1.0
    c = jnp.arange(n, dtype=jnp.float32) * step + 0.25
    d = jnp.arange(n, dtype=jnp.float32) * step + 2.0
    m = a.reshape(rows, cols)
    bias = d[:cols]

    def loss(x, w, bb):
        return jnp.sum(jnp.tanh(x * w + bb))

    def layer(mm, bb):
        return jnp.sum(jnp.tanh(mm + bb))

    # arrays go in as arguments: closed over inside jax.jit they would be constants XLA may fold
    cases = (
        ("copy (x + 1)", jax.jit(lambda x: x + 1.0), (a,)),  # one read, one write: the bandwidth reference
        ("chain", jax.jit(lambda x, y, z, t: (x * y + z * t - x / (y + 1.0)) * 0.5), (a, b, c, d)),
        ("sum", jax.jit(lambda x, y: jnp.sum(x * y)), (a, b)),
        ("rows", jax.jit(lambda mm: jnp.sum(mm, axis=1)), (m,)),
        ("cols", jax.jit(lambda mm: jnp.sum(mm, axis=0)), (m,)),
        ("loss forward", jax.jit(loss), (a, b, c)),
        ("loss value_and_grad", jax.jit(jax.value_and_grad(loss, argnums=1)), (a, b, c)),
        ("layer forward", jax.jit(layer), (m, bias)),
        ("layer value_and_grad", jax.jit(jax.value_and_grad(layer, argnums=1)), (m, bias)),
    )
    vn = min(n, 1 << 24)
    w = jnp.ones(vn, dtype=jnp.float32)
    t = b[:vn]
    update = jax.jit(lambda ww, tt: ww - 0.01 * (ww - tt), donate_argnums=0)
    state = [w]

    def update_step():
        state[0] = update(state[0], t)  # the old buffer is donated: updated in place
        return state[0]

    times = {}
    for name, fn, operands in cases:
        call = lambda fn=fn, operands=operands: jax.block_until_ready(fn(*operands))
        call()
        times[name] = best(call, args.seconds)
        print(f"{name:22s} {times[name] * 1e3:9.3f} ms")
    update_step()
    times["update"] = best(lambda: jax.block_until_ready(update_step()), args.seconds)
    print(f"{'update (donated)':22s} {times['update'] * 1e3:9.3f} ms  ({vn} floats)")
    copy_gbps = 2 * n * 4 / times["copy (x + 1)"] / 1e9
    print(f"copy bandwidth {copy_gbps:.0f} GB/s; chain {5 * n * 4 / times['chain'] / 1e9 / copy_gbps:.2f}x of it, "
          f"cols {n * 4 / times['cols'] / 1e9 / copy_gbps:.2f}x")
    print(f"value_and_grad / forward: loss {times['loss value_and_grad'] / times['loss forward']:.2f}x, "
          f"layer {times['layer value_and_grad'] / times['layer forward']:.2f}x")


if __name__ == "__main__":
    main()
