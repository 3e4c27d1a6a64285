"""Checks that docs/ops.md names every public function of the op headers, that its ONNX column
names only ONNX ops the exporter writes, that its grad column says of each elementwise function
what autodiff/rules.hpp does (a rule, a zero rule, none), that its dtypes column says which
dtypes the function's op tag takes, and that the grad column of every other function agrees with
the nodes the function builds (each has a gradient rule, or makes integers).

Usage: ops_table.py REPO. Reads graph/operators.hpp, graph/math.hpp, graph/activations.hpp and
graph/creation.hpp, graph/conv.hpp, graph/conv3d.hpp, graph/depthwise_conv.hpp, graph/pool.hpp, graph/cumulative.hpp, graph/gather.hpp, graph/scatter.hpp, graph/random.hpp, graph/statistics.hpp, graph/data_movement.hpp, graph/slicing.hpp, graph/sorting.hpp, graph/unique.hpp, graph/einsum.hpp, graph/linalg.hpp, graph/segment.hpp, graph/masking.hpp, graph/strings.hpp and graph/strings_regex.hpp: the names their function macros define (STATICFLOW_UNARY_FUNCTION(name, ...),
STATICFLOW_BINARY_FUNCTION, STATICFLOW_MATH_UNARY, STATICFLOW_MATH_BINARY) and the functions they
define directly (`constexpr auto name(`; inside `namespace random` / `linalg` / `strings` as `random::name`, ...), and fails listing each one docs/ops.md does not mention
as `sf::name`."""
import pathlib
import re
import sys

repo = pathlib.Path(sys.argv[1])
headers = ["operators.hpp", "math.hpp", "activations.hpp", "creation.hpp", "conv.hpp", "conv3d.hpp", "depthwise_conv.hpp", "pool.hpp", "cumulative.hpp", "gather.hpp", "scatter.hpp", "random.hpp", "statistics.hpp", "data_movement.hpp", "slicing.hpp", "sorting.hpp", "unique.hpp", "einsum.hpp", "linalg.hpp", "segment.hpp", "masking.hpp", "strings.hpp", "strings_regex.hpp"]
names = set()
for header in headers:
    text = (repo / "include" / "staticflow" / "graph" / header).read_text()
    names |= set(re.findall(r"^STATICFLOW_(?:UNARY_FUNCTION|BINARY_FUNCTION|MATH_UNARY|MATH_BINARY)\((\w+),", text, re.M))
    # functions at namespace level (not in detail::): `constexpr auto name(`, not operators
    public = re.sub(r"namespace detail \{.*?\n\}  // namespace detail", "", text, flags=re.S)
    public = re.sub(r"\nnamespace graph \{.*?\n\}  // namespace graph", "", public, flags=re.S)  # internal nodes and hooks
    # a sub-namespace's functions (sf::random::stateless_uniform) are named with it
    for sub, body in re.findall(r"^namespace (random|linalg|strings) \{\n(.*?)\n\}  // namespace \1", public, re.M | re.S):
        names |= {f"{sub}::{n}" for n in re.findall(r"^(?:constexpr )?auto (\w+)\(", body, re.M)}
        public = public.replace(body, "")
    names |= set(re.findall(r"^constexpr auto (\w+)\(", public, re.M))
table = (repo / "docs" / "ops.md").read_text()
missing = sorted(n for n in names if f"sf::{n}" not in table)
print(f"{len(names)} functions in {len(headers)} headers; {len(missing)} missing from docs/ops.md")
for n in missing:
    print(f"  missing: sf::{n}")

# The ONNX column: every ONNX op it names (a capitalized word: Add, ScatterND, ReduceProd) must be
# one the exporter writes (a string literal of include/staticflow/io/), so the column cannot name
# a lowering that does not exist.
written = set()
for header in (repo / "include" / "staticflow" / "io").glob("*.hpp"):
    written |= set(re.findall(r'"([A-Z][A-Za-z]+)"', header.read_text()))
unknown, onnx_column, cells = [], None, 0
for line in table.split("\n"):
    if line.startswith("| staticflow |"):
        heads = [c.strip() for c in line.strip().strip("|").split("|")]
        onnx_column = heads.index("ONNX") if "ONNX" in heads else None
    elif not line.startswith("|"):
        if line.startswith("#"):
            onnx_column = None
    elif onnx_column is not None and not line.startswith("|---"):
        row = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(row) > onnx_column:
            cells += 1
            for op in re.findall(r"\b[A-Z][a-z]+(?:[A-Z][a-z0-9]*)*\b", row[onnx_column]):
                if op not in written:
                    unknown.append(f"{op} (in: {row[onnx_column][:60]})")
print(f"{cells} ONNX cells; {len(unknown)} name an op the exporter does not write")
for u in unknown:
    print(f"  unknown ONNX op: {u}")
# The grad column of the elementwise functions (those a macro defines from an op tag): "yes ..."
# (or "float to float") where autodiff/rules.hpp has a rule for the op, "0" where the rule is
# zero_adjoint (floor, sign, floordiv: flat, as TF's), "-" where there is none (comparisons,
# logical and bitwise ops: no float result to differentiate).
# autodiff/rules.hpp includes the rules of rules_arithmetic.hpp and rules_data_movement.hpp
rules = "\n".join(p.read_text() for p in sorted((repo / "include" / "staticflow" / "autodiff").glob("rules*.hpp")))
rules = re.sub(r"inline constexpr bool is_math_function =.*?;", "", rules, flags=re.S)  # a list, not a rule
def rule_of(tag):
    kinds = set()
    for m in re.finditer(rf"std::is_same(?:_v<Op, op::{tag}>|<Op, op::{tag}>::value)", rules):
        statement = rules[m.end():rules.index(";", m.end())]  # up to the end of what the test returns
        kinds.add("0" if "zero_adjoint" in statement else "yes")
    return "yes" if "yes" in kinds else "0" if kinds else "-"
tags = {}
for header in ["operators.hpp", "math.hpp"]:
    text = (repo / "include" / "staticflow" / "graph" / header).read_text()
    tags |= dict(re.findall(r"^STATICFLOW_(?:UNARY_FUNCTION|BINARY_FUNCTION|MATH_UNARY|MATH_BINARY)\((\w+), (\w+)\)", text, re.M))
def rows_with(column):
    """(row, cell) for each row of a table that has the named column, the row's cells split at
    unescaped bars."""
    index = None
    for line in table.split("\n"):
        if line.startswith("| staticflow |"):
            heads = [c.strip() for c in line.strip().strip("|").split("|")]
            index = heads.index(column) if column in heads else None
        elif line.startswith("|") and not line.startswith("|---") and index is not None:
            row = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            yield row, row[index]
wrong, checked = [], 0
for row, cell in rows_with("grad"):
    said = "yes" if cell.startswith("yes") or cell.startswith("float to float") else cell.split(" ")[0]
    for name in re.findall(r"`sf::(\w+)(?![\w:])", row[0]):
        if name in tags:
            checked += 1
            if rule_of(tags[name]) != said:
                wrong.append(f"sf::{name}: docs/ops.md says {cell!r}, autodiff/rules.hpp has {rule_of(tags[name])!r} for op::{tags[name]}")
print(f"{checked} grad cells of the {len(tags)} elementwise functions checked against autodiff/rules.hpp; {len(wrong)} wrong")
for w in wrong:
    print(f"  wrong grad: {w}")

# The dtypes column of the same functions: the letters a row says (f, i, b, s; those after "->"
# are the result's) must be those its op tags accept (graph/scalar_ops.hpp, graph/math_ops.hpp:
# `operands::floating` f, `numeric` f i, `integer` i, `boolean` b, none said: any of f i b; `s`
# where the tag says `takes_strings`), which graph/elementwise.hpp's checked_operands enforces.
requirement, take_strings = {}, set()
for header in ["scalar_ops.hpp", "math_ops.hpp"]:
    text = (repo / "include" / "staticflow" / "graph" / header).read_text()
    for m in re.finditer(r"^struct (\w+) : (?:elementwise_op|comparison_op)<\w+(?:, operands::(\w+))?> \{(.*?)^\};", text, re.M | re.S):
        requirement[m.group(1)] = m.group(2) or "any"
        if "takes_strings = true" in m.group(3):
            take_strings.add(m.group(1))
    for tag in re.findall(r"^STATICFLOW_FLOAT_FUNCTION\((\w+),", text, re.M):
        requirement[tag] = "floating"
letters = {"floating": {"f"}, "numeric": {"f", "i"}, "integer": {"i"}, "boolean": {"b"}, "any": {"f", "i", "b"}}
def accepted(tag):
    return letters[requirement[tag]] | ({"s"} if tag in take_strings else set())
untagged = sorted(t for t in tags.values() if t not in requirement)
wrong_dtypes, dtype_rows = [], 0
for row, cell in rows_with("dtypes"):
    named = [n for n in re.findall(r"`sf::(\w+)(?![\w:])", row[0]) if n in tags and tags[n] in requirement]
    if not named:
        continue
    said = set(re.findall(r"\b([fibs])\b", re.split(r"->|\(", cell)[0])) | ({"s"} if re.search(r"\bs\b", cell) else set())
    takes = set().union(*(accepted(tags[n]) for n in named))
    dtype_rows += 1
    if said != takes:
        wrong_dtypes.append(f"{', '.join('sf::' + n for n in named)}: docs/ops.md says {cell!r}, the op tags take {' '.join(sorted(takes))}")
print(f"{dtype_rows} dtypes cells of the elementwise functions checked against their op tags; {len(wrong_dtypes)} wrong"
      + (f"; no op tag found for {untagged}" if untagged else ""))
for w in wrong_dtypes:
    print(f"  wrong dtypes: {w}")

# The grad column of every other function: a row that says the function is differentiable ("yes",
# "same", "float to float", "through ...") must build only nodes the adjoint can walk: each node
# template it constructs (in its body, or in the staticflow functions its body calls) has a
# child_adjoint overload in autodiff/rules.hpp, is walked by autodiff/backprop.hpp,
# loop_backprop.hpp or custom_gradient.hpp themselves (conds, loops, shared nodes, custom
# gradients), or makes integers (positions, indices: no gradient flows there, as in TF). A row
# that says it is not ("-", "none", "—") must build some node that has no rule or makes integers.
include = repo / "include" / "staticflow"
texts = {h: h.read_text() for h in include.rglob("*.hpp")}
ruled = set(re.findall(r"child_adjoint\(const graph::(\w+)<", rules))
walked = set()
for walker in ["backprop.hpp", "loop_backprop.hpp", "custom_gradient.hpp"]:
    walked |= set(re.findall(r"graph::(\w+)<", (include / "autodiff" / walker).read_text()))
node_value_types = {}
for text in texts.values():
    for m in re.finditer(r"^struct (\w+)\b[^{;]*?\bnode<\1\b[^{]*\{(.*?)^\};", text, re.M | re.S):
        value_type = re.search(r"using value_type = ([^;]+);", m.group(2))
        node_value_types[m.group(1)] = value_type.group(1).strip() if value_type else ""
leaves = {"argument", "literal", "static_literal", "extent_query", "sequence", "external_leaf"}
def makes_integers(node):
    return re.fullmatch(r"(std::)?(u?int(8|16|32|64)_t|bool)", node_value_types.get(node, "")) is not None
bodies = {}
for path, text in texts.items():
    if path.parent.name in ("graph", "control"):
        for m in re.finditer(r"^(?:constexpr |inline |\[\[nodiscard\]\] )*auto (\w+)\((.*?)^\}", text, re.M | re.S):
            bodies[m.group(1)] = bodies.get(m.group(1), "") + m.group(2)
def nodes_built(name, seen):
    if name in seen:
        return set()
    seen.add(name)
    body = bodies.get(name, "")
    built = {n for n in re.findall(r"\b(\w+)<", body) if n in node_value_types and n != "node"}
    for callee in set(re.findall(r"\b(\w+)\s*[<(]", body)):
        if callee in bodies:
            built |= nodes_built(callee, seen)
    return built
wrong_grad, grad_rows = [], 0
for row, cell in rows_with("grad"):
    differentiable = re.match(r"(yes|same|float to float|through)", cell) is not None
    for name in re.findall(r"`sf::(\w+)(?![\w:])", row[0]):
        built = nodes_built(name, set()) - leaves
        if name in tags or not built:
            continue  # the elementwise functions are checked above; a function building no node: nothing to say
        grad_rows += 1
        no_rule = sorted(n for n in built if n not in ruled and n not in walked and not makes_integers(n))
        if differentiable and no_rule:
            wrong_grad.append(f"sf::{name}: docs/ops.md says {cell[:50]!r}, but no gradient rule walks {', '.join(no_rule)}")
        if not differentiable and not no_rule and not any(makes_integers(n) for n in built):
            wrong_grad.append(f"sf::{name}: docs/ops.md says {cell[:50]!r}, but every node it builds ({', '.join(sorted(built))}) has a rule")
print(f"{grad_rows} grad cells of the other functions checked against the nodes they build; {len(wrong_grad)} wrong")
for w in wrong_grad:
    print(f"  wrong grad: {w}")
sys.exit(1 if missing or unknown or wrong or wrong_dtypes or untagged or wrong_grad or len(names) < 60 or cells < 100
         or checked < len(tags) or dtype_rows < 30 or grad_rows < 50 else 0)
