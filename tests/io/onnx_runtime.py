"""Runs every model onnx_runtime.cpp exported in onnxruntime and compares with staticflow's results.

Usage: onnx_runtime.py DIR. Exits 77 (skipped) when onnxruntime or numpy is missing."""
import glob
import os
import sys

try:
    import numpy as np
    import onnxruntime as ort
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

directory = sys.argv[1]
failures, checked = 0, 0
models = sorted(glob.glob(os.path.join(directory, "*.onnx")))
if not models:
    print("FAILED: no model in", directory)
    sys.exit(1)
for model in models:
    name = os.path.basename(model)[: -len(".onnx")]
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    sets = sorted({os.path.basename(p).split(".")[1] for p in glob.glob(os.path.join(directory, name + ".*.in0.npy"))})
    if not sets:
        print(f"FAILED: {name}: no input set")
        failures += 1
    for s in sets:
        prefix = os.path.join(directory, f"{name}.{s}")
        feeds = {i.name: np.load(f"{prefix}.in{k}.npy") for k, i in enumerate(session.get_inputs())}
        results = session.run(None, feeds)
        for k, got in enumerate(results):
            want = np.load(f"{prefix}.out{k}.npy")
            ok = got.dtype == want.dtype and got.shape == want.shape
            if ok and np.issubdtype(want.dtype, np.floating):
                ok = np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
            elif ok:
                ok = np.array_equal(got, want)
            checked += 1
            if not ok:
                failures += 1
                print(f"FAILED: {name} [{s}] output {k}: onnxruntime {got.dtype}{list(got.shape)} {got.ravel()[:8]}"
                      f" != staticflow {want.dtype}{list(want.shape)} {want.ravel()[:8]}")
print(f"onnxruntime {ort.__version__}: {len(models)} models, {checked} outputs compared, {failures} failed")
sys.exit(1 if failures else 0)
