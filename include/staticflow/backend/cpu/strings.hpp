// staticflow/backend/cpu/strings.hpp -- sf::strings::reduce_join (graph/strings.hpp) on the CPU.
// The other string ops are elementwise: the fused scalar loop runs them (backend/cpu/kernel.hpp).
// Two passes over the input in row-major order: the first adds up each group's length, the
// second copies each string into its group's place in the calling thread's string pool
// (core/string.hpp), so every byte is copied once.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <vector>

#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/core/string.hpp"
#include "staticflow/graph/strings.hpp"

namespace staticflow::cpu {

template <class Sig, class A, class Axes, bool Keep, class Views, std::size_t R>
void materialize(const graph::string_reduce_join<A, Axes, Keep>& n, const Views& views, const extents<R>& out_ext,
                 string* out) {
  constexpr std::size_t rank = A::shape_type::rank;
  const auto in_ext = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const std::size_t in_size = staticflow::detail::product(in_ext);
  const std::size_t out_size = staticflow::detail::product(out_ext);
  const std::string_view separator = *n.separator;
  std::fill_n(out, out_size, string{});
  if (in_size == 0) return;
  const string* x = detail::contiguous_operand<string, Sig>(n.a, views, in_ext);
  // the output element of each input element: the kept axes' index, row-major
  const auto mask = n.mask();
  std::array<std::size_t, rank> out_stride{};
  for (std::size_t d = rank, stride = 1; d-- > 0;) {
    if (mask[d]) continue;
    out_stride[d] = stride;
    stride *= in_ext[d];
  }
  auto for_each_input = [&](auto&& visit) {
    std::array<std::size_t, rank> index{};
    for (std::size_t i = 0; i < in_size; ++i) {
      std::size_t o = 0;
      for (std::size_t d = 0; d < rank; ++d) o += index[d] * out_stride[d];
      visit(x[i], o);
      for (std::size_t d = rank; d-- > 0;) {  // next input index: odometer
        if (++index[d] < in_ext[d]) break;
        index[d] = 0;
      }
    }
  };
  std::vector<std::size_t> joined(out_size, 0), written(out_size, 0);  // strings, bytes so far
  for_each_input([&](string s, std::size_t o) { out[o].length += s.size() + (joined[o]++ ? separator.size() : 0); });
  auto& pool = staticflow::detail::string_pool::local();
  for (std::size_t o = 0; o < out_size; ++o) {
    out[o].bytes = out[o].length ? pool.allocate(out[o].length) : "";
    joined[o] = 0;
  }
  for_each_input([&](string s, std::size_t o) {
    char* at = const_cast<char*>(out[o].bytes) + written[o];
    if (joined[o]++ && !separator.empty()) std::memcpy(at, separator.data(), separator.size()), at += separator.size();
    if (!s.empty()) std::memcpy(at, s.data(), s.size());
    written[o] = static_cast<std::size_t>(at + s.size() - out[o].bytes);
  });
}

}  // namespace staticflow::cpu
