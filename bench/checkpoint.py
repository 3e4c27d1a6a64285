#!/usr/bin/env python3
"""bench/checkpoint.py -- the NumPy anchor of bench/checkpoint.cpp: np.savez (then fsync and
rename, as sf::checkpoint does) and np.load of the same states (the 784-256-256-10 MLP's six
float32 variables, 1.07 MB; one 64 MiB float32 array). Skipped without numpy; never run in CI.

    python3 bench/checkpoint.py [--seconds S]

Prints the minimum wall time per write and per restore (all arrays read into memory).
"""
import argparse
import os
import sys
import tempfile
from anchor_timing import best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=1.0, help="time spent per measurement")
    args = p.parse_args()
    try:
        import numpy as np
    except ImportError:
        print("numpy is not installed: skipped")
        return 0
    states = {
        "mlp_1MB": {
            "w1": np.ones((784, 256), np.float32), "b1": np.zeros(256, np.float32),
            "w2": np.ones((256, 256), np.float32), "b2": np.zeros(256, np.float32),
            "w3": np.ones((256, 10), np.float32), "b3": np.zeros(10, np.float32),
        },
        "one_64MB": {"v": np.ones(16 << 20, np.float32)},
    }
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "ckpt.npz")
        for name, arrays in states.items():
            def write():
                with open(path + ".partial", "wb") as f:
                    np.savez(f, **arrays)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(path + ".partial", path)

            def restore():
                with np.load(path) as z:
                    return {k: z[k] for k in z.files}

            write()
            unit, scale = ("us", 1e6) if name.startswith("mlp") else ("ms", 1e3)
            print(f"write/{name}/numpy_savez_fsync   {best(write, args.seconds) * scale:10.1f} {unit}")
            print(f"restore/{name}/numpy_load        {best(restore, args.seconds) * scale:10.1f} {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
