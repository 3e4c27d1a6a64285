"""The guide's code blocks are programs, and the output the guide shows is what they print.

Usage:
  guide.py generate CHAPTER.md OUT.cpp     write the chapter's C++ blocks as one program
  guide.py check CHAPTER.md PROGRAM        run it; fail where its output differs from the page's
  guide.py update CHAPTER.md PROGRAM       run it; write its output (and pictures) into the page

A chapter of docs/guide/ is read like a notebook. A fenced block whose info string is `cpp` is a
statement block: the chapter's statement blocks run in order in one `main()`, so a block sees the
names the blocks before it declared. `cpp global` blocks (includes, templates, structs) go, in
order, at namespace scope before `main()`. The `output` block right after a statement block is
what that block prints (std::cout, and std::cerr, where sf::print writes by default); a statement
block with no `output` block after it must print nothing. In an output line, `…` stands for any
run of characters (timings). Every picture `![...](img/NAME.png)` of the chapter must be written
by its program as `NAME.dot` in the working directory and equal `img/NAME.dot`; `update` copies
it there and renders `img/NAME.png` with Graphviz's `dot`.

A `cpp compile-fail NAME` block shows code that must not compile: it is not part of the program;
its lines must be lines of tests/compile_fail/NAME.cpp (which the compile-fail test NAME builds),
and the `error` block after it must match that test's `// expect:` pattern.

The generated program carries `#line` directives: a compile error names the chapter's line."""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```([^`]*)$")
MARK = "\x1eguide-block {}\x1e"
MARK_RE = re.compile("\x1eguide-block (\\d+)\x1e")


class Block:
    def __init__(self, info, first_line, lines, start, end):
        self.info = info.split()  # ['cpp'], ['cpp', 'global'], ['output'], ...
        self.first_line = first_line  # 1-based line of the first content line
        self.lines = lines
        self.start, self.end = start, end  # 0-based indices of the fence lines

    @property
    def kind(self):
        if self.info[:1] == ["cpp"]:
            if self.info[1:2] == ["compile-fail"]:
                return "compile-fail"
            return "global" if "global" in self.info[1:] else "statements"
        if self.info[:1] in (["output"], ["error"]):
            return self.info[0]
        return "other"


def read_blocks(md_lines):
    blocks, i = [], 0
    while i < len(md_lines):
        m = FENCE.match(md_lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(md_lines) and md_lines[j] != "```":
            j += 1
        if j == len(md_lines):
            sys.exit(f"unclosed code block at line {i + 1}")
        blocks.append(Block(m.group(1), i + 2, md_lines[i + 1:j], i, j))
        i = j + 1
    return blocks


def statement_blocks(blocks):
    """[(statement block, its output block or None)] in order."""
    pairs = []
    for k, b in enumerate(blocks):
        if b.kind == "statements":
            nxt = blocks[k + 1] if k + 1 < len(blocks) else None
            pairs.append((b, nxt if nxt is not None and nxt.kind == "output" else None))
        elif b.kind == "output" and (k == 0 or blocks[k - 1].kind != "statements"):
            sys.exit(f"line {b.first_line - 1}: an output block must follow a cpp statement block")
    return pairs


def generate(md_path, out_path):
    md_path = pathlib.Path(md_path).resolve()
    blocks = read_blocks(md_path.read_text().splitlines())
    src = [f"// Generated from {md_path.name} by tests/docs/guide.py; edit the chapter, not this file.",
           "#include <exception>", "#include <iostream>", ""]
    for b in blocks:
        if b.kind == "global":
            src += [f'#line {b.first_line} "{md_path}"', *b.lines]
    src += ['#line 1 "guide-harness"',
            "static void staticflow_guide_block_end(int k) { std::cout << \"\\x1eguide-block \" << k << \"\\x1e\" << std::flush; }",
            "int main() {",
            "  std::cerr.rdbuf(std::cout.rdbuf());  // sf::print's default stream, in order with std::cout",
            "  try {"]
    for k, (b, _) in enumerate(statement_blocks(blocks), 1):
        src += [f'#line {b.first_line} "{md_path}"', *b.lines, '#line 1 "guide-harness"',
                f"  staticflow_guide_block_end({k});"]
    src += ["  } catch (const std::exception& e) {",
            '    std::cout << "\\x1eguide-uncaught\\x1e" << e.what() << std::endl;',
            "    return 1;",
            "  }",
            "}", ""]
    out = pathlib.Path(out_path)
    text = "\n".join(src)
    if not out.exists() or out.read_text() != text:  # unchanged: no rebuild
        out.write_text(text)


def run(md_path, program):
    """Runs the program in a fresh directory: (outputs per statement block, the directory)."""
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="staticflow-guide-"))
    proc = subprocess.run([str(pathlib.Path(program).resolve())], cwd=workdir, capture_output=True, text=True, timeout=600)
    parts = MARK_RE.split(proc.stdout)  # text, 1, text, 2, ..., tail
    outputs = parts[0:-1:2]
    tail = parts[-1]
    if proc.returncode != 0 or tail:
        sys.exit(f"{md_path}: the program stopped after block {len(outputs)} (exit {proc.returncode}):\n{tail}{proc.stderr}")
    return outputs, workdir


def matches(expected, actual):
    exp, act = expected.rstrip("\n").split("\n"), actual.rstrip("\n").split("\n")
    if len(exp) != len(act):
        return False
    for e, a in zip(exp, act):
        pattern = ".*".join(re.escape(piece) for piece in e.split("…"))
        if not re.fullmatch(pattern, a):
            return False
    return True


def pictures(md_text):
    return re.findall(r"!\[[^\]]*\]\(img/([\w-]+)\.png\)", md_text)


def check(md_path, program):
    md_path = pathlib.Path(md_path)
    text = md_path.read_text()
    pairs = statement_blocks(read_blocks(text.splitlines()))
    outputs, workdir = run(md_path, program)
    failures = []
    for (b, out), actual in zip(pairs, outputs):
        expected = "\n".join(out.lines) if out else ""
        if not matches(expected, actual):
            failures.append(f"{md_path}:{b.first_line}: the block prints\n{actual}\n--- the page shows ---\n{expected}\n")
    for name in pictures(text):
        made, kept = workdir / f"{name}.dot", md_path.parent / "img" / f"{name}.dot"
        if not made.exists():
            failures.append(f"{md_path}: the page shows img/{name}.png, and its program writes no {name}.dot")
        elif not kept.exists() or kept.read_text() != made.read_text():
            failures.append(f"{md_path}: {name}.dot differs from img/{name}.dot:\n{made.read_text()}")
    shutil.rmtree(workdir)
    if failures:
        sys.exit("\n".join(failures) + f"\n(guide.py update {md_path} PROGRAM writes what the program prints)")
    print(f"{md_path.name}: {len(pairs)} blocks print what the page shows, {len(pictures(text))} pictures, "
          f"{check_compile_fail(md_path, read_blocks(text.splitlines()))} compile errors")


def check_compile_fail(md_path, blocks):
    """Each compile-fail block is code of a compile-fail test, and its error block that test's message."""
    tests = pathlib.Path(__file__).resolve().parent.parent / "compile_fail"
    count = 0
    for k, b in enumerate(blocks):
        if b.kind != "compile-fail":
            if b.kind == "error" and (k == 0 or blocks[k - 1].kind != "compile-fail"):
                sys.exit(f"{md_path}:{b.first_line}: an error block must follow a cpp compile-fail block")
            continue
        count += 1
        name = b.info[2] if len(b.info) > 2 else ""
        source = tests / f"{name}.cpp"
        if not source.is_file():
            sys.exit(f"{md_path}:{b.first_line}: no compile-fail test tests/compile_fail/{name}.cpp")
        kept = [line.strip() for line in source.read_text().splitlines()]
        shown = [line.strip() for line in b.lines if line.strip()]
        if not all(line in kept for line in shown):
            missing = next(line for line in shown if line not in kept)
            sys.exit(f"{md_path}:{b.first_line}: `{missing}` is not a line of tests/compile_fail/{name}.cpp")
        expect = re.search(r"^// expect: (.*)$", source.read_text(), re.M).group(1)
        error = blocks[k + 1] if k + 1 < len(blocks) and blocks[k + 1].kind == "error" else None
        if error is None or not re.search(expect, "\n".join(error.lines)):
            sys.exit(f"{md_path}:{b.first_line}: the error block after it must match `{expect}` ({name}.cpp's)")
    return count


def update(md_path, program):
    md_path = pathlib.Path(md_path)
    text = md_path.read_text()
    lines = text.splitlines()
    pairs = statement_blocks(read_blocks(lines))
    outputs, workdir = run(md_path, program)
    for (b, out), actual in reversed(list(zip(pairs, outputs))):  # from the end: indices stay valid
        new = actual.rstrip("\n").split("\n") if actual else []
        if out is not None:
            if matches("\n".join(out.lines), actual):
                continue  # keeps its `…`
            lines[out.start:out.end + 1] = ["```output", *new, "```"] if new else []
            if not new and out.start > 0 and lines[out.start - 1] == "":
                del lines[out.start - 1]
        elif new:
            lines[b.end + 1:b.end + 1] = ["", "```output", *new, "```"]
    md_path.write_text("\n".join(lines) + "\n")
    img = md_path.parent / "img"
    for name in pictures(text):
        made = workdir / f"{name}.dot"
        if made.exists():
            img.mkdir(exist_ok=True)
            shutil.copy(made, img / f"{name}.dot")
            subprocess.run(["dot", "-Tpng", "-Gdpi=80", str(img / f"{name}.dot"), "-o", str(img / f"{name}.png")], check=True)
    shutil.rmtree(workdir)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("generate", "check", "update"):
        sys.exit(__doc__)
    {"generate": generate, "check": check, "update": update}[sys.argv[1]](sys.argv[2], sys.argv[3])
