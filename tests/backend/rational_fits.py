#!/usr/bin/env python3
"""The float erf and tanh coefficients backend/cpu/simd_ops.hpp spells are a good fit, and
bench/fit_rational.py still makes one as good.

Reads `batch_erf_of`'s and `batch_tanh_of`'s P and Q literals (Horner order in the header, highest
degree first) and checks, for each:
  - the rational x P(x^2) / Q(x^2) with those literals, in float64, is within a relative error
    bound of the function below its saturation point (erf 1e-7, tanh 3e-8; the literals reach
    5.6e-8 and 1.5e-8): an edited literal moves it (a relative change of 4e-6 in any coefficient
    but the two or three highest-degree ones, which weigh less than float32's rounding, gives
    3e-7 to 4e-6);
  - the float32 evaluation of those literals (Horner with fused multiply-adds, as the header
    computes) is within what the header and the C++ test promise (erf 6.6 ulp, tanh 5.2);
  - the fitter, run again, reaches the same float64 error (within 2x) and float32 bound.
The literals are not compared with the new fit digit by digit: the fit's rounds of weighted least
squares amplify the last bits of LAPACK's answer, which depend on the BLAS kernel OpenBLAS picks
for the CPU (the header's literals come back exactly with OPENBLAS_CORETYPE=SkylakeX; on an AMD
EPYC's kernels the coefficients move by up to 1e-2 relative for a fit of the same quality).

    python3 tests/backend/rational_fits.py <project root>
"""
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np

# name: (the header's function, the float64 bound, the float32 ulps promised)
KERNELS = {"erf": ("batch_erf_of", 1e-7, 6.6), "tanh": ("batch_tanh_of", 3e-8, 5.2)}


def load_fitter(root: Path):
    spec = importlib.util.spec_from_file_location("fit_rational", root / "bench/fit_rational.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def spelled(root: Path, function: str):
    header = (root / "include/staticflow/backend/cpu/simd_ops.hpp").read_text()
    body = header[header.index(f"STATICFLOW_INLINE B {function}"):]
    body = body[: body.index("\n}\n")]
    coefficients = {}
    for part, var in (("P", "p"), ("Q", "q")):
        first = re.search(rf"B {var}\(([-0-9.e+]+)f\);", body).group(1)
        rest = re.findall(rf"{var} = xsimd::fma\({var}, t, B\(([-0-9.e+]+)f\)\);", body)
        coefficients[part] = np.array([float(v) for v in [first] + rest][::-1])  # lowest degree first
    return coefficients["P"], coefficients["Q"]


def float64_error(function, saturated, p, q):
    x = np.linspace(1e-6, saturated, 200001)
    t = x * x
    got = x * np.polyval(p[::-1], t) / np.polyval(q[::-1], t)
    want = np.array([function(v) for v in x])
    return float(np.max(np.abs(got - want) / np.abs(want)))


def float32_ulps(fitter, function, saturated, sweep_end, p, q):
    x = np.linspace(0, sweep_end, 400001).astype(np.float32)
    got = fitter.float32_rational(x, p, q, saturated).astype(np.float64)
    want = np.array([function(float(v)) for v in x])
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    ulp = np.where(np.abs(want.astype(np.float32)) >= 1, 2.0 ** -24, ulp)  # the spacing below 1
    return float((np.abs(got - want) / ulp).max())


def check(root: Path, fitter, name: str, function_name: str, bound: float, promised: float) -> int:
    function, saturated, num_degree, den_degree, sweep_end = fitter.FUNCTIONS[name]
    p, q = spelled(root, function_name)
    bad = 0
    if len(p) != num_degree + 1 or len(q) != den_degree + 1:
        print(f"{name}: the header has degrees {len(p) - 1} / {len(q) - 1}, the fitter {num_degree} / {den_degree}")
        return 1
    literal_error = float64_error(function, saturated, p, q)
    literal_ulps = float32_ulps(fitter, function, saturated, sweep_end, p, q)
    print(f"{name}: the header's literals: float64 relative error {literal_error:.3g} (bound {bound:g}), "
          f"float32 {literal_ulps:.2f} ulp (promised {promised})")
    if literal_error > bound:
        print(f"{name}: the header's rational is {literal_error:.3g} off in float64, above {bound:g}: an edited literal?")
        bad += 1
    if literal_ulps > promised:
        print(f"{name}: the header's float32 evaluation is {literal_ulps:.2f} ulp off, above the {promised} promised")
        bad += 1
    fp, fq, _ = fitter.fit(function, saturated, num_degree, den_degree)
    fp32, fq32 = fp.astype(np.float32).astype(np.float64), fq.astype(np.float32).astype(np.float64)
    fit_error = float64_error(function, saturated, fp32, fq32)
    fit_ulps = float32_ulps(fitter, function, saturated, sweep_end, fp, fq)
    same = np.allclose(fp32, p, rtol=1e-6, atol=0) and np.allclose(fq32, q, rtol=1e-6, atol=0)
    print(f"{name}: a new fit here: float64 {fit_error:.3g}, float32 {fit_ulps:.2f} ulp; "
          f"{'the same literals' if same else 'other literals (this BLAS kernel)'}")
    if fit_error > 2 * max(literal_error, bound / 2) or fit_ulps > promised:
        print(f"{name}: bench/fit_rational.py no longer reaches the header's quality")
        bad += 1
    return bad


def main(root: Path) -> int:
    fitter = load_fitter(root)
    bad = sum(check(root, fitter, name, *kernel) for name, kernel in KERNELS.items())
    print("ok" if bad == 0 else f"{bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]))
