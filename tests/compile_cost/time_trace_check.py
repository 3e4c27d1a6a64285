#!/usr/bin/env python3
"""CTest compile_cost.time_trace: bench/time_trace.py on a real clang -ftime-trace of a graph.

    time_trace_check.py CLANG ROOT WORKDIR [flags...]

Compiles tests/compile_cost/time_trace_probe.cpp with clang's -ftime-trace into WORKDIR, runs
bench/time_trace.py on the trace and checks what it prints: the phases, the planner among the
templates, and a --match total that is no larger than the front end.
"""
import os
import re
import subprocess
import sys


def fail(message, output=""):
    print(output)
    print(f"time_trace_check: {message}")
    sys.exit(1)


def main():
    clang, root, work, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    source = os.path.join(root, "tests", "compile_cost", "time_trace_probe.cpp")
    obj = os.path.join(work, "time_trace_probe.o")
    trace = os.path.join(work, "time_trace_probe.json")
    if os.path.exists(trace):
        os.remove(trace)
    compile_cmd = [clang, "-ftime-trace", "-ftime-trace-granularity=100", *flags, "-c", source, "-o", obj]
    done = subprocess.run(compile_cmd, capture_output=True, text=True)
    if done.returncode != 0 or not os.path.exists(trace):
        fail(f"the compile failed or wrote no trace ({' '.join(compile_cmd)})", done.stdout + done.stderr)

    tool = [sys.executable, os.path.join(root, "bench", "time_trace.py"), trace, "--top", "200",
            "--match", r"^staticflow::plan::"]
    done = subprocess.run(tool, capture_output=True, text=True)
    out = done.stdout + done.stderr
    if done.returncode != 0:
        fail("bench/time_trace.py failed", out)
    phases = dict((name, float(seconds)) for seconds, name in re.findall(r"^\s*([0-9.]+)\s+(\w+)$", out, re.M))
    for phase in ("ExecuteCompiler", "Frontend", "Backend"):
        if phase not in phases:
            fail(f"no {phase} line among the phases", out)
    if not 0 < phases["Frontend"] <= phases["ExecuteCompiler"]:
        fail("the front end is not a positive part of the compile", out)
    templates = re.findall(r"^\s*([0-9.]+)\s+(\d+)\s+(staticflow::\S+)$", out, re.M)
    names = {name for _, _, name in templates}
    if "staticflow::plan::evaluation_plan" not in names:
        fail("the planner (staticflow::plan::evaluation_plan) is not among the templates", out)
    if any(int(count) < 1 for _, count, _ in templates):
        fail("a template with no instantiation", out)
    matched = re.search(r"^\s*([0-9.]+)\s+in templates matching '\^staticflow::plan::' \((\d+) instantiations\)$", out, re.M)
    if not matched:
        fail("no --match line", out)
    if not 0 < float(matched.group(1)) <= phases["Frontend"] or int(matched.group(2)) < 1:
        fail("the --match total is not within the front end", out)
    print(out)
    print("time_trace_check: OK")


if __name__ == "__main__":
    main()
