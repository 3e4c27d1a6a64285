// staticflow/graph/print.hpp -- text forms of a traced graph: a jaxpr-like SSA listing, a Graphviz
// picture, and TensorFlow's one-line description of a symbolic tensor.
#pragma once

#include <charconv>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::graph {
namespace detail {

template <class T>
std::string format_scalar(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, end);
    if constexpr (floating_dtype<T>)
      if (s.find_first_of(".eni") == std::string::npos) s += ".0";
    return s;
  }
}

/// SSA names: a, b, ..., z, aa, ab, ... (jaxpr uses the same letters, with a different carry).
inline std::string ssa_name(std::size_t id) {
  std::string s;
  for (++id; id > 0; id /= 26) {
    --id;
    s.insert(s.begin(), char('a' + id % 26));
  }
  return s;
}

/// The graph as a list of equations; identical subexpressions are listed once.
class listing {
 public:
  struct equation {
    std::string op;
    std::vector<std::string> operands;  // value names or inline literals
    std::string spec;
    std::size_t id;
  };
  struct parameter {
    std::size_t index;
    std::string spec;
  };

  std::vector<parameter> params;
  std::vector<equation> eqns;
  std::vector<std::string> outputs;
  std::size_t first_equation_id = 0;  // equations are named after all the arguments
  std::vector<std::pair<const void*, std::string>> shared_names;  // a shared node's box, its operand text

  /// A node's spec; a node with several results (cond, while) lists theirs: `(int32[], float32[3])`.
  template <class N>
  static std::string spec_text() {
    if constexpr (requires { typename N::output_specs; }) {
      std::string s = "(";
      [&]<class... S>(std::type_identity<std::tuple<S...>>) {
        std::size_t i = 0;
        ((s += (i++ ? ", " : "") + short_spec_string(S{})), ...);
      }(std::type_identity<typename N::output_specs>{});
      return s + ")";
    } else {
      return short_spec_string(spec_of_node_t<N>{});
    }
  }

  /// The operand text of node n: a value name, or the literal itself.
  template <class N>
  std::string emit(const N& n) {
    if constexpr (is_argument<N>::value) {
      return ssa_name(N::index);
    } else if constexpr (is_literal<N>::value) {
      return format_scalar(n.value) + ":" + short_spec_string(spec_of_node_t<N>{});
    } else if constexpr (is_shared<N>::value) {
      // a planner's mark, not an op; the node it holds is listed once, however often it is copied
      for (const auto& [box, name] : shared_names)
        if (box == n.held.identity()) return name;
      std::string name = emit(n.value());
      shared_names.emplace_back(n.held.identity(), name);
      return name;
    } else {
      equation e{op_name(n), {}, spec_text<N>(), 0};
      apply_children([&](const auto&... kid) { (e.operands.push_back(emit(kid)), ...); }, children(n));
      for (const auto& old : eqns)
        if (old.op == e.op && old.operands == e.operands && old.spec == e.spec) return ssa_name(old.id);
      e.id = first_equation_id + eqns.size();
      eqns.push_back(e);
      return ssa_name(e.id);
    }
  }

  // Appended piece by piece: GCC 12 at -O3 reported `" " + name` (a string inserted at its
  // front) as an overlapping memcpy (-Wrestrict, a false positive).
  std::string jaxpr() const {
    std::string s = "{ lambda ;";
    for (const auto& p : params) s.append(" ").append(ssa_name(p.index)).append(":").append(p.spec);
    s += ". let\n";
    for (const auto& e : eqns) {
      s.append("    ").append(ssa_name(e.id)).append(":").append(e.spec).append(" = ").append(e.op);
      for (const auto& o : e.operands) s.append(" ").append(o);
      s += "\n";
    }
    s += "  in (";
    for (std::size_t i = 0; i < outputs.size(); ++i) s.append(i ? ", " : "").append(outputs[i]);
    return s + ") }\n";
  }

  std::string dot() const {
    std::string s =
        "digraph staticflow {\n"
        "  rankdir=TB;\n"
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e9ecef\", fontname=\"sans-serif\"];\n";
    for (const auto& p : params)
      s += "  " + ssa_name(p.index) + " [label=\"arg" + std::to_string(p.index) + "\\n" + p.spec +
           "\", shape=ellipse, fillcolor=\"#74c0fc\"];\n";
    std::size_t literal_count = 0;
    for (const auto& e : eqns) {
      s += "  " + ssa_name(e.id) + " [label=\"" + e.op + "\\n" + e.spec + "\", fillcolor=\"#a5d8ff\"];\n";
      for (const auto& o : e.operands) {
        if (o.find(':') != std::string::npos) {  // an inline literal gets a node of its own
          const std::string lit = "lit" + std::to_string(literal_count++);
          s += "  " + lit + " [label=\"" + o + "\", shape=plaintext, style=\"\"];\n";
          s += "  " + lit + " -> " + ssa_name(e.id) + ";\n";
        } else {
          s += "  " + o + " -> " + ssa_name(e.id) + ";\n";
        }
      }
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      s += "  out" + std::to_string(i) + " [label=\"output " + std::to_string(i) +
           "\", shape=ellipse, fillcolor=\"#ffec99\"];\n";
      s += "  " + outputs[i] + " -> out" + std::to_string(i) + ";\n";
    }
    return s + "}\n";
  }
};
}  // namespace detail

/// TensorFlow's description of a symbolic tensor, e.g. `Tensor("arg0:0", shape=(2,), dtype=int32)`,
/// which is what a std::cout in a traced body prints (once per trace).
template <class N>
  requires symbolic<N>
std::ostream& operator<<(std::ostream& os, const N& n) {
  std::string name;
  if constexpr (detail::is_argument<N>::value) name = "arg" + std::to_string(N::index);
  else if constexpr (detail::is_literal<N>::value) name = "Const";
  else name = op_name(n).substr(0, op_name(n).find('['));
  return os << "Tensor(\"" << name << ":0\", shape=" << staticflow::detail::shape_string(typename N::shape_type{})
            << ", dtype=" << dtype_name<typename N::value_type> << ")";
}

}  // namespace staticflow::graph
