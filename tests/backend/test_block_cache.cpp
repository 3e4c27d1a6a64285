// Tests for backend/cpu/block_cache.hpp: a freed loop-state block is found again by the next
// request on the thread (no fresh pages per call), the smallest block fitting is chosen, at most
// kept_blocks are kept (the smallest dropped first), and each thread has its own cache.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include <staticflow/backend/cpu/block_cache.hpp>

using staticflow::cpu::detail::block_cache;
using staticflow::cpu::detail::cached_array;

TEST_CASE("a freed block is reused by the next request that fits", "[block_cache]") {
  const float* first = nullptr;
  {
    cached_array<float> a(100000);
    first = a.get();
    REQUIRE(first != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(first) % 64 == 0);
  }
  cached_array<float> b(50000);  // smaller: the same block serves it
  CHECK(b.get() == first);
  cached_array<float> c(100000);  // the block is taken: a new one
  CHECK(c.get() != first);
}

TEST_CASE("the smallest kept block that fits is chosen; the smallest is dropped when full", "[block_cache]") {
  block_cache cache;
  std::vector<void*> blocks;
  for (std::size_t k = 1; k <= block_cache::kept_blocks; ++k) {
    std::size_t bytes = k * 1024;
    blocks.push_back(cache.take(bytes));
    CHECK(bytes == k * 1024);
  }
  for (std::size_t k = 0; k < blocks.size(); ++k) cache.give(blocks[k], (k + 1) * 1024);
  std::size_t want = 2500;  // blocks of 3 KiB and more fit: the 3 KiB one is chosen
  void* p = cache.take(want);
  CHECK(p == blocks[2]);
  CHECK(want == 3 * 1024);
  cache.give(p, want);
  // a full cache given a larger block drops its smallest (1 KiB); a smaller one is freed at once
  std::size_t big = 64 * 1024;
  void* q = ::operator new(big, block_cache::alignment);
  cache.give(q, big);
  std::size_t one = 1000;
  void* r = cache.take(one);
  CHECK(r != blocks[0]);  // 1 KiB was dropped: the 2 KiB block serves it
  CHECK(r == blocks[1]);
  cache.give(r, one);
  std::size_t huge = 64 * 1024;
  CHECK(cache.take(huge) == q);
  ::operator delete(q, block_cache::alignment);
}

TEST_CASE("each thread has its own cache", "[block_cache]") {
  const float* here = nullptr;
  {
    cached_array<float> a(200000);
    here = a.get();
  }
  const float* there = nullptr;
  std::thread([&] {
    cached_array<float> b(200000);
    there = b.get();
  }).join();
  CHECK(there != here);
  cached_array<float> c(200000);
  CHECK(c.get() == here);
}
