// staticflow/graph/listing.hpp -- a traced graph written out: the equations of a listing, nested
// blocks for the graphs a node holds (loop conditions and bodies, branches), and the three texts
// made from them: a jaxpr-like listing (`graph_string`), a Graphviz picture (`to_dot`) and the
// C++-ish program the graph stands for (`to_code`, the analog of tf.autograph.to_code).
//
// graph/print.hpp builds a listing from a graph's types; this header knows nothing of node types.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace staticflow::graph::detail {

/// How the planner evaluates a node: recomputed inside its consumers' fused loop, computed once
/// into a buffer of its own, or a view of another node's buffer (one result of a loop or cond).
enum class evaluation { fused, materialized, view };

struct equation;

struct parameter {
  std::string name;
  std::string spec;
  std::string label;  // what a picture calls it: TF's arg0, arg1, ... or sf::arg_names' name
};

/// A graph written out: its parameters, its equations in evaluation order and its results. The
/// function itself is the root block; a node that holds graphs (while, cond) holds one block each.
struct block {
  std::string label;  // "cond", "body", "true_fn", "branch0", ...; empty for the function
  std::vector<parameter> params;
  std::vector<equation> eqns;
  std::vector<std::string> outputs;  // value names, or literals written `value:spec`
};

struct equation {
  std::string name;
  std::string op;
  std::vector<std::string> operands;  // value names, or literals written `value:spec`
  std::string spec;
  evaluation how = evaluation::fused;
  std::vector<block> subgraphs;
  std::string subgraph_key;  // the sub-graphs listed with canonical names: equal keys, equal programs
  std::string note;          // a line listed with the sub-graphs (a loop's: why it was not unrolled)
  std::string epilogue_of;   // the producer whose kernel computes it (plan/planned_listing.hpp)
  std::vector<std::string> read_in_place_by;  // the products that read it in place, never computed
};

/// SSA names: a, b, ..., z, aa, ab, ... (jaxpr uses the same letters, with a different carry).
inline std::string ssa_name(std::size_t id) {
  std::string s;
  for (++id; id > 0; id /= 26) {
    --id;
    s.insert(s.begin(), char('a' + id % 26));
  }
  return s;
}

inline bool is_literal_text(const std::string& operand) { return operand.find(':') != std::string::npos; }

/// Whether value `name` is read by equation e, its sub-graphs included.
inline bool reads(const equation& e, const std::string& name) {
  for (const auto& o : e.operands)
    if (o == name) return true;
  for (const auto& b : e.subgraphs) {
    for (const auto& o : b.outputs)
      if (o == name) return true;
    for (const auto& inner : b.eqns)
      if (reads(inner, name)) return true;
  }
  return false;
}

/// For each equation of b, the loops that compute it when it is fused: the materialized nodes
/// and the block outputs its value flows into through fused nodes only (a value two consumers
/// read is recomputed in each consumer's loop), or the epilogue of the producer that computes
/// it. Empty for materialized nodes and views.
inline std::vector<std::vector<std::string>> fused_loops(const block& b, const std::string& output_prefix) {
  std::vector<std::vector<std::string>> loops(b.eqns.size());
  const auto add = [](std::vector<std::string>& to, const std::string& loop) {
    for (const auto& l : to)
      if (l == loop) return;
    to.push_back(loop);
  };
  for (std::size_t i = b.eqns.size(); i-- > 0;) {
    const equation& e = b.eqns[i];
    if (e.how != evaluation::fused) continue;
    if (!e.epilogue_of.empty()) {
      loops[i].push_back("the epilogue of " + e.epilogue_of);
      continue;
    }
    for (std::size_t k = 0; k < b.outputs.size(); ++k)
      if (b.outputs[k] == e.name) add(loops[i], output_prefix + "output " + std::to_string(k));
    for (std::size_t j = i + 1; j < b.eqns.size(); ++j) {
      if (!reads(b.eqns[j], e.name)) continue;
      if (b.eqns[j].how == evaluation::fused) {
        for (const auto& l : loops[j]) add(loops[i], l);
      } else {
        add(loops[i], b.eqns[j].name);
      }
    }
  }
  return loops;
}

inline std::string joined(const std::vector<std::string>& parts, const char* separator);

/// How a materialized equation is evaluated: with an epilogue when b's equations name it; not
/// at all when the products that read it read it in place.
inline std::string materialized_text(const block& b, const equation& e) {
  if (!e.read_in_place_by.empty()) return "read in place by " + joined(e.read_in_place_by, ", ");
  for (const auto& other : b.eqns)
    if (other.epilogue_of == e.name) return "materialized with an epilogue";
  return "materialized";
}

inline std::string joined(const std::vector<std::string>& parts, const char* separator) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s.append(i ? separator : "").append(parts[i]);
  return s;
}

// ---- TF's op names ---------------------------------------------------------------------------

/// The name TensorFlow's graph gives op `op` (an equation's op, parameters in brackets kept) whose
/// result has spec `spec`: graph_string and to_dot name ops as TF does (AddV2, MatMul, Sum,
/// SelectV2, If, While). Nodes keep their C++ API names (`add`, `reduce_sum`, `cond`), which
/// to_code writes and error messages use; the ops named after TF already (Conv2D, TopKV2, ...)
/// and staticflow's own (materialize, get, loop_var, dim) pass unchanged.
inline std::string tf_op_text(const std::string& op, const std::string& spec) {
  const std::size_t bracket = op.find('[');
  const std::string base = op.substr(0, bracket);
  const std::string rest = bracket == std::string::npos ? std::string() : op.substr(bracket);
  if (base == "div") return (spec.rfind('f', 0) == 0 ? "RealDiv" : "Div") + rest;  // `/`: truncating on integers
  if (base == "dot_general") {
    const std::size_t open = spec.find('['), close = spec.find(']');
    std::size_t rank = 0;
    if (open != std::string::npos && close != std::string::npos && close > open + 1) {
      rank = 1;
      for (std::size_t i = open; i < close; ++i) rank += spec[i] == ',';
    }
    return (rank > 2 ? "BatchMatMulV2" : "MatMul") + rest;
  }
  static constexpr std::pair<const char*, const char*> table[] = {
      {"add", "AddV2"}, {"sub", "Sub"}, {"mul", "Mul"}, {"rem", "TruncateMod"}, {"floordiv", "FloorDiv"},
      {"floormod", "FloorMod"}, {"pow", "Pow"}, {"max", "Maximum"}, {"min", "Minimum"}, {"atan2", "Atan2"},
      {"lt", "Less"}, {"le", "LessEqual"}, {"gt", "Greater"}, {"ge", "GreaterEqual"}, {"eq", "Equal"},
      {"ne", "NotEqual"}, {"and", "LogicalAnd"}, {"or", "LogicalOr"}, {"xor", "LogicalXor"}, {"not", "LogicalNot"},
      {"bitwise_and", "BitwiseAnd"}, {"bitwise_or", "BitwiseOr"}, {"bitwise_xor", "BitwiseXor"}, {"invert", "Invert"},
      {"left_shift", "LeftShift"}, {"right_shift", "RightShift"}, {"neg", "Neg"}, {"abs", "Abs"},
      {"square", "Square"}, {"sqrt", "Sqrt"}, {"rsqrt", "Rsqrt"}, {"exp", "Exp"}, {"expm1", "Expm1"}, {"log", "Log"},
      {"log1p", "Log1p"}, {"tanh", "Tanh"}, {"sigmoid", "Sigmoid"}, {"relu", "Relu"}, {"softplus", "Softplus"},
      {"sign", "Sign"}, {"floor", "Floor"}, {"ceil", "Ceil"}, {"round", "Round"}, {"reciprocal", "Reciprocal"},
      {"is_nan", "IsNan"}, {"is_inf", "IsInf"}, {"is_finite", "IsFinite"}, {"sin", "Sin"}, {"cos", "Cos"},
      {"tan", "Tan"}, {"asin", "Asin"}, {"acos", "Acos"}, {"atan", "Atan"}, {"sinh", "Sinh"}, {"cosh", "Cosh"},
      {"asinh", "Asinh"}, {"acosh", "Acosh"}, {"atanh", "Atanh"}, {"erf", "Erf"}, {"erfc", "Erfc"},
      {"stop_gradient", "StopGradient"}, {"select", "SelectV2"}, {"convert", "Cast"}, {"reduce_sum", "Sum"},
      {"reduce_prod", "Prod"}, {"reduce_max", "Max"}, {"reduce_min", "Min"}, {"reduce_any", "Any"},
      {"reduce_all", "All"}, {"reduce_mean", "Mean"}, {"argmax", "ArgMax"}, {"argmin", "ArgMin"},
      {"softmax", "Softmax"}, {"log_softmax", "LogSoftmax"}, {"reshape", "Reshape"}, {"expand_dims", "ExpandDims"},
      {"squeeze", "Squeeze"}, {"one_hot", "OneHot"}, {"broadcast_in_dim", "BroadcastTo"},
      {"concatenate", "ConcatV2"}, {"transpose", "Transpose"}, {"slice", "Slice"}, {"size", "Size"},
      {"shape", "Shape"}, {"cond", "If"}, {"switch_case", "Case"}, {"while", "While"},
      {"tensor_array", "TensorArrayV3"}, {"tensor_array_write", "TensorArrayWriteV3"},
      {"string_length", "StringLength"}, {"as_string", "AsString"}, {"string_to_number", "StringToNumber"},
      {"regex_full_match", "RegexFullMatch"}, {"reduce_join", "ReduceJoin"}};
  for (const auto& [ours, tf] : table)
    if (base == ours) return tf + rest;
  return op;
}

// ---- graph_string: the jaxpr-like listing ----------------------------------------------------

// Appended piece by piece: GCC 12 at -O3 reported `" " + name` (a string inserted at its front)
// as an overlapping memcpy (-Wrestrict, a false positive).
inline void append_jaxpr(std::string& s, const block& b, std::size_t indent) {
  s += "{ lambda ;";
  for (const auto& p : b.params) s.append(" ").append(p.name).append(":").append(p.spec);
  s += b.params.empty() ? " . let\n" : ". let\n";  // jaxpr's spelling of no parameters
  for (const auto& e : b.eqns) {
    s.append(indent + 4, ' ').append(e.name).append(":").append(e.spec).append(" = ").append(tf_op_text(e.op, e.spec));
    if (!e.subgraphs.empty()) {
      s += "[\n";
      if (!e.note.empty()) s.append(indent + 6, ' ').append(e.note).append("\n");
      for (const auto& sub : e.subgraphs) {
        s.append(indent + 6, ' ').append(sub.label).append("=");
        append_jaxpr(s, sub, indent + 6);
        s += "\n";
      }
      s.append(indent + 4, ' ').append("]");
    }
    for (const auto& o : e.operands) s.append(" ").append(o);
    s += "\n";
  }
  s.append(indent + 2, ' ').append("in (").append(joined(b.outputs, ", ")).append(") }");
}

inline std::string jaxpr_text(const block& root, const std::string& function_name) {
  std::string s = function_name.empty() ? std::string() : function_name + " = ";
  append_jaxpr(s, root, 0);
  return s + "\n";
}

// ---- to_dot: the Graphviz picture --------------------------------------------------------------

struct dot_writer {
  std::string s;
  std::string deferred;  // edges drawn from inside a cluster
  std::size_t literals = 0;
  std::size_t depth = 0;  // clusters open

  std::string operand_node(const std::string& operand, std::size_t indent) {
    if (!is_literal_text(operand)) return operand;
    const std::string lit = "lit" + std::to_string(literals++);
    s.append(indent, ' ').append(lit).append(" [label=\"").append(operand).append("\", shape=plaintext, style=\"\"];\n");
    return lit;
  }

  /// An edge from an operand (a literal gets a node of its own first) to node `to`. Inside a
  /// cluster the edge waits until the outermost cluster closes: Graphviz draws a node in the
  /// cluster whose statements first mention it, and a branch that reads an outer value must not
  /// pull that value in.
  void edge(const std::string& from, const std::string& to, std::size_t indent, const char* attributes) {
    const std::string node = operand_node(from, indent);
    std::string& into = depth == 0 ? s : deferred;
    into.append(2, ' ').append(node).append(" -> ").append(to).append(attributes).append(";\n");
  }

  void write_block(const block& b, std::size_t indent, const std::string& output_prefix) {
    for (const auto& p : b.params)
      s.append(indent, ' ').append(p.name).append(" [label=\"").append(p.label).append("\\n").append(p.spec).append(
          "\", shape=ellipse, fillcolor=\"#74c0fc\"];\n");
    const auto loops = fused_loops(b, output_prefix);
    for (std::size_t i = 0; i < b.eqns.size(); ++i) {
      const equation& e = b.eqns[i];
      std::string how;
      const char* fill = "#a5d8ff";
      if (e.how == evaluation::materialized) how = materialized_text(b, e), fill = e.read_in_place_by.empty() ? "#ffc078" : "#e9ecef";
      else if (e.how == evaluation::view) how = "view", fill = "#e9ecef";
      else how = "fused into " + joined(loops[i], ", ");
      s.append(indent, ' ').append(e.name).append(" [label=\"").append(tf_op_text(e.op, e.spec)).append("\\n").append(e.spec).append("\\n")
          .append(how).append("\", fillcolor=\"").append(fill).append("\"];\n");
      for (const auto& o : e.operands) edge(o, e.name, indent, "");
      for (std::size_t k = 0; k < e.subgraphs.size(); ++k) {
        const block& sub = e.subgraphs[k];
        s.append(indent, ' ').append("subgraph cluster_").append(e.name).append("_").append(std::to_string(k)).append(" {\n");
        s.append(indent + 2, ' ').append("label=\"").append(tf_op_text(e.op, e.spec)).append(" ").append(sub.label).append("\";\n");
        s.append(indent + 2, ' ').append("style=dashed;\n");
        ++depth;
        write_block(sub, indent + 2, sub.label + " ");
        if (sub.params.empty() && sub.eqns.empty())  // Graphviz drops an empty cluster: say what it returns
          s.append(indent + 2, ' ').append(e.name).append("_").append(std::to_string(k)).append(" [label=\"returns ")
              .append(joined(sub.outputs, ", ")).append("\", shape=plaintext, style=\"\"];\n");
        for (const auto& o : sub.outputs) edge(o, e.name, indent + 2, " [style=dashed]");
        --depth;
        s.append(indent, ' ').append("}\n");
        if (depth == 0) s += std::exchange(deferred, std::string());
      }
    }
  }
};

inline std::string dot_text(const block& root, const std::string& function_name) {
  dot_writer w;
  w.s = "digraph staticflow {\n  rankdir=TB;\n";
  if (!function_name.empty()) w.s += "  label=\"" + function_name + "\";\n  labelloc=t;\n";
  w.s += "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e9ecef\", fontname=\"sans-serif\"];\n";
  w.write_block(root, 2, "");
  for (std::size_t i = 0; i < root.outputs.size(); ++i) {
    const std::string out = "out" + std::to_string(i);
    w.s += "  " + out + " [label=\"output " + std::to_string(i) + "\", shape=ellipse, fillcolor=\"#ffec99\"];\n";
    w.edge(root.outputs[i], out, 2, "");
  }
  return w.s + "}\n";
}

// ---- to_code: the C++-ish program --------------------------------------------------------------

/// A literal `value:spec` as C++ writes it: `2.0f`, `2.0`, `10`, `10LL`, `true`.
inline std::string cpp_literal(const std::string& operand) {
  const std::size_t colon = operand.find(':');
  const std::string value = operand.substr(0, colon), spec = operand.substr(colon + 1);
  const auto starts = [&](const char* p) { return spec.rfind(p, 0) == 0; };
  if (value == "True" || value == "False") return value == "True" ? "true" : "false";
  if (value == "inf" || value == "-inf" || value == "nan") {
    const std::string type = starts("float32") ? "float" : "double";
    if (value == "nan") return "std::numeric_limits<" + type + ">::quiet_NaN()";
    return std::string(value[0] == '-' ? "-" : "") + "std::numeric_limits<" + type + ">::infinity()";
  }
  if (starts("float32")) return value + "f";
  if (starts("int64")) return value + "LL";
  if (starts("uint")) return value + "U";
  return value;
}

/// The C++ type a listing's dtype name stands for.
inline std::string cpp_type(const std::string& dtype) {
  if (dtype == "float32") return "float";
  if (dtype == "float64") return "double";
  if (dtype == "bool") return "bool";
  return "std::" + dtype + "_t";  // int8 ... uint64
}

struct code_writer {
  std::string s;

  static std::string operand(const std::string& o) { return is_literal_text(o) ? cpp_literal(o) : o; }

  static const char* infix(const std::string& op) {
    static constexpr std::pair<const char*, const char*> table[] = {
        {"add", " + "}, {"sub", " - "}, {"mul", " * "}, {"div", " / "}, {"rem", " % "}, {"lt", " < "},
        {"le", " <= "}, {"gt", " > "}, {"ge", " >= "}, {"eq", " == "}, {"ne", " != "}, {"and", " & "},
        {"or", " | "}, {"xor", " ^ "}, {"bitwise_and", " & "}, {"bitwise_or", " | "}, {"bitwise_xor", " ^ "},
        {"left_shift", " << "}, {"right_shift", " >> "}};
    for (const auto& [name, text] : table)
      if (op == name) return text;
    return nullptr;
  }

  /// The lambda `[&](auto p...) { ...; return r; }` for block b, its body at `indent`.
  void write_lambda(const block& b, std::size_t indent) {
    s += "[&]";
    if (!b.params.empty()) {
      s += "(";
      for (std::size_t i = 0; i < b.params.size(); ++i) s.append(i ? ", " : "").append("auto ").append(b.params[i].name);
      s += ")";
    }
    s += " {\n";
    write_body(b, indent + 2, b.label + " ");
    s.append(indent, ' ').append("}");
  }

  void write_body(const block& b, std::size_t indent, const std::string& output_prefix) {
    const auto loops = fused_loops(b, output_prefix);
    for (std::size_t i = 0; i < b.eqns.size(); ++i) {
      const equation& e = b.eqns[i];
      s.append(indent, ' ').append("auto ").append(e.name).append(" = ");
      write_expression(e, indent);
      s.append(";  // ").append(e.spec).append(": ");
      if (e.how == evaluation::materialized) s += materialized_text(b, e);
      else if (e.how == evaluation::view) s += "a view";
      else s += "fused into " + joined(loops[i], ", ");
      s += "\n";
    }
    if (b.outputs.empty()) return;  // a function that exists for its effects
    s.append(indent, ' ').append("return ");
    std::vector<std::string> outs;
    for (const auto& o : b.outputs) outs.push_back(operand(o));
    if (outs.size() == 1) s += outs[0];
    else s += "std::tuple{" + joined(outs, ", ") + "}";
    s += ";\n";
  }

  void write_expression(const equation& e, std::size_t indent) {
    std::vector<std::string> args;
    for (const auto& o : e.operands) args.push_back(operand(o));
    const std::size_t bracket = e.op.find('[');
    const std::string base = e.op.substr(0, bracket);
    const std::string params = bracket == std::string::npos ? "" : e.op.substr(bracket + 1, e.op.size() - bracket - 2);
    if (const char* op = infix(e.op); op && args.size() == 2) {
      s += args[0] + op + args[1];
    } else if ((e.op == "neg" || e.op == "not" || e.op == "invert") && args.size() == 1) {
      s += (e.op == "neg" ? "-" : e.op == "not" ? "!" : "~") + args[0];
    } else if (base == "convert") {
      s += "sf::cast<" + cpp_type(params.substr(params.find('=') + 1)) + ">(" + args[0] + ")";
    } else if (base == "get") {
      s += "std::get<" + params + ">(" + args[0] + ")";
    } else if (e.op == "while") {
      const std::size_t inner = indent + 4;
      s += "sf::while_loop(\n";
      for (const auto& sub : e.subgraphs) {
        s.append(inner, ' ');
        write_lambda(sub, inner);
        s += ",\n";
      }
      s.append(inner, ' ').append(joined(args, ", ")).append(")");
    } else if (e.op == "cond" || e.op == "switch_case") {
      s += "sf::" + e.op + "(" + args[0];
      for (const auto& sub : e.subgraphs) {
        s += ",\n";
        s.append(indent + 4, ' ');
        write_lambda(sub, indent + 4);
      }
      s += ")";
    } else {
      // the C++ API's spelling of nodes named otherwise (jaxpr's names, and TF's for the ops added
      // with them)
      static constexpr std::pair<const char*, const char*> renamed[] = {
          {"select", "where"}, {"max", "maximum"}, {"min", "minimum"}, {"dot_general", "matmul"},
          {"Conv2D", "conv2d"}, {"Conv3D", "conv3d"}, {"DepthwiseConv2dNative", "depthwise_conv2d"},
          {"MaxPool", "max_pool2d"}, {"AvgPool", "avg_pool2d"}, {"TopKV2", "top_k"}, {"GatherV2", "gather"},
          {"Cumsum", "cumsum"}, {"Cumprod", "cumprod"}, {"ReverseV2", "reverse"}, {"Roll", "roll"},
          {"Tile", "tile"}, {"Repeat", "repeat"}, {"ArgSort", "argsort"}};
      std::string name = base;
      for (const auto& [from, to] : renamed)
        if (base == from) name = to;
      s += "sf::" + name + "(" + joined(args, ", ");
      if (!params.empty()) s += (args.empty() ? "/* " : " /* ") + params + " */";
      s += ")";
    }
  }
};

inline std::string code_text(const block& root, const std::string& function_name) {
  code_writer w;
  std::vector<std::string> params;
  for (const auto& p : root.params) params.push_back(p.spec + " " + p.name);
  w.s = "auto " + (function_name.empty() ? std::string("fn") : function_name) + "(" + joined(params, ", ") + ") {\n";
  w.write_body(root, 2, "");
  return w.s + "}\n";
}

}  // namespace staticflow::graph::detail
