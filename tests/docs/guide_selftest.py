"""Checks tests/docs/guide.py itself: that `check` fails where a page and its program disagree.

Usage: guide_selftest.py. Writes a small chapter and a stand-in for its compiled program (a
Python script printing the block markers the generated main() prints) into a temporary
directory, and runs `guide.py check` on variations: each must pass or fail as stated."""
import pathlib
import subprocess
import sys
import tempfile

GUIDE = pathlib.Path(__file__).resolve().parent / "guide.py"

CHAPTER = """# A chapter

```cpp global
#include <iostream>
```

```cpp
std::cout << "one\\n";
```

```output
one
```

```cpp
std::cout << "took 12 ms\\n";
```

```output
took … ms
```

```cpp
int quiet = 0;
```

```cpp compile-fail if_on_symbolic_tensor
if (x > 0) return x * 2;  // fix: if (double_it) return x * 2;
```

```error
error: static assertion failed: staticflow: a symbolic tensor has no value while tracing, so it cannot be a C++ bool
```
"""


def program(outputs, exit_code=0):
    """A stand-in program printing each block's output and its marker."""
    body = "".join(f"sys.stdout.write({text!r} + '\\x1eguide-block {k}\\x1e')\n" for k, text in enumerate(outputs, 1))
    return f"#!{sys.executable}\nimport sys\n{body}sys.exit({exit_code})\n"


def check(chapter, prog):
    with tempfile.TemporaryDirectory() as d:
        md, exe = pathlib.Path(d) / "01_chapter.md", pathlib.Path(d) / "program"
        md.write_text(chapter)
        exe.write_text(prog)
        exe.chmod(0o755)
        r = subprocess.run([sys.executable, str(GUIDE), "check", str(md), str(exe)], capture_output=True, text=True)
        return r.returncode == 0, r.stdout + r.stderr


cases = [
    ("what the page shows", CHAPTER, program(["one\n", "took 3 ms\n", ""]), True, "3 blocks print what the page shows"),
    ("a block prints another value", CHAPTER, program(["two\n", "took 3 ms\n", ""]), False, "the block prints\ntwo"),
    ("a timing line with other words", CHAPTER, program(["one\n", "took 3 s\n", ""]), False, "took 3 s"),
    ("a block with no output block prints", CHAPTER, program(["one\n", "took 3 ms\n", "noise\n"]), False, "noise"),
    ("the program stops early", CHAPTER, program(["one\n"], 1), False, "stopped after block 1"),
    ("a compile-fail line not in the test", CHAPTER.replace("if (x > 0) return x * 2;", "if (x > 1) return x;"),
     program(["one\n", "took 3 ms\n", ""]), False, "is not a line of tests/compile_fail/if_on_symbolic_tensor.cpp"),
    ("an error block that does not match the test's", CHAPTER.replace("so it cannot be a C++ bool", "so no"),
     program(["one\n", "took 3 ms\n", ""]), False, "the error block after it must match"),
    ("a picture the program does not write", CHAPTER + "\n![x](img/missing.png)\n",
     program(["one\n", "took 3 ms\n", ""]), False, "writes no missing.dot"),
]
failures = []
for name, chapter, prog, should_pass, expect in cases:
    passed, out = check(chapter, prog)
    if passed != should_pass or expect not in out:
        failures.append(f"{name}: {'passed' if passed else 'failed'}, output:\n{out}")
if failures:
    sys.exit("\n".join(failures))
print(f"guide.py: {len(cases)} cases pass or fail as they should")
