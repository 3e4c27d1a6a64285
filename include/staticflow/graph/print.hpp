// staticflow/graph/print.hpp -- a traced graph's types written out as a listing (graph/listing.hpp
// renders it as a jaxpr-like SSA listing, a Graphviz picture and C++-ish code), and TensorFlow's
// one-line description of a symbolic tensor.
#pragma once

#include <charconv>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/listing.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::graph {
namespace detail {

template <class T>
std::string format_scalar(T v) {
  if constexpr (std::is_same<T, bool>::value) {
    return v ? "True" : "False";
  } else if constexpr (string_dtype<T>) {
    return "b'" + v.str() + "'";  // as a jaxpr shows a bytes constant
  } else {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, end);
    if constexpr (floating_dtype<T>)
      if (s.find_first_of(".eni") == std::string::npos) s += ".0";
    return s;
  }
}

/// A scope tag: one address per loop, naming its bound variables in a listing.
template <class Scope>
inline constexpr char scope_tag = 0;

/// The graph as a block of equations (graph/listing.hpp); identical subexpressions are listed
/// once, and the graphs a node holds (a loop's condition and body, a cond's branches) are listed
/// as blocks under it. A sub-graph reads the values of the graphs around it by name, as a
/// closure does.
class listing {
 public:
  /// first_equation_id: the letters before it name the arguments. arg_names: the names
  /// sf::arg_names gave (the parameters' names; equations skip them); function_name: the name
  /// sf::function_name gave, or empty.
  explicit listing(std::size_t first_equation_id = 0, std::vector<std::string> arg_names = {},
                   std::string function_name = {})
      : function_name_(std::move(function_name)),
        arg_names_(std::move(arg_names)),
        // with every argument named, no letter stands for one: equations start at `a`
        counter_(arg_names_.size() >= first_equation_id ? 0 : first_equation_id) {}

  void add_parameter(std::size_t index, std::string spec) {
    std::string label = index < arg_names_.size() ? arg_names_[index] : "arg" + std::to_string(index);
    root_.params.push_back({parameter_name(index), std::move(spec), std::move(label)});
  }
  template <class N>
  void add_output(const N& n) {
    std::string name = emit(n);
    root_.outputs.push_back(std::move(name));
  }
  const block& root() const { return root_; }
  /// Marks the function's equation `name` as computed by the epilogue of equation `producer`
  /// (plan/planned_listing.hpp).
  void mark_epilogue(const std::string& name, const std::string& producer) {
    for (auto& e : root_.eqns)
      if (e.name == name) e.epilogue_of = producer;
  }
  /// Marks the function's equation `name` (a transpose) as read in place by product `reader`.
  void mark_read_in_place(const std::string& name, const std::string& reader) {
    for (auto& e : root_.eqns)
      if (e.name == name) {
        for (const auto& r : e.read_in_place_by)
          if (r == reader) return;
        e.read_in_place_by.push_back(reader);
      }
  }

  std::string jaxpr() const { return jaxpr_text(root_, function_name_); }
  std::string dot() const { return dot_text(root_, function_name_); }
  std::string code() const { return code_text(root_, function_name_); }

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
      return parameter_name(N::index);
    } else if constexpr (is_literal<N>::value) {
      return format_scalar(n.value) + ":" + short_spec_string(spec_of_node_t<N>{});
    } else if constexpr (requires { typename N::scope_type; }) {  // a loop's variable
      for (auto b = bindings_.rbegin(); b != bindings_.rend(); ++b)
        if (b->scope == &scope_tag<typename N::scope_type>) return b->names[N::index];
      return op_name(n);
    } else if constexpr (is_shared<N>::value) {
      // a planner's mark, not an op; the node it holds is listed once, however often it is copied
      for (const auto& s : shared_)
        if (s.box == n.held.identity() && visible(s.serial)) return s.name;
      std::string name = emit(n.value());
      shared_.push_back({n.held.identity(), current_serial(), name});
      return name;
    } else {
      constexpr bool holds_subgraphs = requires { n.for_each_subgraph(std::declval<subgraph_lister&>()); };
      equation e{{}, op_name(n), {}, spec_text<N>(), how<N>(), {}, {}, {}, {}, {}};
      apply_children([&](const auto&... kid) { (e.operands.push_back(emit(kid)), ...); }, children(n));
      if constexpr (holds_subgraphs) {
        listing canonical = *this;  // the sub-graphs under names no real value has: the key
        // (a key made inside a key gets names past its own, so they cannot meet the outer ones)
        canonical.counter_ = counter_ < canonical_names ? canonical_names : counter_ + (std::size_t{1} << 20);
        e.subgraph_key = canonical.subgraph_key(n);
      }
      if constexpr (requires { n.listing_note(); }) e.note = n.listing_note();
      if (const equation* old = find_visible(e)) return old->name;
      e.name = fresh_name();
      if constexpr (holds_subgraphs) {
        subgraph_lister lister{*this, e.subgraphs};
        n.for_each_subgraph(lister);
      }
      std::string name = e.name;
      current().eqns.push_back(std::move(e));
      return name;
    }
  }

 private:
  static constexpr std::size_t canonical_names = std::size_t{1} << 40;

  /// Lists each graph a node holds as a block: `lister(label, scope, specs, outputs)` with the
  /// type of the loop that binds the block's parameters (void: none) and their specs.
  struct subgraph_lister {
    listing& l;
    std::vector<block>& blocks;
    template <class Scope, class... S, class Outputs>
    void operator()(std::string label, std::type_identity<Scope>, std::type_identity<std::tuple<S...>>,
                    const Outputs& outputs) const {
      block b;
      b.label = std::move(label);
      const std::size_t serial = l.next_serial_++;
      if constexpr (!std::is_void<Scope>::value) {
        std::vector<std::string> names;
        ((names.push_back(l.fresh_name()), b.params.push_back({names.back(), short_spec_string(S{}), names.back()})), ...);
        l.bindings_.push_back({&scope_tag<Scope>, std::move(names)});
      }
      l.open_.push_back({&b, serial});
      staticflow::detail::apply([&](const auto&... o) { (b.outputs.push_back(l.emit(o)), ...); }, outputs);
      l.open_.pop_back();
      if constexpr (!std::is_void<Scope>::value) l.bindings_.pop_back();
      blocks.push_back(std::move(b));
    }
  };

  template <class N>
  static constexpr evaluation how() {
    if constexpr (requires { N::projected_output; }) return evaluation::view;
    else if constexpr (requires { N::materialized; }) return N::materialized ? evaluation::materialized : evaluation::fused;
    else return evaluation::fused;
  }

  template <class N>
  std::string subgraph_key(const N& n) {
    std::vector<block> blocks;
    subgraph_lister lister{*this, blocks};
    n.for_each_subgraph(lister);
    std::string key;
    for (const auto& b : blocks) {
      key += b.label + "=";
      append_jaxpr(key, b, 0);
    }
    return key;
  }

  std::string parameter_name(std::size_t index) const {
    return index < arg_names_.size() ? arg_names_[index] : ssa_name(index);
  }
  std::string fresh_name() {
    for (;;) {
      std::string s = ssa_name(counter_++);
      bool taken = false;
      for (const auto& a : arg_names_) taken = taken || a == s;
      if (!taken) return s;
    }
  }

  struct open_block {
    block* b;
    std::size_t serial;
  };
  block& current() { return open_.empty() ? root_ : *open_.back().b; }
  std::size_t current_serial() const { return open_.empty() ? 0 : open_.back().serial; }
  bool visible(std::size_t serial) const {
    if (serial == 0) return true;
    for (const auto& o : open_)
      if (o.serial == serial) return true;
    return false;
  }
  /// An equation equal to e in the block being listed or a block around it, or null.
  const equation* find_visible(const equation& e) const {
    const auto same = [&](const equation& old) {
      return old.op == e.op && old.operands == e.operands && old.spec == e.spec && old.subgraph_key == e.subgraph_key;
    };
    for (const auto& old : root_.eqns)
      if (same(old)) return &old;
    for (const auto& o : open_)
      for (const auto& old : o.b->eqns)
        if (same(old)) return &old;
    return nullptr;
  }

  struct binding {
    const void* scope;
    std::vector<std::string> names;
  };
  struct shared_entry {
    const void* box;
    std::size_t serial;  // the block it was listed in (0: the function)
    std::string name;
  };

  block root_;
  std::string function_name_;
  std::vector<std::string> arg_names_;
  std::size_t counter_;
  std::size_t next_serial_ = 1;
  std::vector<open_block> open_;  // the sub-graph blocks being listed, innermost last
  std::vector<binding> bindings_;
  std::vector<shared_entry> shared_;
};

/// The names sf::arg_names gave the parameters of the function this thread is tracing (null: none
/// given), set by the trace for its duration: `std::cout << x` in the body then prints x's name.
inline thread_local const std::vector<std::string>* tracing_arg_names = nullptr;

/// Sets tracing_arg_names for one trace, and puts back the enclosing trace's names after it.
class tracing_arg_names_scope {
 public:
  explicit tracing_arg_names_scope(const std::vector<std::string>& names) : enclosing_(tracing_arg_names) {
    tracing_arg_names = names.empty() ? nullptr : &names;
  }
  ~tracing_arg_names_scope() { tracing_arg_names = enclosing_; }
  tracing_arg_names_scope(const tracing_arg_names_scope&) = delete;
  tracing_arg_names_scope& operator=(const tracing_arg_names_scope&) = delete;

 private:
  const std::vector<std::string>* enclosing_;
};
}  // namespace detail

/// TensorFlow's description of a symbolic tensor, e.g. `Tensor("x:0", shape=(2,), dtype=int32)`,
/// which is what a std::cout in a traced body prints (once per trace). An argument is named as
/// sf::arg_names names it, else `arg0`, `arg1`, ...
template <class N>
  requires symbolic<N>
std::ostream& operator<<(std::ostream& os, const N& n) {
  std::string name;
  if constexpr (detail::is_argument<N>::value) {
    const auto* names = detail::tracing_arg_names;
    name = names && N::index < names->size() ? (*names)[N::index] : "arg" + std::to_string(N::index);
  }
  else if constexpr (detail::is_literal<N>::value) name = "Const";
  else name = op_name(n).substr(0, op_name(n).find('['));
  return os << "Tensor(\"" << name << ":0\", shape=" << staticflow::detail::shape_string(typename N::shape_type{})
            << ", dtype=" << dtype_name<typename N::value_type> << ")";
}

}  // namespace staticflow::graph
