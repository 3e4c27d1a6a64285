// staticflow/plan/path_counts.hpp -- how many paths lead from a graph's outputs to each node type
// (counted up to 2), computed once per graph in a constant expression.
//
// plan/repeats.hpp asks, for nodes it may make one node, whether the outputs reach them along two
// paths or more. Asked per node by walking the types from the outputs down (a variable per pair
// of types), a chain of N nodes cost N^2 instantiations once every node past the fusion budget
// asked (a 200-node chain: 4 GB more of g++). Here each node type is one constexpr entry that
// points at its children's entries (a shared node has none: it is planned once already), and one
// constant evaluation per graph walks the distinct entries once, parents before children, adding
// each parent's count to its children's. A node type then finds its count by its entry's address.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/graph/shared.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::plan::detail {

/// A node type as the path counter sees it: its children's entries, in order, repeats included.
struct type_entry {
  const type_entry* const* kids;
  std::size_t kid_count;
};

/// The entry of node type N (one object per type, so its address names the type).
template <class N>
struct type_node {
  static constexpr auto kids = [] {
    if constexpr (graph::detail::is_shared<N>::value) {
      return std::array<const type_entry*, 0>{};
    } else {
      using list = decltype(graph::children(std::declval<const N&>()));
      return []<std::size_t... K>(std::index_sequence<K...>) {
        return std::array<const type_entry*, sizeof...(K)>{&type_node<std::remove_cvref_t<std::tuple_element_t<K, list>>>::entry...};
      }(std::make_index_sequence<std::tuple_size_v<list>>{});
    }
  }();
  static constexpr type_entry entry{kids.data(), kids.size()};
};

constexpr bool holds(const std::vector<const type_entry*>& entries, const type_entry* e) {
  for (const type_entry* x : entries)
    if (x == e) return true;
  return false;
}

/// The distinct entries reachable from the roots, each after its children (post-order).
constexpr std::vector<const type_entry*> children_first(const type_entry* const* roots, std::size_t root_count) {
  struct frame {
    const type_entry* node;
    std::size_t next_kid;
  };
  std::vector<const type_entry*> order, seen;
  std::vector<frame> stack;
  for (std::size_t r = 0; r < root_count; ++r) {
    if (holds(seen, roots[r])) continue;
    seen.push_back(roots[r]);
    stack.push_back({roots[r], 0});
    while (!stack.empty()) {
      const type_entry* node = stack.back().node;
      if (stack.back().next_kid < node->kid_count) {
        const type_entry* kid = node->kids[stack.back().next_kid++];
        if (!holds(seen, kid)) {
          seen.push_back(kid);
          stack.push_back({kid, 0});
        }
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  return order;
}

struct path_count {
  const type_entry* node = nullptr;
  std::size_t paths = 0;
};

/// Each distinct entry below the roots with its number of paths from them, counted up to 2.
template <std::size_t Size>
constexpr std::array<path_count, Size> count_paths(const type_entry* const* roots, std::size_t root_count) {
  const std::vector<const type_entry*> order = children_first(roots, root_count);
  std::array<path_count, Size> counts{};
  const auto index_of = [&](const type_entry* e) {
    std::size_t i = 0;
    while (order[i] != e) ++i;
    return i;
  };
  for (std::size_t i = 0; i < Size; ++i) counts[i].node = order[i];
  for (std::size_t r = 0; r < root_count; ++r) {
    auto& c = counts[index_of(roots[r])].paths;
    c = c + 1 < 2 ? c + 1 : 2;
  }
  for (std::size_t i = Size; i-- > 0;) {  // parents before children
    const type_entry* node = order[i];
    for (std::size_t k = 0; k < node->kid_count; ++k) {
      auto& c = counts[index_of(node->kids[k])].paths;
      c = c + counts[i].paths < 2 ? c + counts[i].paths : 2;
    }
  }
  return counts;
}

template <class Outputs>
struct path_table;
template <class... O>
struct path_table<std::tuple<O...>> {
  static constexpr std::array<const type_entry*, sizeof...(O)> roots{&type_node<O>::entry...};
  static constexpr std::size_t size = children_first(roots.data(), roots.size()).size();
  static constexpr std::array<path_count, size> counts = count_paths<size>(roots.data(), roots.size());
};

template <std::size_t Size>
constexpr bool any_inner_node_repeated(const std::array<path_count, Size>& counts) {
  for (const path_count& c : counts)
    if (c.node->kid_count > 0 && c.paths >= 2) return true;
  return false;
}

template <std::size_t Size>
constexpr std::size_t find_paths(const std::array<path_count, Size>& counts, const type_entry* e) {
  for (const path_count& c : counts)
    if (c.node == e) return c.paths;
  return 0;
}

/// The number of paths from the outputs (a std::tuple of nodes) down to a node of type M, not
/// through shared nodes, counted up to 2.
template <class M, class Outputs>
inline constexpr std::size_t counted_paths_v = find_paths(path_table<Outputs>::counts, &type_node<M>::entry);

/// Whether the outputs reach a node with children along two paths or more (a value the program
/// reads twice; leaves, an argument read by every op of a chain, do not count).
template <class Outputs>
inline constexpr bool holds_inner_repeats_v = any_inner_node_repeated(path_table<Outputs>::counts);

/// Whether node type N has children (a shared node has none here: it is planned once already).
template <class N>
inline constexpr bool inner_node_v = type_node<N>::kids.size() > 0;

template <class Parent, class Kid>
struct reads_kid;
template <template <class...> class List, class... K, class Kid>
struct reads_kid<List<K...>, Kid> : std::bool_constant<(std::is_same_v<std::remove_cvref_t<K>, Kid> || ...)> {};

template <class Kids>
struct local_repeat_in;

/// Whether subtree N reads a node with children twice within one node, or in one node and a child
/// of it (`v * v`, `where(c, v, v)`, `v * v + v`): the repeats a program writes by hand in a chain,
/// found per node type without a walk from the outputs. Repeats further apart (`a * b + a * c`,
/// `exp(v) + log(sqrt(v))`) are not found, and such chains still fuse as trees.
template <class N>
inline constexpr bool local_repeat_v = [] {
  if constexpr (!inner_node_v<N>) return false;
  else return local_repeat_in<decltype(graph::children(std::declval<const N&>()))>::value;
}();

template <class Kid, class... K>
inline constexpr bool read_twice_v = inner_node_v<Kid> && ((std::size_t{0} + ... + std::size_t{std::is_same_v<Kid, K>}) >= 2 ||
    ([] {
      if constexpr (!inner_node_v<K> || std::is_same_v<Kid, K>) return false;
      else return reads_kid<decltype(graph::children(std::declval<const K&>())), Kid>::value;
    }() || ...));

template <template <class...> class List, class... K>
struct local_repeat_in<List<K...>> {
  static constexpr bool value = (local_repeat_v<std::remove_cvref_t<K>> || ...) ||
                                (read_twice_v<std::remove_cvref_t<K>, std::remove_cvref_t<K>...> || ...);
};

template <class Outputs>
inline constexpr bool local_repeats_in_outputs_v = false;
template <class... O>
inline constexpr bool local_repeats_in_outputs_v<std::tuple<O...>> = (local_repeat_v<O> || ...) || (read_twice_v<O, O...> || ...);

}  // namespace staticflow::plan::detail
