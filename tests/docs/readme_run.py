#!/usr/bin/env python3
"""Runs the commands of a README.md block marked `<!-- readme.run: NAME -->` (the line before its
fence) exactly as written there, from the source tree's root, one line at a time (a `#` comment
after a command is the shell's). Exits with the first failing command's status.

    readme_run.py REPO NAME

As root, Open MPI's mpirun wants OMPI_ALLOW_RUN_AS_ROOT and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM, which
README says; they are set here when missing, as a root user would.
"""
import os
import pathlib
import re
import subprocess
import sys


def block(readme, name):
    match = re.search(r"<!-- readme\.run: " + re.escape(name) + r" -->\n```[a-z]*\n(.*?)```", readme, re.S)
    if not match:
        sys.exit(f"readme_run: README.md has no block marked `<!-- readme.run: {name} -->`")
    return [line for line in match.group(1).splitlines() if line.strip()]


def main():
    repo, name = pathlib.Path(sys.argv[1]), sys.argv[2]
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    for command in block((repo / "README.md").read_text(), name):
        print(f"readme_run: $ {command}", flush=True)
        status = subprocess.run(["bash", "-c", command], cwd=repo, env=env).returncode
        if status != 0:
            print(f"readme_run: FAILED: exit {status}")
            return status
    print("readme_run: every command succeeded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
