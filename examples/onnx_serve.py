"""Serves the model example_10_onnx_export wrote (spirals.onnx) with onnxruntime, from Python, and
compares its answers with staticflow's (spirals_expected.txt). Run in the examples' build directory:
    python3 onnx_serve.py          (exits 77, skipped, without onnxruntime: what CTest expects)
    python3 onnx_serve.py --demo   (make demo: says so and exits 0 without onnxruntime)"""
import sys

try:
    import numpy as np
    import onnxruntime as ort
except ImportError as e:
    print(f"skipped: {e} (make deps installs onnxruntime with pip)")
    sys.exit(0 if "--demo" in sys.argv[1:] else 77)

session = ort.InferenceSession("spirals.onnx", providers=["CPUExecutionProvider"])
print("inputs:", [(i.name, i.shape, i.type) for i in session.get_inputs()])
print("outputs:", [(o.name, o.shape, o.type) for o in session.get_outputs()])
points = np.array([[0.3889, -0.3889], [-0.3889, 0.3889]], dtype=np.float32)
cls, probabilities = session.run(["class", "probabilities"], {"points": points})
for i, c in enumerate(cls):
    print(f"onnxruntime: point {i}: class {c} (p {probabilities[i, c]:.6f})")

expected = np.loadtxt("spirals_expected.txt", ndmin=2)
same = np.array_equal(cls, expected[:, 0].astype(np.int64)) and np.allclose(probabilities, expected[:, 1:], rtol=1e-5, atol=1e-6)
print("same answers as staticflow" if same else "DIFFERENT answers from staticflow")
sys.exit(0 if same else 1)
