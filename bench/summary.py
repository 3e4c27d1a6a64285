#!/usr/bin/env python3
"""bench/summary.py -- the summary table at the top of docs/benchmarks.md, and its plot.

    python3 bench/summary.py [--build-dir build-bench] [--repetitions 5] [--write]

Builds the benchmark executables it needs (CMake preset `release`, STATICFLOW_BUILD_BENCHMARKS=ON,
in --build-dir), runs one size of each capability's staticflow benchmark, hand-written loop and
best C++ peer in one run of the executable (Google Benchmark, random interleaving, CPU time,
the minimum over the repetitions), and prints the table. With --write it replaces the table between the
`<!-- summary:begin -->` and `<!-- summary:end -->` markers of docs/benchmarks.md and draws
docs/benchmarks_summary.png with gnuplot (`make deps` installs gnuplot-nox): for each capability,
the hand loop's and the peer's time divided by staticflow's (above 1: staticflow is faster).
Not run by CI (timings are not tests); `make bench-summary` runs it with --write.
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent

# capability, size, executable, staticflow's benchmark, the hand-written loop's, the peer's, the peer
ROWS = [
    ("fused elementwise chain", "16M float32", "bench_fused_chain", "StaticflowFused/16777216", "HandXsimd/16777216", "EigenArray/16777216", "Eigen"),
    ("call of a tiny function", "4 float32", "bench_small_call", "StaticflowCallInto", "HandLoop", "XtensorFixed", "xtensor"),
    ("math op (gelu)", "1M float32", "bench_math_ops", "Staticflow<gelu_fn>/1048576", "HandXsimd<gelu_fn>/1048576", "EigenArray<gelu_fn>/1048576", "Eigen"),
    ("sum of a product", "16M float32", "bench_reductions", "SumProduct_Staticflow", "SumProduct_Hand", "SumProduct_Eigen", "Eigen"),
    ("softmax over rows", "1024x1024 float32", "bench_reductions", "Softmax_Staticflow", "Softmax_Hand", "Softmax_Eigen", "Eigen"),
    ("chain of 4x4 matmuls", "4x4 float32", "bench_matmul_kernel", "StaticChain4x4", "HandLoopChain4x4", "EigenChain4x4", "Eigen"),
    ("matmul", "256x256 float32", "bench_matmul_kernel", "Matmul/256", None, "EigenMatmul/256", "Eigen"),
    ("einsum bkj,bij->bki", "8x128x64 twice", "bench_einsum", "Einsum", "HandLoop", "EigenBatched", "Eigen"),
    ("conv2d 3x3 SAME (ResNet layer)", "1x56x56x64, 64 filters", "bench_conv", "ResNet_Staticflow", "ResNet_HandLoop", "ResNet_Im2colEigen", "im2col + Eigen"),
    ("conv3d 3x3x3 SAME (C3D layer)", "1x8x56x56x64, 64 filters", "bench_conv3d", "Video_Staticflow", "Video_HandLoop", "Video_Im2colEigen", "im2col + Eigen"),
    ("max_pool2d 3x3 stride 2", "1x112x112x64", "bench_pool", "Max_Staticflow", "Max_HandLoop", "Max_EigenTensor", "Eigen Tensor"),
    ("gather (embedding lookup)", "4096 of 50000x64", "bench_gather", "Lookup_Staticflow", "Lookup_HandLoop", "Lookup_Eigen", "Eigen"),
    ("unique (few distinct values)", "1M int32, 1000 values", "bench_unique", "FewInt_Staticflow", "FewInt_HandHashMap", "FewInt_XtensorUnique", "xt::unique"),
    ("cumsum along rows", "1000x1000 float32", "bench_cumulative", "Rows_Staticflow", "Rows_HandLoop", "Rows_EigenTensor", "Eigen Tensor"),
    ("while_loop (Collatz steps)", "n < 10^6", "bench_control_flow", "Collatz_Staticflow", "Collatz_Hand", None, None),
    ("value and gradient (tanh layer)", "1M float32", "bench_gradients", "Tanh_ValueAndGrad", "Tanh_Hand", "Tanh_Eigen", "Eigen"),
    ("training step (MLP 784-256-256-10)", "batch 128", "bench_training_step", "TrainStep_Minimize", "TrainStep_Hand", None, None),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def build(build_dir, executables):
    if not (build_dir / "build.ninja").exists() and not (build_dir / "Makefile").exists():
        run(["cmake", "--preset", "release", "-B", str(build_dir), "-DSTATICFLOW_BUILD_BENCHMARKS=ON"], cwd=REPO)
    run(["cmake", "--build", str(build_dir), "-j", os.environ.get("JOBS", "2"), "--target", *sorted(executables)], cwd=REPO)


def benchmarks_of(exe):
    out = run([str(exe), "--benchmark_list_tests=true"], capture_output=True, text=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def pick(names, prefix):
    """The benchmark whose name is `prefix` or starts with `prefix/` (its first size)."""
    for n in names:
        if n == prefix or n.startswith(prefix + "/"):
            return n
    sys.exit(f"no benchmark named {prefix}[/...] among {names[:8]}...")


def measure(exe, names, repetitions):
    """The minimum CPU time in ns of each named benchmark over the repetitions, all in one interleaved run."""
    regex = "^(" + "|".join(n.replace("<", "[<]").replace(">", "[>]") for n in names) + ")$"
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        run([str(exe), f"--benchmark_filter={regex}", f"--benchmark_repetitions={repetitions}",
             "--benchmark_enable_random_interleaving=true",
             "--benchmark_min_time=0.2", f"--benchmark_out={f.name}", "--benchmark_out_format=json"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        data = json.load(open(f.name))
    unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    times = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "iteration":  # the minimum over the repetitions; wall-clock time where asked
            key = "real_time" if b["run_name"].endswith("/real_time") else "cpu_time"
            t = b[key] * unit[b["time_unit"]]
            times[b["run_name"]] = min(t, times.get(b["run_name"], t))
    return times, data["context"]


def fmt_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    p.add_argument("--build-dir", default="build-bench")
    p.add_argument("--repetitions", type=int, default=7)
    p.add_argument("--write", action="store_true", help="update docs/benchmarks.md and docs/benchmarks_summary.png")
    args = p.parse_args()
    build_dir = (REPO / args.build_dir).resolve()
    build(build_dir, {r[2] for r in ROWS})

    results, context = [], None
    for exe_name in dict.fromkeys(r[2] for r in ROWS):
        exe = build_dir / "bench" / exe_name
        available = benchmarks_of(exe)
        rows = [r for r in ROWS if r[2] == exe_name]
        chosen = {k: [pick(available, name) if name else None for name in r[3:6]] for k, r in enumerate(rows)}
        times, context = measure(exe, [n for names in chosen.values() for n in names if n], args.repetitions)
        for k, r in enumerate(rows):
            sf_name, hand_name, peer_name = chosen[k]
            results.append((r[0], r[1], times[sf_name], times.get(hand_name), times.get(peer_name), r[6]))
    results.sort(key=lambda row: [r[0] for r in ROWS].index(row[0]))

    commit = run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor())
    lines = [f"Measured by `python3 bench/summary.py --write` at commit `{commit}` on {datetime.date.today()}, "
             f"{cpu}, {context['num_cpus']} CPUs, one thread, `{context.get('xsimd_arch', '?')}`: the minimum CPU time of "
             f"{args.repetitions} interleaved repetitions (this VM is shared: medians moved by up to 2x between runs, "
             f"minimums by about 10 %). *Ratio*: the other's time over staticflow's (above 1: staticflow "
             f"is faster). The sections below have each benchmark's full story.", "",
             "| capability | size | staticflow | hand-written loop | ratio | best C++ peer | ratio |",
             "|---|---|---|---|---|---|---|"]
    for name, size, t_sf, t_hand, t_peer, peer in results:
        hand = (fmt_time(t_hand), f"{t_hand / t_sf:.2f}") if t_hand else ("—", "")
        other = (f"{fmt_time(t_peer)} ({peer})", f"{t_peer / t_sf:.2f}") if t_peer else ("—", "")
        lines.append(f"| {name} | {size} | {fmt_time(t_sf)} | {hand[0]} | {hand[1]} | {other[0]} | {other[1]} |")
    lines += ["", "![the hand loop's and the peer's time over staticflow's, per capability](benchmarks_summary.png)"]
    table = "\n".join(lines)
    print(table)
    if not args.write:
        return 0

    doc = REPO / "docs" / "benchmarks.md"
    text = doc.read_text()
    begin, end = "<!-- summary:begin -->", "<!-- summary:end -->"
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    doc.write_text(f"{head}{begin}\n{table}\n{end}{tail}")

    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as data:
        for name, _, t_sf, t_hand, t_peer, _ in results:
            data.write(f'"{name}" {t_hand / t_sf if t_hand else "NaN"} {t_peer / t_sf if t_peer else "NaN"}\n')
    script = f"""
set terminal pngcairo size 1000,560 font "sans,10"
set output "{REPO / 'docs' / 'benchmarks_summary.png'}"
set title "time of the hand-written loop and of the best C++ peer, over staticflow's (above 1: staticflow is faster)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y 2
set yrange [0.125:256]
set ytics ("1/8" 0.125, "1/4" 0.25, "1/2" 0.5, "1" 1, "2" 2, "4" 4, "8" 8, "16" 16, "32" 32, "64" 64, "128" 128, "256" 256)
set grid ytics
set xtics rotate by -35 left
set key outside top center horizontal
set bmargin 10
set rmargin 12
plot "{data.name}" using 2:xtic(1) title "hand-written loop" linecolor rgb "#4c6ef5", \\
     "" using 3 title "best C++ peer (Eigen, xtensor)" linecolor rgb "#f59f00", \\
     1 notitle linecolor rgb "black" dashtype 2
"""
    run(["gnuplot"], input=script, text=True)
    os.unlink(data.name)
    print(f"wrote {doc} and docs/benchmarks_summary.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
