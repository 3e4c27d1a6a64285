"""NumPy reads what sf::checkpoint wrote, and writes what it restores (tests/io/checkpoint_numpy.cpp).

    checkpoint_numpy.py DIR

reads DIR/from_cpp.npz and checks every value; writes DIR/from_numpy.npz (np.savez),
DIR/compressed.npz (np.savez_compressed) and DIR/fortran.npz (a Fortran-ordered array).
Exits 77 (CTest: skipped) when numpy is not installed.
"""
import os
import sys

try:
    import numpy as np
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)

directory = sys.argv[1]
with np.load(os.path.join(directory, "from_cpp.npz")) as d:
    expected = {
        "layer/w": np.array([[1.5, -2.0, 3.0], [4.0, 5.25, -6.0]], dtype=np.float32),
        "scale": np.array(0.125, dtype=np.float64),
        "ids": np.array([7, -8, 9], dtype=np.int32),
        "steps": np.array([], dtype=np.int64),
        "mask": np.array([True, False, False, True]),
        "save_counter": np.array(0, dtype=np.int64),
    }
    assert sorted(d.keys()) == sorted(expected), sorted(d.keys())
    for name, want in expected.items():
        got = d[name]
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        assert got.shape == want.shape, (name, got.shape, want.shape)
        assert np.array_equal(got, want), (name, got, want)

np.savez(
    os.path.join(directory, "from_numpy.npz"),
    **{
        "layer/w": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
        "scale": np.float64(-3.5),
        "ids": np.array([1, 2, 3, 4, 5], dtype=np.int32),
        "steps": np.array([10, 20], dtype=np.int64),
        "mask": np.array([False, True, True, False]),
    },
)
np.savez_compressed(os.path.join(directory, "compressed.npz"), **{"layer/w": np.zeros((2, 3), np.float32)})
np.savez(os.path.join(directory, "fortran.npz"), **{"layer/w": np.asfortranarray(np.ones((2, 3), np.float32))})
print("numpy", np.__version__, "read from_cpp.npz and wrote from_numpy.npz")
