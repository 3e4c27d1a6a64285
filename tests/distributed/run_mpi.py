#!/usr/bin/env python3
"""Runs a program under mpirun for CTest, with the settings this kind of machine needs, and checks
how it ended.

  run_mpi.py --mpiexec /usr/bin/mpiexec --np 4 [--timeout 120] [--expect-failure TEXT] -- exe args...
  run_mpi.py compare-curves --reference curve1.tsv --early 100 --early-tolerance 1e-5 \
      --final-below 0.25 curve2.tsv curve4.tsv

Settings (all harmless where not needed): with Open MPI, --oversubscribe (more ranks than the 2
cores) and no core binding; its permission to run as root (containers), and no CMA single-copy in
the shared memory transport (ptrace is often not allowed in containers), as environment variables
that other MPIs ignore. A run that passes --timeout is
killed and fails: a hang is a failure, never a wait for CTest's own limit.

--expect-failure TEXT: the run must end with a non-zero exit code and TEXT in its output (a rank
that throws must stop every rank with its error).

compare-curves: loss curves (epoch, loss per line) of runs on several process counts against the
single-process one: the first --early epochs within --early-tolerance (relative: the same steps up
to float rounding), and every run's last loss below --final-below (training is chaotic: later
epochs amplify the rounding differences of the sums, as with any data-parallel run).
"""
import argparse
import os
import subprocess
import sys


def run(args):
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.setdefault("OMPI_MCA_btl_vader_single_copy_mechanism", "none")
    env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    version = subprocess.run([args.mpiexec, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode(errors="replace")
    # Open MPI's flags; MPICH's Hydra oversubscribes and leaves processes unbound by itself
    open_mpi = "Open MPI" in version or "OpenRTE" in version
    flags = ["--oversubscribe", "--bind-to", "none"] if open_mpi else []
    command = [args.mpiexec] + flags + ["-np", str(args.np)] + args.mpi_args + args.command
    print("run_mpi:", " ".join(command), flush=True)
    try:
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=args.timeout)
    except subprocess.TimeoutExpired as e:
        sys.stdout.write((e.stdout or b"").decode(errors="replace"))
        print(f"run_mpi: FAILED: no exit after {args.timeout} s (a hang)")
        return 1
    output = done.stdout.decode(errors="replace")
    sys.stdout.write(output)
    if args.expect_failure is not None:
        if done.returncode == 0:
            print("run_mpi: FAILED: the run succeeded; a failure was expected")
            return 1
        if args.expect_failure not in output:
            print(f"run_mpi: FAILED: the output does not say {args.expect_failure!r}")
            return 1
        print(f"run_mpi: failed as expected (exit {done.returncode}) with the expected message")
        return 0
    if done.returncode != 0:
        print(f"run_mpi: FAILED: exit {done.returncode}")
    return done.returncode


def read_curve(path):
    curve = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            epoch, loss = line.split()
            curve.append(float(loss))
    return curve


def compare_curves(args):
    reference = read_curve(args.reference)
    ok = True
    for path in args.curves:
        curve = read_curve(path)
        if len(curve) != len(reference):
            print(f"compare-curves: {path}: {len(curve)} epochs, the reference {len(reference)}")
            ok = False
            continue
        early = max(abs(a - b) / abs(b) for a, b in zip(curve[: args.early], reference[: args.early]))
        print(f"compare-curves: {path}: first {args.early} epochs within {early:.2e} of {args.reference} "
              f"(at most {args.early_tolerance:g}); last loss {curve[-1]:.6g} (reference {reference[-1]:.6g}, "
              f"below {args.final_below:g} required)")
        if early > args.early_tolerance or not curve[-1] < args.final_below:
            ok = False
    if not reference[-1] < args.final_below:
        print(f"compare-curves: the reference's last loss {reference[-1]:.6g} is not below {args.final_below:g}")
        ok = False
    print("compare-curves:", "OK" if ok else "FAILED")
    return 0 if ok else 1


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "compare-curves":
        p = argparse.ArgumentParser(prog="run_mpi.py compare-curves")
        p.add_argument("--reference", required=True)
        p.add_argument("--early", type=int, default=100)
        p.add_argument("--early-tolerance", type=float, default=1e-5)
        p.add_argument("--final-below", type=float, required=True)
        p.add_argument("curves", nargs="+")
        return compare_curves(p.parse_args(sys.argv[2:]))
    p = argparse.ArgumentParser(prog="run_mpi.py")
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--np", type=int, required=True)
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--expect-failure", default=None)
    p.add_argument("--mpi-arg", dest="mpi_args", action="append", default=[])
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args()
    if args.command and args.command[0] == "--":
        args.command = args.command[1:]
    if not args.command:
        p.error("no program to run")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
