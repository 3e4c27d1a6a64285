// staticflow/backend/eager/evaluate.hpp -- op-by-op evaluation of a traced graph: every node is
// computed into a temporary of its own by the same CPU kernel, run on a one-op graph. This is the
// reference that fused evaluation is measured against, and the way to debug a graph node by node.
#pragma once

#include <cstddef>
#include <memory>
#include <tuple>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/kernel.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::eager {
namespace detail {

/// A node's value: a view of its data and, for computed nodes, the buffer that holds it.
template <class T, std::size_t R>
struct value {
  std::shared_ptr<T[]> storage;
  tensor_view<T, R> view;
  T* writable = nullptr;  // where the op producing this value writes it
};

template <class T, std::size_t R>
auto all_dyn_shape(value<T, R>) {
  return []<std::size_t... D>(std::index_sequence<D...>) { return shape<((void)D, dyn)...>{}; }(
      std::make_index_sequence<R>{});
}

// A child of the one-op graph: a computed value becomes argument K, a literal stays a literal.
template <std::size_t K, class T, std::size_t R>
auto as_operand(const value<T, R>& v) {
  return graph::argument<K, T, decltype(all_dyn_shape(v))>{};
}
template <std::size_t K, class T>
auto as_operand(const graph::literal<T>& l) { return l; }

template <class T, std::size_t R>
tensor_view<T, R> as_view(const value<T, R>& v) { return v.view; }
template <class T>
no_view as_view(const graph::literal<T>&) { return {}; }

template <class T, std::size_t R>
spec_of_t<T, decltype(all_dyn_shape(value<T, R>{}))> as_entry(const value<T, R>&);
template <class T>
no_view as_entry(const graph::literal<T>&);


template <class N, class Views>
auto evaluate_node(const N& n, const Views& views);

/// One op run by the CPU kernel, out of line: the one-op graphs repeat (an add of two float
/// vectors is one type wherever it sits in the graph), so each kernel is compiled once rather
/// than inlined into the evaluation of every node (cpu::evaluate_into is always_inline).
template <class Sig, class Op, class Views, class T, std::size_t R>
[[gnu::noinline]] void run_one_op(const Op& op, const Views& views, const extents<R>& ext, T* out) {
  cpu::evaluate_into<Sig>(op, views, ext, out);
}

/// Runs node n alone, over its children's values, into out. `make_out(ext)` returns the buffer
/// to write (a new temporary, or the caller's output for the root).
template <class N, class Kids, class MakeOut>
auto run_op(const N& n, const Kids& kids, MakeOut&& make_out) {
  return staticflow::detail::apply(
      [&](const auto&... kid) {
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
          auto op = graph::with_children(n, as_operand<K>(kid)...);
          const auto op_views = std::tuple{as_view(kid)...};
          using op_sig = std::tuple<decltype(as_entry(kid))...>;
          const auto ext = graph::node_extents(op, std::tuple{staticflow::detail::view_extents(as_view(kid))...});
          auto out = make_out(ext);
          run_one_op<op_sig>(op, op_views, ext, out.writable);
          return out;
        }(std::index_sequence_for<decltype(kid)...>{});
      },
      kids);
}

template <class N, class Views>
auto evaluate_children(const N& n, const Views& views) {
  return graph::apply_children([&](const auto&... kid) { return std::tuple{evaluate_node(kid, views)...}; },
                              graph::children(n));
}

template <class N, class Views>
auto evaluate_node(const N& n, const Views& views) {
  using T = typename N::value_type;
  constexpr std::size_t R = N::shape_type::rank;
  if constexpr (graph::detail::is_argument<N>::value) {
    const auto& v = staticflow::detail::get<N::index>(views);
    return value<T, R>{nullptr, {v.data, v.ext}};
  } else if constexpr (graph::detail::is_literal<N>::value) {
    return n;
  } else {
    return run_op(n, evaluate_children(n, views), [](const extents<R>& ext) {
      value<T, R> out{std::shared_ptr<T[]>(new T[staticflow::detail::product(ext)]), {}};
      out.view = {out.storage.get(), ext};
      out.writable = out.storage.get();
      return out;
    });
  }
}
}  // namespace detail

/// Evaluates graph n op by op into out (extents ext), reading arguments from views: a temporary
/// per node, the root written straight into out. `Sig` as for cpu::evaluate_into.
template <class Sig, class N, class Views, class T, std::size_t R>
void evaluate_into(const N& n, const Views& views, const extents<R>& ext, T* out) {
  if constexpr (graph::detail::is_argument<N>::value || graph::detail::is_literal<N>::value) {
    cpu::evaluate_into<Sig>(n, views, ext, out);  // nothing to compute: a copy or a fill
  } else {
    detail::run_op(n, detail::evaluate_children(n, views), [&](const extents<R>&) {
      return detail::value<T, R>{nullptr, {out, ext}, out};
    });
  }
}

}  // namespace staticflow::eager
