#!/usr/bin/env python3
"""Differential graph fuzzer: writes random staticflow programs and their scalar references.

Each graph is a function of one to three arguments built from random ops (elementwise arithmetic
and math, comparisons, where, casts, reductions, matmul, transpose, cond, fori_loop with a
run-time trip count, whose body is sometimes a cond on the loop variable) over named axes, so that broadcasting is right by construction while the
extents change from call to call. The same graph is written twice: as a generic lambda over
staticflow tensors, and as a program over `fuzz::value` (tests/fuzz/graph_reference.hpp).
tests/fuzz/graph_harness.hpp runs the lambda on random inputs through every way into staticflow and
compares with the reference. A graph depends on its seed alone (Python's random.Random(seed)), and
each case's inputs on (seed, case number) alone, so every failure can be replayed.

  graph_fuzz.py --seeds 1-12 --cases 840 --kinds forward --regressions graph_regressions.txt
                --parts 5 --part 0 --out build/fuzz_graphs_0.cpp          (what CI compiles: 1 of 5)
  graph_fuzz.py --seeds 7 --print                                           (look at one graph)

Gradient graphs (--gradient): smooth float64 ops only; the harness checks sf::value_and_grad with
respect to every argument against central differences of the traced forward call.
"""
import argparse
import random
import re
import sys

AXES = "ABC"
CPP_TYPE = {"f32": "float", "f64": "double", "i32": "std::int32_t", "i64": "std::int64_t", "bool": "bool"}
FLOATS = ("f32", "f64")
INTS = ("i32", "i64")

UNARY_FLOAT = ["neg", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "sin", "cos", "atan", "erf", "softplus", "square", "floor"]
UNARY_SMOOTH = ["neg", "exp", "tanh", "sigmoid", "sin", "cos", "atan", "erf", "softplus", "square"]
UNARY_INT = ["neg", "abs", "square"]
BINARY_FLOAT = ["+", "-", "*", "/", "maximum", "minimum"]
BINARY_SMOOTH = ["+", "-", "*"]
BINARY_INT = ["+", "-", "*", "/", "%", "maximum", "minimum", "&", "|", "^"]
COMPARISONS = {"<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal", "==": "equal", "!=": "not_equal"}
REF_BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod", "maximum": "maximum", "minimum": "minimum"}


class Node:
    def __init__(self, name, dtype, shape):
        self.name = name
        self.dtype = dtype
        self.shape = tuple(shape)  # per dimension a named axis (0, 1, 2) or None: an extent of 1


def broadcast(a, b):
    """The broadcast shape of two shapes of axis names, or None when they do not broadcast."""
    r = []
    for k in range(max(len(a), len(b))):
        x = a[len(a) - 1 - k] if k < len(a) else None
        y = b[len(b) - 1 - k] if k < len(b) else None
        if x is not None and y is not None and x != y:
            return None
        r.append(x if x is not None else y)
    return tuple(reversed(r))


def literal(dtype, rng, positive=False):
    if dtype in FLOATS:
        v = rng.choice([0.5, 1.5, 2.0, 3.0, 0.25, -1.0, -2.5, 0.0])
        if positive:
            v = abs(v) + 0.5
        return (repr(v) + ("f" if dtype == "f32" else "")), v
    v = rng.choice([1, 2, 3, 7, -1, -3, 0, 100])
    if positive:
        v = abs(v) + 1
    return (f"std::int64_t{{{v}}}" if dtype == "i64" else str(v)), v


class Graph:
    def __init__(self, seed, gradient):
        self.seed = seed
        self.gradient = gradient
        self.rng = random.Random(seed * 7919 + (1 if gradient else 0))
        # a loop body's cond is drawn from a stream of its own: the graphs of the seeds from before
        # it came (the regressions' included) keep every other choice
        self.body_rng = random.Random(f"loop-body-{seed}-{int(gradient)}")
        self.cpp = []  # statements of the lambda
        self.ref = []  # statements of the reference
        self.listing = []
        self.pool = []
        self.count = 0
        self.squares = False
        rng = self.rng
        if gradient:
            self.dtype = "f64"
        else:
            self.dtype = rng.choice(["f32", "f32", "f32", "f64", "i32", "i32", "i64"])
        self.inputs = []
        for i in range(rng.choice([1, 2, 2, 3])):
            dtype = self.dtype
            if not gradient and self.dtype in FLOATS and rng.random() < 0.15:
                dtype = rng.choice(INTS)
            rank = rng.choice([0, 1, 2, 2, 3] if not gradient else [1, 2, 2, 3])
            shape = []
            for d in range(rank):
                axis = 3 - rank + d
                shape.append(None if rng.random() < 0.25 else axis)
            node = Node(f"x{i}", dtype, shape)
            self.inputs.append(node)
            self.pool.append(node)
        self.static_sizes = [rng.choice([0, 1, 2, 3, 5]) for _ in range(3)]
        if all(s > 0 for s in self.static_sizes) and rng.random() < 0.3:
            self.static_sizes[rng.randrange(3)] = 0

    # ---- helpers ----
    def new(self, dtype, shape, cpp, ref, text):
        name = f"t{self.count}"
        self.count += 1
        self.cpp.append(f"    [[maybe_unused]] auto {name} = {cpp};")
        self.ref.append(f"    [[maybe_unused]] const fuzz::value {name} = {ref};")
        node = Node(name, dtype, shape)
        self.listing.append(f"{name}: {CPP_TYPE[dtype]}[{','.join(AXES[a] if a is not None else '1' for a in shape)}] = {text}")
        self.pool.append(node)
        return node

    def pick(self, pred=lambda n: True, recent=True):
        cands = [n for n in self.pool if pred(n)]
        if not cands:
            return None
        if recent and self.rng.random() < 0.6:
            return cands[-1] if self.rng.random() < 0.5 else cands[max(0, len(cands) - 3):][self.rng.randrange(min(3, len(cands)))]
        return self.rng.choice(cands)

    def numeric(self, n):
        return n.dtype != "bool"

    # ---- ops ----
    def unary(self, a, op):
        if op == "neg":
            return self.new(a.dtype, a.shape, f"-{a.name}", f"fuzz::neg({a.name})", f"neg {a.name}")
        return self.new(a.dtype, a.shape, f"sf::{op}({a.name})", f"fuzz::{op}({a.name})", f"{op} {a.name}")

    def binary(self, a, b, op):
        shape = broadcast(a.shape, b.shape)
        if op in ("maximum", "minimum"):
            cpp = f"sf::{op}({a.name}, {b.name})"
        else:
            cpp = f"{a.name} {op} {b.name}"
        if op in ("&", "|", "^"):
            ref = f"fuzz::bitwise({a.name}, {b.name}, '{op}')"
        else:
            ref = f"fuzz::{REF_BINARY[op]}({a.name}, {b.name})"
        return self.new(a.dtype, shape, cpp, ref, f"{op} {a.name} {b.name}")

    def with_literal(self, a, op):
        positive = op in ("/", "%")
        lit, v = literal(a.dtype, self.rng, positive)
        kind = f"fuzz::kind::{a.dtype}"
        if op in ("maximum", "minimum"):
            cpp = f"sf::{op}({a.name}, {lit})"
        else:
            cpp = f"{a.name} {op} {lit}"
        ref_op = f"fuzz::bitwise({a.name}, fuzz::literal({kind}, {v}), '{op}')" if op in ("&", "|", "^") else \
            f"fuzz::{REF_BINARY[op]}({a.name}, fuzz::literal({kind}, {v}))"
        return self.new(a.dtype, a.shape, cpp, ref_op, f"{op} {a.name} {lit}")

    def step(self):
        rng = self.rng
        g = self.gradient
        kinds = ["unary"] * 5 + ["binary"] * 5 + ["literal"] * 3 + ["reduce"] * 2 + ["matmul", "transpose", "cond", "loop"]
        if not g:
            kinds += ["compare", "compare", "where", "where", "cast", "logical"]
        kind = rng.choice(kinds)
        num = self.pick(self.numeric)
        if kind == "unary":
            a = num
            if a.dtype in FLOATS:
                return self.unary(a, rng.choice(UNARY_SMOOTH if g else UNARY_FLOAT))
            return self.unary(a, rng.choice(UNARY_INT))
        if kind == "binary":
            a = num
            b = self.pick(lambda n: n.dtype == a.dtype and broadcast(a.shape, n.shape) is not None, recent=False)
            if g and rng.random() < 0.25:
                # a smooth division: a / (1 + b^2)
                shape = broadcast(a.shape, b.shape)
                return self.new(a.dtype, shape, f"{a.name} / (1.0 + sf::square({b.name}))",
                                f"fuzz::div({a.name}, fuzz::add(fuzz::literal(fuzz::kind::f64, 1.0), fuzz::square({b.name})))",
                                f"/ {a.name} (1 + square {b.name})")
            ops = BINARY_SMOOTH if g else (BINARY_FLOAT if a.dtype in FLOATS else BINARY_INT)
            return self.binary(a, b, rng.choice(ops))
        if kind == "literal":
            a = num
            ops = BINARY_SMOOTH if g else (BINARY_FLOAT if a.dtype in FLOATS else BINARY_INT)
            return self.with_literal(a, rng.choice(ops))
        if kind == "compare":
            a = num
            if rng.random() < 0.5:
                b = self.pick(lambda n: n.dtype == a.dtype and broadcast(a.shape, n.shape) is not None, recent=False)
                op = rng.choice(list(COMPARISONS))
                return self.new("bool", broadcast(a.shape, b.shape), f"{a.name} {op} {b.name}",
                                f"fuzz::{COMPARISONS[op]}({a.name}, {b.name})", f"{op} {a.name} {b.name}")
            lit, v = literal(a.dtype, rng)
            op = rng.choice(list(COMPARISONS))
            return self.new("bool", a.shape, f"{a.name} {op} {lit}",
                            f"fuzz::{COMPARISONS[op]}({a.name}, fuzz::literal(fuzz::kind::{a.dtype}, {v}))", f"{op} {a.name} {lit}")
        if kind == "logical":
            a = self.pick(lambda n: n.dtype == "bool")
            if a is None:
                return None
            if rng.random() < 0.3:
                return self.new("bool", a.shape, f"!{a.name}", f"fuzz::logical_not({a.name})", f"not {a.name}")
            b = self.pick(lambda n: n.dtype == "bool" and broadcast(a.shape, n.shape) is not None, recent=False)
            op = rng.choice(["&&", "||"])
            ref = "logical_and" if op == "&&" else "logical_or"
            return self.new("bool", broadcast(a.shape, b.shape), f"{a.name} {op} {b.name}", f"fuzz::{ref}({a.name}, {b.name})",
                            f"{op} {a.name} {b.name}")
        if kind == "where":
            c = self.pick(lambda n: n.dtype == "bool")
            if c is None:
                return None
            a = self.pick(lambda n: self.numeric(n) and broadcast(c.shape, n.shape) is not None, recent=False)
            if a is None:
                return None
            b = self.pick(lambda n: n.dtype == a.dtype and broadcast(broadcast(c.shape, a.shape), n.shape) is not None, recent=False)
            shape = broadcast(broadcast(c.shape, a.shape), b.shape)
            return self.new(a.dtype, shape, f"sf::where({c.name}, {a.name}, {b.name})", f"fuzz::where({c.name}, {a.name}, {b.name})",
                            f"where {c.name} {a.name} {b.name}")
        if kind == "cast":
            a = self.pick(lambda n: n.dtype != self.dtype or n.dtype in FLOATS)
            if a is None:
                return None
            if a.dtype in FLOATS:
                to = "f64" if a.dtype == "f32" else "f32"
            elif self.dtype in FLOATS or a.dtype == "bool":
                to = self.dtype if self.dtype != a.dtype else "i64"
            else:
                to = "i64" if a.dtype == "i32" else "i32"
            return self.new(to, a.shape, f"sf::cast<{CPP_TYPE[to]}>({a.name})", f"fuzz::cast({a.name}, fuzz::kind::{to})",
                            f"cast<{CPP_TYPE[to]}> {a.name}")
        if kind == "reduce":
            a = self.pick(lambda n: self.numeric(n) and len(n.shape) > 0)
            if a is None:
                return None
            if g:
                op = rng.choice(["sum", "mean"])
            elif a.dtype in FLOATS:
                op = rng.choice(["sum", "mean", "max", "min"])
            else:
                op = rng.choice(["sum", "max", "min", "prod"])
            keep = rng.random() < 0.4
            if rng.random() < 0.3:
                shape = tuple(None for _ in a.shape) if keep else ()
                axes, axis = "", -1
            else:
                axis = rng.randrange(len(a.shape))
                axes = f", sf::axes<{axis}>{{}}"
                shape = tuple(None if d == axis else s for d, s in enumerate(a.shape) if keep or d != axis)
            kd = ", sf::keepdims" if keep else ""
            if axes == "" and keep:
                return None  # keepdims needs axes in the sf:: spelling; use the axis form instead
            return self.new(a.dtype, shape, f"sf::reduce_{op}({a.name}{axes}{kd})",
                            f"fuzz::reduce({a.name}, fuzz::reduction::{op}, {axis}, {'true' if keep else 'false'})",
                            f"reduce_{op}[{axis if axis >= 0 else 'all'}{', keepdims' if keep else ''}] {a.name}")
        if kind == "transpose":
            a = self.pick(lambda n: self.numeric(n) and len(n.shape) == 2)
            if a is None:
                return None
            return self.new(a.dtype, (a.shape[1], a.shape[0]), f"sf::transpose({a.name})", f"fuzz::transpose({a.name})",
                            f"transpose {a.name}")
        if kind == "matmul":
            a = self.pick(lambda n: self.numeric(n) and len(n.shape) == 2)
            if a is None:
                return None
            b = self.pick(lambda n: n.dtype == a.dtype and len(n.shape) == 2 and n.shape[1] == a.shape[1], recent=False)
            self.squares = True
            return self.new(a.dtype, (a.shape[0], b.shape[0]), f"sf::matmul({a.name}, sf::transpose({b.name}))",
                            f"fuzz::matmul({a.name}, fuzz::transpose({b.name}))", f"matmul {a.name} (transpose {b.name})")
        if kind == "cond":
            p = self.pick(lambda n: self.numeric(n) and len(n.shape) > 0, recent=False)
            s = num
            if p is None:
                return None
            lit, v = literal(p.dtype, rng)
            unary = (UNARY_SMOOTH if g else UNARY_FLOAT) if s.dtype in FLOATS else UNARY_INT
            u1, u2 = rng.choice(unary), rng.choice(unary)

            def spell(op, name, ns):
                if op == "neg":
                    return f"-{name}" if ns == "sf" else f"fuzz::neg({name})"
                return f"{ns}::{op}({name})"
            pred = f"sf::reduce_max({p.name}) > {lit}"
            ref_pred = f"fuzz::greater(fuzz::reduce({p.name}, fuzz::reduction::max, -1, false), fuzz::literal(fuzz::kind::{p.dtype}, {v}))"
            return self.new(s.dtype, s.shape,
                            f"sf::cond({pred}, [&] {{ return {spell(u1, s.name, 'sf')}; }}, [&] {{ return {spell(u2, s.name, 'sf')}; }})",
                            f"fuzz::cond({ref_pred}, [&] {{ return {spell(u1, s.name, 'fuzz')}; }}, [&] {{ return {spell(u2, s.name, 'fuzz')}; }})",
                            f"cond (max {p.name} > {lit}) ({u1} {s.name}) ({u2} {s.name})")
        if kind == "loop":
            v = num
            other = self.pick(lambda n: n.dtype == v.dtype and broadcast(v.shape, n.shape) == v.shape, recent=False)
            trips = rng.choice([0, 1, 2, 3])
            if v.dtype in FLOATS:
                op = rng.choice(BINARY_SMOOTH if g else ["+", "-", "*", "maximum", "minimum"])
                u = rng.choice(UNARY_SMOOTH if g else ["tanh", "sin", "sigmoid", "atan", "erf", "abs", "neg"])
            else:
                op = rng.choice(["+", "-", "*", "maximum", "^"])
                u = rng.choice(UNARY_INT)
            ref_binary = f"fuzz::bitwise(lv, {other.name}, '^')" if op == "^" else f"fuzz::{REF_BINARY[op]}(lv, {other.name})"
            cpp_binary = f"sf::{op}(lv, {other.name})" if op in ("maximum", "minimum") else f"lv {op} {other.name}"
            cpp_body = f"-({cpp_binary})" if u == "neg" else f"sf::{u}({cpp_binary})"
            ref_body = f"fuzz::{u}({ref_binary})"
            listing = f"{u}({op} lv {other.name})"
            if len(v.shape) > 0 and self.body_rng.random() < 0.35:
                # the body is a cond on the loop variable: the step above, or another unary op of lv
                lit, lit_value = literal(v.dtype, self.body_rng)
                u2 = self.body_rng.choice((UNARY_SMOOTH if g else UNARY_FLOAT) if v.dtype in FLOATS else UNARY_INT)
                other_cpp = "-lv" if u2 == "neg" else f"sf::{u2}(lv)"
                cpp_body = (f"sf::cond(sf::reduce_max(lv) > {lit}, [&] {{ return {cpp_body}; }}, "
                            f"[&] {{ return {other_cpp}; }})")
                ref_body = (f"fuzz::cond(fuzz::greater(fuzz::reduce(lv, fuzz::reduction::max, -1, false), "
                            f"fuzz::literal(fuzz::kind::{v.dtype}, {lit_value})), [&] {{ return {ref_body}; }}, "
                            f"[&] {{ return fuzz::{u2}(lv); }})")
                listing = f"cond (max lv > {lit}) ({listing}) ({u2} lv)"
            return self.new(v.dtype, v.shape,
                            f"sf::fori_loop(0, {trips}, [&](auto, auto lv) {{ return {cpp_body}; }}, {v.name})",
                            f"fuzz::fori_loop({trips}, {v.name}, [&](const fuzz::value& lv) {{ return {ref_body}; }})",
                            f"fori_loop {trips} times: lv = {listing}, from {v.name}")
        return None

    def build(self):
        target = self.rng.randint(3, 9)
        steps = 0
        while self.count < target and steps < 100:
            steps += 1
            self.step()
        out = self.pool[-1]
        if out.dtype == "bool" and self.gradient:
            out = self.pick(self.numeric)
        # fold up to two results nothing reads into the output, so that they are computed too
        used = set(re.findall(r"\b[tx]\d+\b", " ".join(line.split(" = ", 1)[1] for line in self.cpp)))
        for n in reversed(self.pool[:-1]):
            if n.name in used or n.name.startswith("x") or n.dtype != out.dtype or out.dtype == "bool":
                continue
            if broadcast(out.shape, n.shape) is None or self.count >= 12:
                continue
            out = self.binary(out, n, "+" if self.rng.random() < 0.5 or out.dtype in INTS else "-")
            used.add(n.name)
        self.output = out
        return self

    # ---- emission ----
    def emit(self, cases):
        ns = f"graph_{'g' if self.gradient else 'f'}{self.seed}"
        params = ", ".join(f"[[maybe_unused]] auto {x.name}" for x in self.inputs)
        lines = [f"// {'gradient ' if self.gradient else ''}graph {self.seed}: " + "; ".join(self.listing), f"namespace {ns} {{",
                 f"inline constexpr auto fn = []({params}) {{"]
        lines += self.cpp
        lines.append(f"    return {self.output.name};")
        lines.append("};")
        lines.append("inline fuzz::value reference(const std::vector<fuzz::value>& in) {")
        for i, x in enumerate(self.inputs):
            lines.append(f"    [[maybe_unused]] const fuzz::value& {x.name} = in[{i}];")
        lines += self.ref
        lines.append(f"    return {self.output.name};")
        lines.append("}")
        text = "\\n".join(f"{x.name}: {CPP_TYPE[x.dtype]}[{','.join(AXES[a] if a is not None else '1' for a in x.shape)}]"
                          for x in self.inputs) + "\\n" + "\\n".join(self.listing) + f"\\nresult {self.output.name}"
        axes = ", ".join("{" + ", ".join(str(a if a is not None else -1) for a in x.shape) + "}" for x in self.inputs)
        special = 0.0 if self.gradient else self.rng.choice([0.0, 0.02, 0.1])
        lines.append(f"inline const fuzz::graph_info info{{{self.seed}u, \"{text}\", {{{axes}}}, "
                     f"{{{', '.join(map(str, self.static_sizes))}}}, {special}, {cases}, {'true' if self.squares else 'false'}}};")
        args = ", ".join(f"fuzz::arg<{CPP_TYPE[x.dtype]}, {len(x.shape)}>" for x in self.inputs)
        out = f"fuzz::arg<{CPP_TYPE[self.output.dtype]}, {len(self.output.shape)}>"

        def static_extents(x):
            return ", ".join(str(self.static_sizes[a] if a is not None else 1) for a in x.shape)
        sparams = ", ".join(f"[[maybe_unused]] const auto& {x.name}" for x in self.inputs)
        sargs = ", ".join(f"fuzz::fixed_copy<{static_extents(x)}>({x.name})" for x in self.inputs)
        lines.append(f"inline constexpr auto call_static = [](auto& f, {sparams}) {{ return f({sargs}); }};")
        lines.append(f"}}  // namespace {ns}")
        if self.gradient:
            lines.append("#if !defined(STATICFLOW_FUZZ_THRUST)")
            lines.append(f"TEST_CASE(\"fuzz: gradient graph {self.seed}\", \"[fuzz][gradient]\") {{")
            specs = ", ".join("sf::spec<double" + "".join(", sf::dyn" if a is not None else ", 1" for a in x.shape) + ">" for x in self.inputs)
            lines.append(f"  fuzz::run_gradient<std::tuple<{specs}>, {args}>({ns}::info, {ns}::fn);")
            lines.append("}")
            lines.append("#endif")
        else:
            lines.append(f"TEST_CASE(\"fuzz: graph {self.seed}\", \"[fuzz]\") {{")
            lines.append("#if defined(STATICFLOW_FUZZ_THRUST)")
            lines.append(f"  fuzz::run_forward_thrust<{out}, {args}>({ns}::info, {ns}::fn, {ns}::reference, {ns}::call_static);")
            lines.append("#else")
            lines.append(f"  fuzz::run_forward<{out}, {args}>({ns}::info, {ns}::fn, {ns}::reference, {ns}::call_static);")
            lines.append("#endif")
            lines.append("}")
        return "\n".join(lines) + "\n"


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            seeds += list(range(int(lo), int(hi) + 1))
        elif part:
            seeds.append(int(part))
    return seeds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="", help="graph seeds: 1-48,100,7")
    ap.add_argument("--gradient-seeds", default="", help="gradient graph seeds")
    ap.add_argument("--cases", type=int, default=200, help="random inputs per forward graph")
    ap.add_argument("--gradient-cases", type=int, default=20, help="random inputs per gradient graph")
    ap.add_argument("--regressions", help="a file of seeds that once failed: lines `graph N` or `gradient N`")
    ap.add_argument("--parts", type=int, default=1, help="split the graphs over this many files ...")
    ap.add_argument("--part", type=int, default=0, help="... and write this one (0-based)")
    ap.add_argument("--kinds", choices=["all", "forward", "gradient"], default="all",
                    help="which graphs the regressions file adds (forward ones, gradient ones)")
    ap.add_argument("--out", help="the C++ file to write (standard output without it)")
    ap.add_argument("--print", action="store_true", help="list the graphs instead of writing C++")
    a = ap.parse_args()
    forward, gradient = parse_seeds(a.seeds), parse_seeds(a.gradient_seeds)
    if a.regressions:
        with open(a.regressions) as f:
            for line in f:
                words = line.split("#")[0].split()
                if len(words) == 2 and words[0] == "graph" and a.kinds != "gradient":
                    forward.append(int(words[1]))
                elif len(words) == 2 and words[0] == "gradient" and a.kinds != "forward":
                    gradient.append(int(words[1]))
    specs = [(s, False) for s in dict.fromkeys(forward)] + [(s, True) for s in dict.fromkeys(gradient)]
    graphs = [Graph(s, g).build() for i, (s, g) in enumerate(specs) if i % a.parts == a.part]
    if a.print:
        for g in graphs:
            print(f"{'gradient ' if g.gradient else ''}graph {g.seed}:")
            for x in g.inputs:
                print(f"  {x.name}: {CPP_TYPE[x.dtype]}[{','.join(AXES[d] if d is not None else '1' for d in x.shape)}]")
            for line in g.listing:
                print("  " + line)
            print(f"  result {g.output.name}")
        return
    text = ["// Generated by tests/fuzz/graph_fuzz.py; do not edit.",
            "#include \"graph_harness.hpp\"", "", "namespace sf = staticflow;", ""]
    text += [g.emit(a.gradient_cases if g.gradient else a.cases) for g in graphs]
    out = "\n".join(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
