#!/usr/bin/env python3
"""bench/compile_time_anchor.py -- the JAX and TensorFlow anchors of bench/compile_time.sh: how long
each framework takes to trace and compile the same N-node elementwise chains that g++ compiles
there. Each framework is skipped without its package; never run in CI.

    python3 bench/compile_time_anchor.py [N ...] [--repeat R]      # default N: 50 200, R: 3

The chain is bench/compile_time_gen.py's own (its chain(n), node for node: +, - or * with one of
the four arguments, tanh / exp every 10th node), written out as straight-line Python as the C++ TUs
write it, over four float32 1-D arguments:
  forward   sf_N.cpp: sf::function of the chain            -> the chain f(a, b, c, d)
  gradient  gr_N.cpp: sf::grad<0, 1, 2, 3> of the chain    -> the four gradients of sum(f(a, b, c, d))
            (sf::grad differentiates the sum of a non-scalar value, TensorFlow's rule; gr_N.cpp
            returns std::get<0> of them, but all four are traced and compiled)
Each measurement builds a fresh Python function (and clears JAX's caches), best of R, in seconds:
  jax lower      jax.jit(f).lower(specs): tracing to a jaxpr and lowering to StableHLO
  jax compile    .compile() of that: XLA's CPU compile (fusion, LLVM)
  tf trace       tf.function(f).get_concrete_function(tf.TensorSpec([None], tf.float32), ...)
  tf first call  the concrete function's first call minus a steady call (grappler, kernel setup)
  tf xla call    the same with jit_compile=True (XLA compiles at the first call)
  ... lower+compile / xla trace+call: the whole cost (best of the sums, or sum of the bests)
The TensorFlow arguments have a run-time length ([None]), as the C++ ones; JAX compiles for one
static length (LENGTH). Compare with GRADIENT=1 bash bench/compile_time.sh 50 200.
"""
import argparse
import os
import platform
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up log lines
from anchor_timing import best, jax_or_none, tensorflow_or_none
from compile_time_gen import chain

LENGTH = 1000


def chain_fn(n, ns, scope):
    """A new Python function object running compile_time_gen.chain(n), the math namespace `ns`."""
    lines = chain(n)
    src = "def f(a, b, c, d):\n" + "".join(f"    {name} = {rhs.format(ns=ns)}\n" for name, rhs in lines)
    src += f"    return {lines[-1][0]}\n"
    scope = dict(scope)
    exec(src, scope)
    return scope["f"]


def jax_rows(jax, sizes, repeat):
    import jax.numpy as jnp

    spec = [jax.ShapeDtypeStruct((LENGTH,), jnp.float32)] * 4

    def measure(n, gradient):
        lower, compile_, total = [], [], []
        for _ in range(repeat):
            if hasattr(jax, "clear_caches"):
                jax.clear_caches()
            f = chain_fn(n, "jnp.", {"jnp": jnp})
            if gradient:
                f = jax.grad(lambda *a, f=f: jnp.sum(f(*a)), argnums=(0, 1, 2, 3))
            t0 = time.perf_counter()
            lowered = jax.jit(f).lower(*spec)
            t1 = time.perf_counter()
            lowered.compile()
            t2 = time.perf_counter()
            lower.append(t1 - t0)
            compile_.append(t2 - t1)
            total.append(t2 - t0)
        return min(lower), min(compile_), min(total)

    measure(10, True)  # warm-up: the backend's and LLVM's one-time start-up
    rows = []
    for n in sizes:
        fwd, grad = measure(n, False), measure(n, True)
        for i, what in enumerate(("jax lower", "jax compile", "jax lower+compile")):
            rows.append((what, n, fwd[i], grad[i]))
    return rows


def tf_rows(tf, sizes, repeat):
    spec = [tf.TensorSpec([None], tf.float32)] * 4
    args = [tf.linspace(-1.0 + 0.1 * i, 1.0, LENGTH) for i in range(4)]

    def measure(n, gradient, jit):
        trace, first = [], []
        for _ in range(repeat):
            f = chain_fn(n, "tf.math.", {"tf": tf})
            if gradient:
                def g(a, b, c, d, f=f):
                    with tf.GradientTape() as tape:
                        tape.watch([a, b, c, d])
                        y = tf.reduce_sum(f(a, b, c, d))
                    return tape.gradient(y, [a, b, c, d], unconnected_gradients=tf.UnconnectedGradients.ZERO)
            else:
                g = f
            t0 = time.perf_counter()
            concrete = tf.function(g, jit_compile=jit).get_concrete_function(*spec)
            t1 = time.perf_counter()
            call = lambda: [t.numpy() for t in tf.nest.flatten(concrete(*args))]
            call()
            t2 = time.perf_counter()
            trace.append(t1 - t0)
            first.append(t2 - t1 - best(call, 0.1))
        return min(trace), min(first)

    measure(10, True, False)  # warm-up: TensorFlow's lazily loaded modules and kernels
    measure(10, True, True)
    rows = []
    for n in sizes:
        fwd, grad = measure(n, False, False), measure(n, True, False)
        rows.append(("tf trace", n, fwd[0], grad[0]))
        rows.append(("tf first call", n, fwd[1], grad[1]))
        xfwd, xgrad = measure(n, False, True), measure(n, True, True)
        rows.append(("tf xla call", n, xfwd[1], xgrad[1]))
        rows.append(("tf xla trace+call", n, xfwd[0] + xfwd[1], xgrad[0] + xgrad[1]))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sizes", nargs="*", type=int, default=[50, 200], help="chain lengths N (default 50 200)")
    p.add_argument("--repeat", type=int, default=3, help="fresh functions per measurement, best of (default 3)")
    args = p.parse_args()
    sizes = [n for n in args.sizes if n > 0]
    jax, tf = jax_or_none(), tensorflow_or_none(0)
    versions = [f"Python {platform.python_version()}"]
    if jax:
        import jaxlib
        versions.append(f"jax {jax.__version__} (jaxlib {jaxlib.__version__})")
    if tf:
        versions.append(f"tensorflow {tf.__version__}")
    print(", ".join(versions) + f"; {os.cpu_count()} CPUs; best of {args.repeat} fresh functions")
    rows = (jax_rows(jax, sizes, args.repeat) if jax else []) + (tf_rows(tf, sizes, args.repeat) if tf else [])
    if not rows:
        return 0
    print()
    print("| framework | N nodes | forward (s) | gradient (s) | gradient / forward |")
    print("|---|--:|--:|--:|--:|")
    for what, n, fwd, grad in sorted(rows, key=lambda r: r[1]):
        print(f"| {what} | {n} | {fwd:.3f} | {grad:.3f} | {grad / fwd:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
