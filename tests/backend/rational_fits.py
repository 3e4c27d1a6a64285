#!/usr/bin/env python3
"""bench/fit_rational.py still gives the float erf and tanh coefficients backend/cpu/simd_ops.hpp
spells.

Runs the fit of each and checks that `batch_erf_of`'s and `batch_tanh_of`'s P and Q literals, in
Horner order (highest degree first), are the fit's, to a relative 1e-6 (a float's 2^-23 is
1.2e-7: a numpy or LAPACK build may move the last digit, a changed fit or an edited literal moves
more), and that the script reports the float32 evaluation within what the header and the C++
test promise (erf 6.6 ulp, tanh 5.2).

    python3 tests/backend/rational_fits.py <project root>
"""
import re
import subprocess
import sys
from pathlib import Path

# name: (the header's function, the ulps promised)
KERNELS = {"erf": ("batch_erf_of", 6.6), "tanh": ("batch_tanh_of", 5.2)}


def check(root: Path, name: str, function: str, promised: float) -> int:
    out = subprocess.run([sys.executable, str(root / "bench/fit_rational.py"), name],
                         capture_output=True, text=True, check=True).stdout
    fit = {}
    for part in ("P", "Q"):
        line = re.search(rf"^{part}: (.*)$", out, re.M).group(1)
        fit[part] = [float(v.rstrip("f")) for v in line.split(", ")]
    header = (root / "include/staticflow/backend/cpu/simd_ops.hpp").read_text()
    body = header[header.index(f"STATICFLOW_INLINE B {function}"):]
    body = body[: body.index("\n}\n")]
    spelled = {}
    for part, var in (("P", "p"), ("Q", "q")):
        first = re.search(rf"B {var}\(([-0-9.e+]+)f\);", body).group(1)
        rest = re.findall(rf"{var} = xsimd::fma\({var}, t, B\(([-0-9.e+]+)f\)\);", body)
        spelled[part] = [float(v) for v in [first] + rest][::-1]  # lowest degree first, as printed
    bad = 0
    for part in ("P", "Q"):
        if len(fit[part]) != len(spelled[part]):
            print(f"{name} {part}: the fit has {len(fit[part])} coefficients, the header {len(spelled[part])}")
            bad += 1
            continue
        for k, (a, b) in enumerate(zip(fit[part], spelled[part])):
            if abs(a - b) > 1e-6 * abs(a):
                print(f"{name} {part}[{k}]: the fit gives {a!r}, the header spells {b!r}")
                bad += 1
    worst = float(re.search(r"largest error ([0-9.]+) ulp", out).group(1))
    if worst > promised:
        print(f"{name}: the fit's float32 evaluation is {worst} ulp off, above the {promised} promised")
        bad += 1
    print(out.strip())
    return bad


def main(root: Path) -> int:
    bad = sum(check(root, name, function, promised) for name, (function, promised) in KERNELS.items())
    print("ok" if bad == 0 else f"{bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]))
