// staticflow/backend/cpu/strings.hpp -- sf::strings::reduce_join (graph/strings.hpp) on the CPU.
// The other string ops are elementwise: the fused scalar loop runs them (backend/cpu/kernel.hpp).
// One pass over the input in row-major order appends each string to its group's text; the joined
// strings then go to the calling thread's string pool (core/string.hpp), on the calling thread.
#pragma once

#include <array>
#include <cstddef>
#include <string>
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
  const auto mask = n.mask();
  // the output element of each input element: the kept axes' index, row-major
  std::array<std::size_t, rank> out_stride{};
  for (std::size_t d = rank, stride = 1; d-- > 0;) {
    if (mask[d]) continue;
    out_stride[d] = stride;
    stride *= in_ext[d];
  }
  std::vector<std::string> joined(out_size);
  std::vector<bool> started(out_size, false);
  if (in_size > 0) {
    const string* x = detail::contiguous_operand<string, Sig>(n.a, views, in_ext);
    std::array<std::size_t, rank> index{};
    for (std::size_t i = 0; i < in_size; ++i) {
      std::size_t o = 0;
      for (std::size_t d = 0; d < rank; ++d) o += index[d] * out_stride[d];
      if (started[o]) joined[o] += *n.separator;
      started[o] = true;
      joined[o] += x[i].view();
      for (std::size_t d = rank; d-- > 0;) {  // next input index: odometer
        if (++index[d] < in_ext[d]) break;
        index[d] = 0;
      }
    }
  }
  for (std::size_t o = 0; o < out_size; ++o) out[o] = staticflow::detail::pooled_string(std::string_view(joined[o]));
}

}  // namespace staticflow::cpu
