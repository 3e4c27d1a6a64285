// staticflow/backend/thrust/unique.hpp -- unique_codes (graph/unique.hpp) on the device, by a
// stable sort instead of the CPU's hash table (the same codes):
//
//   1. (value, position) pairs sorted stably by value (NaN last): equal values side by side, the
//      first appearance first in each run; a run starts where a value differs from the one
//      before it (== : -0.0 joins 0.0, a NaN starts a run of its own)
//   2. each sorted slot's run start, by an inclusive max-scan of the starts, hence its value's
//      first position; the first-appearance flags scattered back to the element order
//   3. an exclusive scan of those flags numbers the distinct values in order of first appearance
//   4. code[position] = 2 * number of its run's first position + flag
#pragma once

#include <cstddef>
#include <cstdint>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/shape_ops.hpp"
#include "staticflow/backend/thrust/operand.hpp"
#include "staticflow/backend/thrust/sorting.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/graph/unique.hpp"

namespace staticflow::thrust_backend {
namespace detail {
template <class T>
struct unique_run_start {  // the slot where s's run of equal values starts, if s starts one (else 0)
  const T* sorted;
  std::int64_t* start;
  STATICFLOW_HD void operator()(std::size_t s) const {
    start[s] = s == 0 || !(sorted[s] == sorted[s - 1]) ? std::int64_t(s) : std::int64_t{0};
  }
};
struct unique_first_flags {  // after the max-scan: each slot's first position, and the flags
  const std::int64_t* position;
  std::int64_t* run_start;  // in: the scanned starts; out: the run's first position
  std::int64_t* flag;       // by element position
  STATICFLOW_HD void operator()(std::size_t s) const {
    const std::int64_t first = position[run_start[s]];
    run_start[s] = first;
    flag[position[s]] = position[s] == first ? 1 : 0;
  }
};
struct unique_code_of {
  const std::int64_t* position;
  const std::int64_t* first;   // per sorted slot
  const std::int64_t* flag;    // by element position
  const std::int64_t* number;  // by element position: the flags' exclusive scan
  std::int64_t* code;
  STATICFLOW_HD void operator()(std::size_t s) const {
    code[position[s]] = 2 * number[first[s]] + flag[position[s]];
  }
};
}  // namespace detail

template <class X, class Views, std::size_t R>
void materialize(const graph::unique_codes<X>& n, const Views& views, const extents<R>& out_ext, std::int64_t* out) {
  using T = typename X::value_type;
  const std::size_t size = out_ext[0];
  if (size == 0) return;
  const device_arena::scope scratch;
  auto& arena = device_arena::local();
  auto* sorted = static_cast<T*>(arena.allocate(sizeof(T) * size));
  auto* position = static_cast<std::int64_t*>(arena.allocate(sizeof(std::int64_t) * size));
  auto* start = static_cast<std::int64_t*>(arena.allocate(sizeof(std::int64_t) * size));
  auto* flag = static_cast<std::int64_t*>(arena.allocate(sizeof(std::int64_t) * size));
  auto* number = static_cast<std::int64_t*>(arena.allocate(sizeof(std::int64_t) * size));
  const auto dev = [](auto* p) { return ::thrust::device_pointer_cast(p); };
  const T* x = detail::contiguous_operand<T>(n.x, views, out_ext);
  ::thrust::copy(async_policy(), dev(x), dev(x) + size, dev(sorted));
  ::thrust::sequence(async_policy(), dev(position), dev(position) + size);
  ::thrust::stable_sort_by_key(async_policy(), dev(sorted), dev(sorted) + size, dev(position),
                               detail::value_order<sort_direction::ascending>{});
  detail::gather(size, detail::unique_run_start<T>{sorted, start});
  ::thrust::inclusive_scan(async_policy(), dev(start), dev(start) + size, dev(start), ::thrust::maximum<std::int64_t>{});
  detail::gather(size, detail::unique_first_flags{position, start, flag});
  ::thrust::exclusive_scan(async_policy(), dev(flag), dev(flag) + size, dev(number));
  detail::gather(size, detail::unique_code_of{position, start, flag, number, out});
}

}  // namespace staticflow::thrust_backend
