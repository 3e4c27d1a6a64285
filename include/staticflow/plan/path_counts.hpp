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
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/graph/shared.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::plan::detail {

/// A node type as the path counter sees it: its children's entries, in order, repeats included,
/// and a hash of its structure, by which a constant evaluation finds it (a pointer has no value
/// or order there, only equality: found by a scan, the entries of a gradient's graph of 576 node
/// types took more than g++'s 33,554,432 constexpr operations).
struct type_entry {
  const type_entry* const* kids;
  std::size_t kid_count;
  std::size_t hash;
};

constexpr std::size_t mix_hash(std::size_t h, std::size_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

/// FNV-1a of the compiler's name for leaf type N.
template <class N>
constexpr std::size_t name_hash() {
  std::size_t h = 14695981039346656037ull;
  for (const char c : std::string_view(__PRETTY_FUNCTION__)) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

/// The hash of a node with children: its size and its children's hashes (one function for every
/// node type).
constexpr std::size_t combined_hash(std::size_t size, const type_entry* const* kids, std::size_t count) {
  std::size_t h = mix_hash(size, count);
  for (std::size_t i = 0; i < count; ++i) h = mix_hash(h, kids[i]->hash);
  return h;
}

/// The entry of node type N (one object per type, so its address names the type). A leaf hashes
/// its name (short: an argument, a literal); a node with children its children's hashes, so an add
/// and a mul of the same operands share one (the table compares addresses within a hash), and so
/// do shared nodes (no children here), whose names hold whole graphs. (Static members initialized
/// without lambdas: a lambda was a closure type and three functions per node type, each mangled
/// with the node's type.)
template <class N, bool Shared = graph::detail::is_shared<N>::value, class Kids = graph::detail::child_list_t<N>>
struct type_node;
template <class N, class Kids>
struct type_node<N, true, Kids> {
  static constexpr type_entry entry{nullptr, 0, mix_hash(sizeof(N), 1)};
};
template <class N, template <class...> class List>
struct type_node<N, false, List<>> {
  static constexpr type_entry entry{nullptr, 0, name_hash<N>()};
};
template <class N, template <class...> class List, class K0, class... K>
struct type_node<N, false, List<K0, K...>> {
  static constexpr const type_entry* kids[] = {&type_node<std::remove_cvref_t<K0>>::entry, &type_node<std::remove_cvref_t<K>>::entry...};
  static constexpr type_entry entry{kids, 1 + sizeof...(K), combined_hash(sizeof(N), kids, 1 + sizeof...(K))};
};

/// Entries and their indices, by hash: open addressing, at most half full.
class entry_index {
 public:
  static constexpr std::size_t npos = std::size_t(-1);

  constexpr std::size_t find(const type_entry* e) const {
    if (slots_.empty()) return npos;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = e->hash & mask;; i = (i + 1) & mask) {
      if (slots_[i].entry == nullptr) return npos;
      if (slots_[i].entry == e) return slots_[i].index;
    }
  }
  constexpr void insert(const type_entry* e, std::size_t index) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    place(e, index);
    ++count_;
  }

 private:
  struct slot {
    const type_entry* entry = nullptr;
    std::size_t index = 0;
  };
  constexpr void place(const type_entry* e, std::size_t index) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = e->hash & mask;
    while (slots_[i].entry != nullptr) i = (i + 1) & mask;
    slots_[i] = {e, index};
  }
  constexpr void grow() {
    std::vector<slot> old = std::move(slots_);
    slots_ = std::vector<slot>(old.empty() ? 64 : 2 * old.size());
    for (const slot& s : old)
      if (s.entry != nullptr) place(s.entry, s.index);
  }
  std::vector<slot> slots_;
  std::size_t count_ = 0;
};

/// The distinct entries reachable from the roots, each after its children (post-order).
constexpr std::vector<const type_entry*> children_first(const type_entry* const* roots, std::size_t root_count) {
  struct frame {
    const type_entry* node;
    std::size_t next_kid;
  };
  std::vector<const type_entry*> order;
  entry_index seen;
  std::size_t seen_count = 0;
  std::vector<frame> stack;
  for (std::size_t r = 0; r < root_count; ++r) {
    if (seen.find(roots[r]) != entry_index::npos) continue;
    seen.insert(roots[r], seen_count++);
    stack.push_back({roots[r], 0});
    while (!stack.empty()) {
      frame& top = stack.back();
      if (top.next_kid < top.node->kid_count) {
        const type_entry* kid = top.node->kids[top.next_kid++];
        if (seen.find(kid) == entry_index::npos) {
          seen.insert(kid, seen_count++);
          stack.push_back({kid, 0});
        }
      } else {
        order.push_back(top.node);
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
  entry_index index_of;
  for (std::size_t i = 0; i < Size; ++i) {
    counts[i].node = order[i];
    index_of.insert(order[i], i);
  }
  for (std::size_t r = 0; r < root_count; ++r) {
    auto& c = counts[index_of.find(roots[r])].paths;
    c = c + 1 < 2 ? c + 1 : 2;
  }
  for (std::size_t i = Size; i-- > 0;) {  // parents before children
    const type_entry* node = order[i];
    for (std::size_t k = 0; k < node->kid_count; ++k) {
      auto& c = counts[index_of.find(node->kids[k])].paths;
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

// The questions below are class templates whose answers are std::integral_constant bases, read as
// `::value`, not variable templates or lambdas: g++ gives every variable and every function it
// instantiates a mangled name, even one only a constant expression reads, and here the names hold
// whole graphs (a 200-node chain's gradient: g++ spends most of its time mangling). A
// std::integral_constant's `value` belongs to the base, which is one of a few.

/// The children of node type N, as a list type (graph::child_refs).
using graph::detail::child_list_t;

/// The number of paths from the outputs (a std::tuple of nodes) down to a node of type M, not
/// through shared nodes, counted up to 2.
template <class M, class Outputs>
struct counted_paths : std::integral_constant<std::size_t, find_paths(path_table<Outputs>::counts, &type_node<M>::entry)> {};

/// Whether the outputs reach a node with children along two paths or more (a value the program
/// reads twice; leaves, an argument read by every op of a chain, do not count).
template <class Outputs>
struct holds_inner_repeats : std::bool_constant<any_inner_node_repeated(path_table<Outputs>::counts)> {};

/// Whether node type N has children (a shared node has none here: it is planned once already).
template <class N, bool Shared = graph::detail::is_shared<N>::value>
struct inner_node : std::bool_constant<(std::tuple_size<child_list_t<N>>::value > 0)> {};
template <class N>
struct inner_node<N, true> : std::false_type {};

template <class Parent, class Kid>
struct reads_kid;
template <template <class...> class List, class... K, class Kid>
struct reads_kid<List<K...>, Kid> : std::bool_constant<(std::is_same<std::remove_cvref_t<K>, Kid>::value || ...)> {};

/// Whether subtree N reads a node with children twice within one node, or in one node and a child
/// of it (`v * v`, `where(c, v, v)`, `v * v + v`): the repeats a program writes by hand in a chain,
/// found per node type without a walk from the outputs. Repeats further apart (`a * b + a * c`,
/// `exp(v) + log(sqrt(v))`) are not found, and such chains still fuse as trees.
template <class N, bool Inner = inner_node<N>::value, class Kids = child_list_t<N>>
struct local_repeat : std::false_type {};
template <class Kid, class... K>
struct read_twice;
template <class N, template <class...> class List, class... K>
struct local_repeat<N, true, List<K...>>
    : std::bool_constant<(local_repeat<std::remove_cvref_t<K>>::value || ...) ||
                         (read_twice<std::remove_cvref_t<K>, std::remove_cvref_t<K>...>::value || ...)> {};

/// Whether sibling K (not Kid itself, and with children) reads Kid.
template <class Kid, class K, bool Asked = inner_node<K>::value && !std::is_same<Kid, K>::value>
struct sibling_reads : std::false_type {};
template <class Kid, class K>
struct sibling_reads<Kid, K, true> : reads_kid<child_list_t<K>, Kid> {};

/// Whether Kid (with children) is one of siblings K twice, or one of them and read by another.
template <class Kid, class... K>
struct read_twice
    : std::bool_constant<inner_node<Kid>::value && (((std::size_t{0} + ... + std::size_t{std::is_same<Kid, K>::value}) >= 2) ||
                                                    (sibling_reads<Kid, K>::value || ...))> {};

template <class Outputs>
struct local_repeats_in_outputs : std::false_type {};
template <class... O>
struct local_repeats_in_outputs<std::tuple<O...>>
    : std::bool_constant<(local_repeat<O>::value || ...) || (read_twice<O, O...>::value || ...)> {};

}  // namespace staticflow::plan::detail
