// staticflow/backend/cpu/block_cache.hpp -- heap blocks of loop state kept per thread across calls.
//
// A while loop keeps its variables in heap buffers when their shape is run-time or large
// (backend/cpu/control.hpp), and a differentiated loop keeps a stack per variable that grows with
// the trip count (autodiff/loop_backprop.hpp). glibc serves blocks of 128 KiB and more with mmap
// and unmaps them when freed, so every call paid a page fault per 4 KiB of fresh memory: 70 % of
// the gradient of a 4096-float recurrence over 100 steps. A block freed by a loop goes back to a
// small per-thread cache instead (at most `kept_blocks`, the smallest dropped first), where the
// next loop on the thread finds it. No lock: a block never leaves its thread's cache.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <new>
#include <utility>

namespace staticflow::cpu::detail {

class block_cache {
 public:
  static constexpr std::size_t kept_blocks = 8;
  static constexpr std::align_val_t alignment{64};

  block_cache() = default;
  block_cache(const block_cache&) = delete;
  block_cache& operator=(const block_cache&) = delete;
  ~block_cache() {
    for (auto& b : kept_)
      if (b.data != nullptr) ::operator delete(b.data, alignment);
  }

  static block_cache& local() {
    thread_local block_cache cache;
    return cache;
  }

  /// A block of at least `bytes`; `bytes` is set to its size.
  void* take(std::size_t& bytes) {
    block* best = nullptr;
    for (auto& b : kept_)
      if (b.data != nullptr && b.bytes >= bytes && (best == nullptr || b.bytes < best->bytes)) best = &b;
    if (best == nullptr) return ::operator new(bytes, alignment);
    bytes = best->bytes;
    return std::exchange(*best, block{}).data;
  }

  /// Gives back a block `take` returned, of size `bytes`.
  void give(void* data, std::size_t bytes) {
    auto smallest = std::min_element(kept_.begin(), kept_.end(), [](const block& a, const block& b) { return a.bytes < b.bytes; });
    if (smallest->data != nullptr && smallest->bytes >= bytes) {
      ::operator delete(data, alignment);  // the cache holds larger ones
      return;
    }
    if (smallest->data != nullptr) ::operator delete(smallest->data, alignment);
    *smallest = block{data, bytes};
  }

 private:
  struct block {
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  std::array<block, kept_blocks> kept_{};
};

/// An array of `count` T (trivial types: the loop's dtypes) in a block from this thread's cache.
template <class T>
class cached_array {
 public:
  cached_array() = default;
  explicit cached_array(std::size_t count) : bytes_(count * sizeof(T)) {
    data_ = static_cast<T*>(block_cache::local().take(bytes_));
  }
  cached_array(cached_array&& o) noexcept : data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  cached_array& operator=(cached_array&& o) noexcept {
    cached_array(std::move(o)).swap(*this);
    return *this;
  }
  ~cached_array() {
    if (data_ != nullptr) block_cache::local().give(data_, bytes_);
  }
  void swap(cached_array& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
  }
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace staticflow::cpu::detail
