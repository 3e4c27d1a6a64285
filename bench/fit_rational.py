#!/usr/bin/env python3
"""Fits the float32 odd rationals of backend/cpu/simd_ops.hpp: f(x) = x P(x^2) / Q(x^2) below a
saturation point s, and +-1 from |x| = s on.

    erf:  P of degree 6, Q of degree 5 in t = x^2, s = 3.85 (erfc(3.85) = 5.2e-8, 0.87 of the
          spacing of floats below 1)
    tanh: P of degree 6, Q of degree 3, s = 9 (1 - tanh(9) = 3.0e-8, so every float from 9 on
          rounds to 1)

The form is the usual one for a vectorized erf or tanh (Eigen's and XLA's float erf and tanh are
rationals of this shape; these coefficients are our own fit), with Q(0) = 1. The fit minimizes
the largest relative error of f(x) / x on t in [0, s^2] with a linearized rational least squares
(Sanathanan-Koerner: each round weights the residual P - f Q by 1 / Q of the round before)
followed by Lawson's reweighting toward the minimax solution.

It prints the coefficients rounded to float32, as the header spells them, and the error of the
float32 evaluation (Horner with fused multiply-adds, simulated in float64 and rounded after each
step) in units in the last place of the correctly rounded result on a sweep of x.

    python3 bench/fit_rational.py erf       # about 10 s each; needs numpy
    python3 bench/fit_rational.py tanh
"""
import math
import sys

import numpy as np

# name: (function, saturation point s, degree of P, degree of Q, sweep end)
FUNCTIONS = {
    "erf": (math.erf, 3.85, 6, 5, 4.5),
    "tanh": (math.tanh, 9.0, 6, 3, 10.0),
}
ROUNDS = 800


def fit(function, saturated, num_degree, den_degree):
    points, t_max = 6000, saturated ** 2
    s = (1 - np.cos(np.linspace(0, np.pi, points))) / 2  # [0, 1], denser at the ends
    x = np.sqrt(s * t_max)
    slope = (function(1e-8) / 1e-8)  # f(x) / x at 0
    f = np.array([function(v) / v if v > 0 else slope for v in x])
    lawson = np.ones(points)
    q_before = np.ones(points)
    num_powers = s[:, None] ** np.arange(num_degree + 1)[None, :]
    den_powers = s[:, None] ** np.arange(1, den_degree + 1)[None, :]
    for round_ in range(ROUNDS):
        w = lawson / (np.abs(f) * q_before)
        a = np.hstack([num_powers, -f[:, None] * den_powers])
        sol, *_ = np.linalg.lstsq(a * w[:, None], f * w, rcond=None)
        p, q = sol[: num_degree + 1], np.concatenate([[1.0], sol[num_degree + 1:]])
        q_before = np.polyval(q[::-1], s)
        err = (np.polyval(p[::-1], s) / q_before - f) / f
        if round_ >= 20:  # Sanathanan-Koerner rounds first, then Lawson's
            lawson = lawson * np.abs(err)
            lawson /= lawson.sum()
    scale_p = t_max ** np.arange(num_degree + 1)
    scale_q = t_max ** np.arange(den_degree + 1)
    return p / scale_p, q / scale_q, np.abs(err).max()


def horner_fma(coefficients, t):
    acc = np.full_like(t, np.float32(coefficients[-1]))
    for c in coefficients[-2::-1]:
        acc = (acc.astype(np.float64) * t.astype(np.float64) + np.float64(np.float32(c))).astype(np.float32)
    return acc


def float32_rational(x, p, q, saturated):
    a = np.clip(x, np.float32(-saturated), np.float32(saturated)).astype(np.float32)
    t = (a * a).astype(np.float32)
    r = (a * horner_fma(p, t)).astype(np.float32) / horner_fma(q, t)
    return np.where(np.abs(x) >= np.float32(saturated), np.sign(x), r).astype(np.float32)


def main(name):
    function, saturated, num_degree, den_degree, sweep_end = FUNCTIONS[name]
    p, q, relative = fit(function, saturated, num_degree, den_degree)
    print(f"{name}: largest relative error of the rational in float64: {relative:.3g}")
    print("P:", ", ".join(f"{np.float32(c):.9g}f" for c in p))
    print("Q:", ", ".join(f"{np.float32(c):.9g}f" for c in q))
    x = np.linspace(0, sweep_end, 400001).astype(np.float32)
    got = float32_rational(x, p, q, saturated).astype(np.float64)
    want = np.array([function(float(v)) for v in x])
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    ulp = np.where(np.abs(want.astype(np.float32)) >= 1, 2.0 ** -24, ulp)  # the spacing below 1
    err = np.abs(got - want) / ulp
    print(f"float32 evaluation on {x.size} points in [0, {sweep_end}]: largest error {err.max():.2f} ulp "
          f"at x = {x[err.argmax()]:.6g}, mean {err.mean():.3f} ulp")


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in FUNCTIONS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(FUNCTIONS)}")
    main(sys.argv[1])
