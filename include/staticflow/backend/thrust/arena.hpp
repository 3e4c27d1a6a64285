// staticflow/backend/thrust/arena.hpp -- device buffers for slots and scratch: a per-thread pool
// of device allocations reused call after call (a steady stream of calls allocates nothing), in
// scopes that give back what they took.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <thrust/device_vector.h>

namespace staticflow::thrust_backend {
namespace detail {
/// The unit of the arena's allocations (16-byte aligned: any dtype fits).
struct alignas(16) arena_word {
  unsigned char bytes[16];
};
}  // namespace detail

class device_arena {
 public:
  /// This thread's arena.
  static device_arena& local() {
    thread_local device_arena a;
    return a;
  }

  /// A device buffer of at least `bytes` bytes (aligned for any dtype), valid until the scope
  /// that was open when it was taken ends.
  void* allocate(std::size_t bytes) {
    const std::size_t words = (bytes + sizeof(word) - 1) / sizeof(word);
    if (next_ == blocks_.size()) blocks_.push_back(std::make_unique<::thrust::device_vector<word>>());
    auto& block = *blocks_[next_++];
    if (block.size() < words) {
      block.clear();
      block.shrink_to_fit();
      block.resize(words);
    }
    return ::thrust::raw_pointer_cast(block.data());
  }

  /// How many device allocations the arena holds (tests: a repeated call adds none).
  std::size_t block_count() const { return blocks_.size(); }

  class scope {
   public:
    scope() : arena_(device_arena::local()), mark_(arena_.next_) {}
    ~scope() { arena_.next_ = mark_; }
    scope(const scope&) = delete;
    scope& operator=(const scope&) = delete;
    device_arena& get() { return arena_; }

   private:
    device_arena& arena_;
    std::size_t mark_;
  };

 private:
  using word = detail::arena_word;
  std::vector<std::unique_ptr<::thrust::device_vector<word>>> blocks_;
  std::size_t next_ = 0;
};

}  // namespace staticflow::thrust_backend
