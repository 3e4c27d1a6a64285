"""Checks that docs/seeds.md has a row for every example of the seed documents.

Usage: seeds_table.py REPO [--write]. An example is a Python `def NAME(...):` or a
`with tf.GradientTape() as tape:` block of a seed; its text is its first 200 characters,
whitespace collapsed. tests/docs/seed_examples.txt keeps that list (one `NNN<TAB>text` line each),
so a clone without the seeds (REPO/../shared/seeds) still checks the table; where the seeds are
there, the list must equal what they contain (`--write` regenerates it). Fails when an example has
no row (a row's key is the example's first words), when a row's key matches no example, or when a
row names a file or a Catch2 test case ("...") that does not exist."""
import pathlib
import re
import sys

repo = pathlib.Path(sys.argv[1]).resolve()
seeds = repo.parent / "shared" / "seeds"
stored = repo / "tests" / "docs" / "seed_examples.txt"


def collapse(text):
    return re.sub(r"\s+", " ", text.replace("\\n", " ")).strip()


failures = []
examples = [tuple(line.split("\t", 1)) for line in stored.read_text().splitlines() if line] if stored.exists() else []
if seeds.is_dir():
    found = []  # (seed number, collapsed text from the example's start)
    for path in sorted(seeds.glob("*.txt")):
        text = path.read_text()
        for m in re.finditer(r"def \w+\(|with tf\.GradientTape\(\) as tape:", text):
            found.append((path.name[:3], collapse(text[m.start():m.start() + 200])))
    if "--write" in sys.argv:
        stored.write_text("".join(f"{n}\t{t}\n" for n, t in found))
        examples = found
    elif found != examples:
        failures.append(f"{stored.name} is not what the seeds hold: run seeds_table.py REPO --write")
else:
    print(f"(no seed documents at {seeds}: checking against {stored.name})")

rows = []
for line in (repo / "docs" / "seeds.md").read_text().splitlines():
    m = re.match(r"\| (\d{3}) \| `(.+?)` \| (.+) \| (done|in part|missing) \|$", line)
    if m:
        rows.append((m.group(1), collapse(m.group(2)), m.group(3)))

used = set()
for number, example in examples:
    hits = [i for i, (n, key, _) in enumerate(rows) if n == number and example.startswith(key)]
    if not hits:
        failures.append(f"seed {number}: no row for `{example[:60]}...`")
    used.update(hits)
for i, (number, key, where) in enumerate(rows):
    if i not in used:
        failures.append(f"row {number} `{key}` matches no example of the seeds")
    # each file, and the test case quoted right after it
    for file, case in re.findall(r'`((?:tests|examples)/[\w/.]+\.cpp)`(?: "([^"]+)")?', where):
        source = repo / file
        if not source.is_file():
            failures.append(f"row {number} `{key}`: {file} does not exist")
        elif case and f'TEST_CASE("{case}"' not in source.read_text():
            failures.append(f"row {number} `{key}`: no test case \"{case}\" in {file}")
print(f"{len(examples)} seed examples, {len(rows)} rows; {len(failures)} problems")
for f in failures:
    print("  " + f)
sys.exit(1 if failures else 0)
