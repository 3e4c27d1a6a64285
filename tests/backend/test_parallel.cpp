// Tests for backend/cpu/parallel.hpp: chunks cover [0, n) exactly once for many n and thread
// counts, work really runs on several threads, exceptions reach the caller after every chunk
// has finished, nested and concurrent calls do not deadlock, and the process-wide thread count.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include <staticflow/backend/cpu/parallel.hpp>

namespace sf = staticflow;
namespace cpu = staticflow::cpu;

namespace {

// Runs parallel_for and checks the chunks: every index once, contiguous non-empty ranges,
// min(threads, n) of them, sizes differing by at most one.
void check_cover(std::size_t n, std::size_t threads) {
  std::vector<std::atomic<int>> hits(n);
  std::mutex m;
  std::vector<std::pair<std::size_t, std::size_t>> chunks;
  cpu::parallel_for(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(m);
    chunks.emplace_back(begin, end);
  });
  INFO("n = " << n << ", threads = " << threads);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(hits[i].load() == 1);
  if (n == 0) {
    CHECK(chunks.empty());
    return;
  }
  std::sort(chunks.begin(), chunks.end());
  CHECK(chunks.size() == std::min(std::max<std::size_t>(threads, 1), n));
  CHECK(chunks.front().first == 0);
  CHECK(chunks.back().second == n);
  std::size_t lo = n, hi = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    CHECK(chunks[c].first < chunks[c].second);
    if (c + 1 < chunks.size()) CHECK(chunks[c].second == chunks[c + 1].first);
    lo = std::min(lo, chunks[c].second - chunks[c].first);
    hi = std::max(hi, chunks[c].second - chunks[c].first);
  }
  CHECK(hi - lo <= 1);
}

}  // namespace

TEST_CASE("parallel_for: chunks cover 0..n-1 exactly once", "[parallel]") {
  for (std::size_t n : {0, 1, 2, 3, 5, 7, 8, 16, 17, 100, 1000, 12345})
    for (std::size_t threads : {0, 1, 2, 3, 4, 7, 8, 16}) check_cover(n, threads);
}

TEST_CASE("parallel_for: chunks run on several threads", "[parallel]") {
  // Each chunk waits (up to 10 s) until two chunks have started: that happens only if a worker
  // runs one of them while the caller runs the other.
  for (int round = 0; round < 3; ++round) {
    std::atomic<int> started{0};
    std::mutex m;
    std::set<std::thread::id> ids;
    cpu::parallel_for(2, 2, [&](std::size_t, std::size_t) {
      started.fetch_add(1);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
      std::lock_guard lock(m);
      ids.insert(std::this_thread::get_id());
    });
    CHECK(started.load() == 2);
    CHECK(ids.size() == 2);
    CHECK(ids.count(std::this_thread::get_id()) == 1);  // the caller took a chunk
  }
}

TEST_CASE("parallel_for: an exception reaches the caller after every chunk finished", "[parallel]") {
  for (std::size_t threads : {1, 2, 4}) {
    std::vector<std::atomic<int>> done(8);
    auto run = [&] {
      cpu::parallel_for(8, threads, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          if (i == 5) throw std::runtime_error("chunk failed");
          done[i].store(1);
        }
      });
    };
    INFO("threads = " << threads);
    CHECK_THROWS_WITH(run(), "chunk failed");
    // The other chunks ran to completion: chunk [0, 4) with 2 threads, [0, 2) [2, 4) [6, 8) with
    // 4; the failing chunk stopped at 5.
    const std::size_t end = threads == 4 ? 8 : 5;
    for (std::size_t i = 0; i < end; ++i)
      if (i != 5) CHECK(done[i].load() == 1);
  }

  // Several chunks throw: one exception comes out, and the pool still works afterwards.
  std::atomic<int> ran{0};
  CHECK_THROWS_AS(cpu::parallel_for(16, 4,
                                    [&](std::size_t, std::size_t) {
                                      ran.fetch_add(1);
                                      throw std::logic_error("every chunk");
                                    }),
                  std::logic_error);
  CHECK(ran.load() == 4);
  check_cover(1000, 4);
}

TEST_CASE("parallel_for: nested calls run inline and do not deadlock", "[parallel]") {
  std::vector<std::atomic<int>> hits(64 * 64);
  cpu::parallel_for(64, 4, [&](std::size_t b0, std::size_t e0) {
    for (std::size_t i = b0; i < e0; ++i) {
      cpu::parallel_for(64, 4, [&](std::size_t b1, std::size_t e1) {
        for (std::size_t j = b1; j < e1; ++j) hits[i * 64 + j].fetch_add(1);
      });
    }
  });
  for (auto& h : hits) REQUIRE(h.load() == 1);
}

TEST_CASE("parallel_for: concurrent callers do not deadlock", "[parallel]") {
  constexpr int callers = 4, rounds = 200;
  std::atomic<long> total{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < callers; ++t) {
    ts.emplace_back([&, t] {
      for (int r = 0; r < rounds; ++r) {
        const std::size_t n = 100 + static_cast<std::size_t>(r % 7);
        std::atomic<long> sum{0};
        cpu::parallel_for(n, 2 + static_cast<std::size_t>((t + r) % 3), [&](std::size_t b, std::size_t e) {
          long s = 0;
          for (std::size_t i = b; i < e; ++i) s += static_cast<long>(i);
          sum.fetch_add(s);
        });
        if (sum.load() == static_cast<long>(n * (n - 1) / 2)) total.fetch_add(1);
      }
    });
  }
  for (auto& t : ts) t.join();
  CHECK(total.load() == callers * rounds);
}

TEST_CASE("num_threads: 1 by default, set_num_threads, threads_for", "[parallel]") {
  CHECK(sf::num_threads() == 1);
  CHECK(cpu::threads_for(std::size_t{1} << 30) == 1);
  sf::set_num_threads(3);
  CHECK(sf::num_threads() == 3);
  CHECK(cpu::threads_for(0) == 1);
  CHECK(cpu::threads_for(cpu::parallel_grain - 1) == 1);
  CHECK(cpu::threads_for(cpu::parallel_grain) == 3);
  CHECK(cpu::threads_for(std::size_t{1} << 30) == 3);
  sf::set_num_threads(0);
  CHECK(sf::num_threads() == std::max<std::size_t>(1, std::thread::hardware_concurrency()));
  sf::set_num_threads(1);
  CHECK(cpu::threads_for(std::size_t{1} << 30) == 1);
  check_cover(500, sf::num_threads());
}

TEST_CASE("parallel_for: a body passed as a const lvalue", "[parallel]") {
  std::vector<std::atomic<int>> hits(300);
  const auto body = [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
  };
  cpu::parallel_for(300, 3, body);
  for (auto& h : hits) CHECK(h.load() == 1);
}
