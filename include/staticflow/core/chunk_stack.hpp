// staticflow/core/chunk_stack.hpp -- memory handed out from chunks that never move and given back
// in stack order: what the call's arena (plan/arena.hpp) and the string pool (core/string.hpp)
// are made of. The chunks are kept, so a steady stream of calls allocates nothing; a chunk never
// moves, so what an outer call took stays valid while a nested call takes more.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace staticflow::detail {

class chunk_stack {
 public:
  struct mark {
    std::size_t chunk;
    std::size_t offset;
  };

  mark top() const { return {current_, offset_}; }
  void release(mark m) {
    current_ = m.chunk;
    offset_ = m.offset;
  }

  /// `bytes` bytes aligned to `align` (a power of two); a new chunk holds at least `min_chunk`.
  std::byte* allocate(std::size_t bytes, std::size_t align, std::size_t min_chunk) {
    for (;; ++current_, offset_ = 0) {
      if (current_ == chunks_.size()) {
        const std::size_t last = chunks_.empty() ? 0 : chunks_.back().size;
        const std::size_t size = std::max({min_chunk, 2 * last, bytes + align});
        chunks_.push_back({std::unique_ptr<std::byte[]>(new std::byte[size]), size});
      }
      chunk& c = chunks_[current_];
      const auto base = reinterpret_cast<std::uintptr_t>(c.data.get());
      const std::size_t start = ((base + offset_ + align - 1) & ~(align - 1)) - base;
      if (start + bytes <= c.size) {
        offset_ = start + bytes;
        return c.data.get() + start;
      }
    }
  }

  /// Bytes reserved in all chunks (tests check that a steady stream of calls stops growing).
  std::size_t capacity() const {
    std::size_t n = 0;
    for (const auto& c : chunks_) n += c.size;
    return n;
  }

 private:
  struct chunk {
    std::unique_ptr<std::byte[]> data;
    std::size_t size;
  };
  std::vector<chunk> chunks_;
  std::size_t current_ = 0;
  std::size_t offset_ = 0;
};

}  // namespace staticflow::detail
