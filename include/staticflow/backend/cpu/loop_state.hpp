// staticflow/backend/cpu/loop_state.hpp -- where a while loop on the CPU keeps its variables
// (backend/cpu/control.hpp): one buffer per variable, in place for a small static shape, else a
// block of this thread's cache grown as the extents change; the current and next state kept
// apart so that the body's stores do not alias its loads; the staging of an in-place
// tensor-array write.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/backend/cpu/block_cache.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/interop/xtensor.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu::detail {

/// One loop variable's buffer: in place for a small static shape, else on the heap, reused
/// across iterations and grown (never shrunk) as the variable's extents change.
template <class T, class S, bool Static = S::is_static && S::size * sizeof(T) <= STATICFLOW_MAX_STATIC_BYTES>
struct loop_buffer {
  static constexpr std::size_t rank = S::rank;
  static constexpr extents<rank> ext = S::dims;
  alignas(64) std::array<T, S::size> storage;  // not zeroed: the initial values and the body write all of it
  T* current = storage.data();  // a swap exchanges these pointers, not the contents

  loop_buffer() = default;
  loop_buffer(const loop_buffer&) = delete;
  loop_buffer& operator=(const loop_buffer&) = delete;

  T* resize(const extents<rank>&) { return current; }
  T* data() { return current; }
  tensor_view<T, rank> view() const { return {current, S::dims}; }
  void swap(loop_buffer& o) { std::swap(current, o.current); }
};

template <class T, class S>
struct loop_buffer<T, S, false> {
  static constexpr std::size_t rank = S::rank;
  cached_array<T> storage;  // from this thread's block cache (backend/cpu/block_cache.hpp)
  T* start = nullptr;     // storage + skew
  std::size_t skew = 0;   // elements before start (see state_buffers)
  std::size_t capacity = 0;
  extents<rank> ext{};

  T* resize(const extents<rank>& e) {
    const std::size_t n = staticflow::detail::product(e);
    if (n > capacity) {
      storage = cached_array<T>(n + skew);
      start = storage.get() + skew;
      capacity = n;
    }
    ext = e;
    return start;
  }
  T* data() { return start; }
  tensor_view<T, rank> view() const { return {start, ext}; }
  void swap(loop_buffer& o) {
    storage.swap(o.storage);
    std::swap(start, o.start);
    std::swap(skew, o.skew);
    std::swap(capacity, o.capacity);
    std::swap(ext, o.ext);
  }
  /// Grows the leading extent to `rows`, keeping the data and zero-filling the new rows.
  void grow_leading(std::size_t rows) {
    extents<rank> e = ext;
    e[0] = rows;
    const std::size_t old = staticflow::detail::product(ext), n = staticflow::detail::product(e);
    if (n > capacity) {
      const std::size_t cap = std::max(n, 2 * capacity);
      cached_array<T> p(cap + skew);
      std::copy_n(start, old, p.get() + skew);
      storage = std::move(p);
      start = storage.get() + skew;
      capacity = cap;
    }
    std::fill(start + old, start + n, T{});
    ext = e;
  }
};

template <class Spec>
using loop_buffer_for = loop_buffer<typename Spec::value_type, typename Spec::shape_type>;
template <class Specs>
struct loop_buffers;
template <class... Spec>
struct loop_buffers<std::tuple<Spec...>> {
  using type = std::tuple<loop_buffer_for<Spec>...>;
};

/// A loop's current and next state. The body reads `cur` while it writes `next`; when the two
/// buffers of a variable sit a multiple of 4 KiB apart, every store looks to the CPU like it may
/// feed a load of the other buffer (4K aliasing) and the loop runs at half speed (measured on a
/// 1024-float update). So the two are kept about 2 KiB apart modulo 4 KiB: by padding for static
/// shapes, by a skew of the heap block for run-time ones.
template <class Specs>
struct state_buffers {
  using buffers = typename loop_buffers<Specs>::type;
  static constexpr std::size_t pad = [] {
    const std::size_t rest = sizeof(buffers) % 4096;
    return ((2048 + 4096 - rest) % 4096) / 64 * 64 + 64;
  }();
  buffers cur;
  alignas(64) unsigned char padding[pad];
  buffers next;

  state_buffers() {
    staticflow::detail::apply([](auto&... b) {
      ([&] {
        if constexpr (requires { b.skew; }) b.skew = 2048 / sizeof(*b.data());
      }(), ...);
    }, next);
  }
};

/// Where an in-place tensor-array write puts its index and element until every output of the
/// body is computed (a later output may read the element the write replaces).
template <class I, class T, class ES>
struct staged_write {
  I index{};
  plan::slot_storage<void, T, ES> storage;
  T* value = nullptr;
  extents<ES::rank> value_ext{};
};

}  // namespace staticflow::cpu::detail
