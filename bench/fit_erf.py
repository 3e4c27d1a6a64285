#!/usr/bin/env python3
"""Fits the float32 erf of backend/cpu/simd_ops.hpp: erf(x) = x P(x^2) / Q(x^2) on |x| <= 4.

The form is the usual one for a vectorized erf (Eigen's and XLA's float erf are rationals of this
shape; these coefficients are our own fit): P of degree 6 and Q of degree 5 in t = x^2, Q(0) = 1.
The fit minimizes the largest relative error of erf(x) / x on t in [0, 3.85^2] with a linearized
rational least squares (Sanathanan-Koerner: each round weights the residual P - f Q by 1 / Q of
the round before) followed by Lawson's reweighting toward the minimax solution. From |x| = 3.85
on the kernel returns +-1: erfc(3.85) = 5.2e-8, 0.87 of the spacing of floats below 1.

It prints the coefficients rounded to float32, as the header spells them, and the error of the
float32 evaluation (Horner with fused multiply-adds, simulated in float64 and rounded after each
step) in units in the last place of the correctly rounded result on a sweep of x.

    python3 bench/fit_erf.py            # about 10 s; needs numpy
"""
import math

import numpy as np

SATURATED = 3.85  # |x| from which the kernel returns +-1
NUM_DEGREE, DEN_DEGREE, T_MAX, ROUNDS = 6, 5, SATURATED ** 2, 800


def fit():
    points = 6000
    s = (1 - np.cos(np.linspace(0, np.pi, points))) / 2  # [0, 1], denser at the ends
    x = np.sqrt(s * T_MAX)
    f = np.array([math.erf(v) / v if v > 0 else 2 / math.sqrt(math.pi) for v in x])
    lawson = np.ones(points)
    q_before = np.ones(points)
    num_powers = s[:, None] ** np.arange(NUM_DEGREE + 1)[None, :]
    den_powers = s[:, None] ** np.arange(1, DEN_DEGREE + 1)[None, :]
    for round_ in range(ROUNDS):
        w = lawson / (np.abs(f) * q_before)
        a = np.hstack([num_powers, -f[:, None] * den_powers])
        sol, *_ = np.linalg.lstsq(a * w[:, None], f * w, rcond=None)
        p, q = sol[: NUM_DEGREE + 1], np.concatenate([[1.0], sol[NUM_DEGREE + 1:]])
        q_before = np.polyval(q[::-1], s)
        err = (np.polyval(p[::-1], s) / q_before - f) / f
        if round_ >= 20:  # Sanathanan-Koerner rounds first, then Lawson's
            lawson = lawson * np.abs(err)
            lawson /= lawson.sum()
    scale_p = T_MAX ** np.arange(NUM_DEGREE + 1)
    scale_q = T_MAX ** np.arange(DEN_DEGREE + 1)
    return p / scale_p, q / scale_q, np.abs(err).max()


def horner_fma(coefficients, t):
    acc = np.full_like(t, np.float32(coefficients[-1]))
    for c in coefficients[-2::-1]:
        acc = (acc.astype(np.float64) * t.astype(np.float64) + np.float64(np.float32(c))).astype(np.float32)
    return acc


def float32_erf(x, p, q):
    a = np.clip(x, np.float32(-SATURATED), np.float32(SATURATED)).astype(np.float32)
    t = (a * a).astype(np.float32)
    r = (a * horner_fma(p, t)).astype(np.float32) / horner_fma(q, t)
    return np.where(np.abs(x) >= np.float32(SATURATED), np.sign(x), r).astype(np.float32)


def main():
    p, q, relative = fit()
    print(f"largest relative error of the rational in float64: {relative:.3g}")
    print("P:", ", ".join(f"{np.float32(c):.9g}f" for c in p))
    print("Q:", ", ".join(f"{np.float32(c):.9g}f" for c in q))
    x = np.linspace(0, 4.5, 400001).astype(np.float32)
    got = float32_erf(x, p, q).astype(np.float64)
    want = np.array([math.erf(float(v)) for v in x])
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    ulp = np.where(np.abs(want.astype(np.float32)) >= 1, 2.0 ** -24, ulp)  # the spacing below 1
    err = np.abs(got - want) / ulp
    print(f"float32 evaluation on {x.size} points in [0, 4.5]: largest error {err.max():.2f} ulp "
          f"at x = {x[err.argmax()]:.6g}, mean {err.mean():.3f} ulp")


if __name__ == "__main__":
    main()
