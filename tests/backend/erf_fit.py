#!/usr/bin/env python3
"""bench/fit_erf.py still gives the float erf coefficients backend/cpu/simd_ops.hpp spells.

Runs the fit and checks that `batch_erf_of`'s P and Q literals, in Horner order (highest degree
first), are the fit's, to a relative 1e-6 (a float's 2^-23 is 1.2e-7: a numpy or LAPACK build
may move the last digit, a changed fit or an edited literal moves more), and that the script
reports the float32 evaluation within the 6.6 ulp the header and the C++ test promise.

    python3 tests/backend/erf_fit.py <project root>
"""
import re
import subprocess
import sys
from pathlib import Path


def main(root: Path) -> int:
    out = subprocess.run([sys.executable, str(root / "bench/fit_erf.py")], capture_output=True, text=True, check=True).stdout
    fit = {}
    for name in ("P", "Q"):
        line = re.search(rf"^{name}: (.*)$", out, re.M).group(1)
        fit[name] = [float(v.rstrip("f")) for v in line.split(", ")]
    header = (root / "include/staticflow/backend/cpu/simd_ops.hpp").read_text()
    body = header[header.index("STATICFLOW_INLINE B batch_erf_of"):]
    body = body[: body.index("\n}\n")]
    spelled = {}
    for name, var in (("P", "p"), ("Q", "q")):
        first = re.search(rf"B {var}\(([-0-9.e+]+)f\);", body).group(1)
        rest = re.findall(rf"{var} = xsimd::fma\({var}, t, B\(([-0-9.e+]+)f\)\);", body)
        spelled[name] = [float(v) for v in [first] + rest][::-1]  # lowest degree first, as printed
    bad = 0
    for name in ("P", "Q"):
        if len(fit[name]) != len(spelled[name]):
            print(f"{name}: the fit has {len(fit[name])} coefficients, the header {len(spelled[name])}")
            bad += 1
            continue
        for k, (a, b) in enumerate(zip(fit[name], spelled[name])):
            if abs(a - b) > 1e-6 * abs(a):
                print(f"{name}[{k}]: the fit gives {a!r}, the header spells {b!r}")
                bad += 1
    worst = float(re.search(r"largest error ([0-9.]+) ulp", out).group(1))
    if worst > 6.6:
        print(f"the fit's float32 evaluation is {worst} ulp off, above the 6.6 promised")
        bad += 1
    print(out.strip())
    print("ok" if bad == 0 else f"{bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]))
