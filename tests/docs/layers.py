"""Checks that only the named seams of the backend-neutral layers reach into a backend.

Usage: layers.py REPO. Backend-neutral is every header under include/staticflow/ outside backend/
(graph, plan, control, effects, autodiff, trace, ...). Such a header may include
staticflow/backend/backend.hpp (the backend tags) and nothing else under backend/, and its code
(comments aside) may not name a backend's namespace (`cpu::`, `thrust_backend::`,
`eager_backend::`), unless it is one of SEAMS below, each with the reason it is one. A new
dependency on a backend then fails here: route it through a seam (for the effects layer,
effects/evaluator.hpp) or add the seam with its reason. Also fails when a seam no longer reaches a
backend (the list must say what the code does)."""
import pathlib
import re
import sys

repo = pathlib.Path(sys.argv[1]).resolve()
root = repo / "include" / "staticflow"

# header (relative to include/staticflow) -> why it may reach a backend
SEAMS = {
    "staticflow.hpp": "the umbrella header includes every backend",
    "effects/evaluator.hpp": "where an effect meets the backend its function is traced for, "
                             "and the host evaluation of eager calls (evaluate_now, scalar_now)",
    "trace/function.hpp": "picks the backend's concrete function for a call (the CPU backend's, "
                          "or the Thrust backend's where backend/thrust/thrust.hpp is included)",
    "interop/device.hpp": "device tensors wait for the Thrust backend's kernels (block_until_ready)",
}

backend_include = re.compile(r'#\s*include\s*"staticflow/backend/([^"]+)"')
backend_name = re.compile(r"\b(cpu|thrust_backend|eager_backend)::")


def code_of(text):
    """The text without // and /* */ comments (string literals are left as they are)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


failures = []
reaching = set()
headers = sorted(p for p in root.rglob("*.hpp") if p.relative_to(root).parts[0] != "backend")
for path in headers:
    rel = path.relative_to(root).as_posix()
    code = code_of(path.read_text())
    reasons = []
    for m in backend_include.finditer(code):
        if m.group(1) != "backend.hpp":
            reasons.append(f'includes "staticflow/backend/{m.group(1)}"')
    for number, line in enumerate(code.splitlines(), 1):
        m = backend_name.search(line)
        if m:
            reasons.append(f"line {number} names {m.group(1)}::")
    if reasons:
        reaching.add(rel)
        if rel not in SEAMS:
            failures.append(f"{rel} is backend-neutral but " + "; ".join(reasons[:3])
                            + (f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else ""))
for rel in sorted(set(SEAMS) - reaching):
    failures.append(f"{rel} is listed as a seam but reaches no backend: take it off SEAMS")

if not headers:
    failures.append(f"no headers under {root}")
for f in failures:
    print("layers: " + f)
print(f"layers: {len(headers)} backend-neutral headers, {len(reaching)} seams, {len(failures)} problems")
sys.exit(1 if failures else 0)
