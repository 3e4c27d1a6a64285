#!/usr/bin/env python3
"""Where a translation unit's compile time goes, from clang's -ftime-trace output.

    clang++-14 -ftime-trace -ftime-trace-granularity=200 <the test's flags> -c tests/autodiff/test_gather.cpp -o x.o
    python3 bench/time_trace.py x.json                 # phases, then templates by time
    python3 bench/time_trace.py x.json --top 60 --match 'std::(tuple|__and_)'

A template's time is the wall time during which at least one of its instantiations was being
instantiated (nested instantiations of the same template counted once), so a recursive walk is
not counted once per level; `--match REGEX` prints that time for every template whose name
(without template arguments) matches, together. Events shorter than the trace's granularity are
not in the file: their time is their caller's.
"""
import argparse
import collections
import json
import re
import sys

INSTANTIATIONS = ("InstantiateFunction", "InstantiateClass")


def template_name(detail):
    """`staticflow::plan::detail::collect<0, 0, ...>` -> `staticflow::plan::detail::collect`."""
    return detail.split("<", 1)[0].split("(", 1)[0].strip()


def covered_seconds(intervals):
    """Length of the union of [begin, end) intervals, in seconds (trace times are microseconds)."""
    total, current = 0, None
    for begin, end in sorted(intervals):
        if current is not None and begin <= current[1]:
            current[1] = max(current[1], end)
            continue
        if current is not None:
            total += current[1] - current[0]
        current = [begin, end]
    if current is not None:
        total += current[1] - current[0]
    return total / 1e6


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace", help="the .json file clang wrote next to the object file")
    parser.add_argument("--top", type=int, default=30, help="how many templates to list (default 30)")
    parser.add_argument("--match", action="append", default=[], help="a regex over template names; repeatable")
    args = parser.parse_args(argv)

    with open(args.trace) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]

    print("## phases (seconds)")
    totals = {e["name"][len("Total "):]: e["dur"] / 1e6 for e in events if e["name"].startswith("Total ")}
    for phase in ("ExecuteCompiler", "Frontend", "Source", "PerformPendingInstantiations", "InstantiateFunction",
                  "InstantiateClass", "Backend", "Optimizer", "CodeGenPasses"):
        if phase in totals:
            print(f"{totals[phase]:8.2f}  {phase}")

    spans = collections.defaultdict(list)
    for e in events:
        if e["name"] in INSTANTIATIONS:
            spans[template_name(e.get("args", {}).get("detail", ""))].append((e["ts"], e["ts"] + e["dur"]))
    by_template = sorted(((covered_seconds(iv), len(iv), name) for name, iv in spans.items()), reverse=True)

    print(f"\n## templates by instantiation time (seconds, instantiations)")
    for seconds, count, name in by_template[: args.top]:
        print(f"{seconds:8.2f} {count:6d}  {name}")

    for pattern in args.match:
        regex = re.compile(pattern)
        intervals = [iv for name, ivs in spans.items() if regex.search(name) for iv in ivs]
        print(f"\n{covered_seconds(intervals):8.2f}  in templates matching {pattern!r} ({len(intervals)} instantiations)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
