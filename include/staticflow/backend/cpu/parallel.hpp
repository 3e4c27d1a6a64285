// staticflow/backend/cpu/parallel.hpp -- the process-wide thread count, a small persistent thread
// pool and `parallel_for` over contiguous chunks.
//
//   sf::set_num_threads(4);                        // process-wide default (1 until set)
//   cpu::parallel_for(n, cpu::threads_for(n), [&](std::size_t begin, std::size_t end) { ... });
//
// The pool's threads are created on the first call that needs them (none for a program that
// never asks for more than one thread) and park on a condition variable between calls. A call
// describes its work with a job on its own stack, so the steady state allocates nothing. One
// call owns the pool at a time; a call that finds it busy (a concurrent caller, or a parallel_for
// nested inside a chunk) runs its chunks itself on the calling thread, so nesting cannot
// deadlock and every call makes progress without waiting for a worker.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/core/config.hpp"

namespace staticflow {

namespace cpu::detail {
inline std::atomic<std::size_t> default_num_threads{1};
}  // namespace cpu::detail

/// Sets the process-wide default number of threads (what `cpu::threads_for` hands out above its
/// grain); 0 means `std::thread::hardware_concurrency()`. The default is 1: nothing runs on
/// another thread unless a program asks for it.
inline void set_num_threads(std::size_t n) noexcept {
  if (n == 0) n = std::max<std::size_t>(1, std::thread::hardware_concurrency());
  cpu::detail::default_num_threads.store(n, std::memory_order_relaxed);
}

/// The process-wide default number of threads (at least 1).
inline std::size_t num_threads() noexcept {
  return cpu::detail::default_num_threads.load(std::memory_order_relaxed);
}

}  // namespace staticflow

namespace staticflow::cpu {

/// Below this much work (elements, or multiply-adds for matmul) `threads_for` returns 1: waking
/// a parked thread costs a few microseconds, about what one core needs for 1<<16 simple
/// element operations.
inline constexpr std::size_t parallel_grain = std::size_t{1} << 16;

/// The number of threads for `work` units: 1 below `parallel_grain`, `num_threads()` from it on.
inline std::size_t threads_for(std::size_t work) noexcept {
  return work < parallel_grain ? 1 : num_threads();
}

namespace detail {

/// One parallel_for call: lives on the caller's stack. Chunks are claimed with an atomic counter
/// by whoever runs first (caller or worker); chunk c always covers the same range, so the split
/// of the work does not depend on which thread runs it.
struct pool_job {
  void (*run)(void* body, std::size_t begin, std::size_t end);
  void* body;
  std::size_t n;
  std::size_t chunks;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // the first chunk's exception; written by the thread that set failed
  // Guarded by the pool's mutex:
  std::size_t open_slots = 0;  // workers that may still join
  std::size_t active = 0;      // workers that joined and have not left

  /// Runs unclaimed chunks until none are left. An exception stops its own chunk only; the
  /// first one is kept for the caller.
  void work() noexcept {
    const std::size_t q = n / chunks, r = n % chunks;
    for (std::size_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
      const std::size_t begin = c * q + std::min(c, r);
      const std::size_t end = begin + q + (c < r ? 1 : 0);
      try {
        run(body, begin, end);
      } catch (...) {
        if (!failed.exchange(true, std::memory_order_acq_rel)) error = std::current_exception();
      }
    }
  }
};

/// The persistent workers. `instance()` is created on the first multi-threaded call and joins
/// its threads at exit.
class thread_pool {
 public:
  static thread_pool& instance() {
    static thread_pool pool;
    return pool;
  }

  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  ~thread_pool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  /// Runs `job` on the calling thread with the help of up to `helpers` workers and returns true
  /// once every chunk has finished; returns false at once, having run nothing, when another
  /// call owns the pool.
  bool try_run(pool_job& job, std::size_t helpers) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    {
      std::lock_guard lock(mutex_);
      grow(helpers);
      job.open_slots = std::min(helpers, workers_.size());
      job_ = &job;
      ++generation_;
    }
    work_cv_.notify_all();
    job.work();
    {
      // Every chunk is claimed; wait for the workers still inside the job, and let no new one in.
      std::unique_lock lock(mutex_);
      job_ = nullptr;
      done_cv_.wait(lock, [&] { return job.active == 0; });
    }
    busy_.store(false, std::memory_order_release);
    return true;
  }

 private:
  thread_pool() = default;

  // Called with mutex_ held. A thread that cannot be created only means less help: the caller
  // runs whatever chunks no worker claims.
  void grow(std::size_t helpers) {
    while (workers_.size() < helpers) {
      try {
        workers_.emplace_back([this] { worker_loop(); });
      } catch (...) {
        return;
      }
    }
  }

  void worker_loop() {
    std::unique_lock lock(mutex_);
    std::uint64_t seen = 0;
    for (;;) {
      work_cv_.wait(lock, [&] {
        return stop_ || (job_ != nullptr && generation_ != seen && job_->open_slots > 0);
      });
      if (stop_) return;
      seen = generation_;
      pool_job* job = job_;
      --job->open_slots;
      ++job->active;
      lock.unlock();
      job->work();
      lock.lock();
      // Still under the lock: the caller cannot see active == 0 (and return, destroying the
      // job) before this thread is done with it.
      if (--job->active == 0) done_cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_cv_;  // workers wait here for a job
  std::condition_variable done_cv_;  // the owning caller waits here for its workers
  std::vector<std::thread> workers_;
  pool_job* job_ = nullptr;
  std::uint64_t generation_ = 0;  // bumped per job, so a worker joins each job at most once
  bool stop_ = false;
  std::atomic<bool> busy_{false};  // a call owns the pool
};

/// The multi-threaded part of parallel_for, the same for every body (one copy per program, not
/// one per kernel: a test TU instantiates parallel_for for a hundred-odd loops): `chunks` >= 2
/// chunks of [0, n), run through `run(body, begin, end)`.
inline void run_chunks(std::size_t n, std::size_t chunks, void (*run)(void*, std::size_t, std::size_t), void* body) {
  pool_job job;
  job.run = run;
  job.body = body;
  job.n = n;
  job.chunks = chunks;
  if (!thread_pool::instance().try_run(job, chunks - 1)) job.work();
  if (job.failed.load(std::memory_order_acquire)) std::rethrow_exception(job.error);
}

}  // namespace detail

/// Calls `body(begin, end)` on `min(threads, n)` contiguous chunks that cover [0, n) exactly once
/// (sizes differ by at most one; none is empty), on the calling thread and up to threads - 1
/// pool workers, and returns when all have finished. `body` is called concurrently from several
/// threads. If chunks throw, the other chunks still run and the first exception is rethrown
/// here. With threads <= 1, or n <= 1, this is `body(0, n)` on the calling thread (nothing when
/// n == 0). When the pool is busy (another caller, or a call from inside a chunk) the chunks run
/// one after another on the calling thread.
template <class F>
void parallel_for(std::size_t n, std::size_t threads, F&& body) {
  if (n == 0) return;
  const std::size_t chunks = std::min(threads, n);
  if (chunks <= 1) {
    body(std::size_t{0}, n);
    return;
  }
  using Body = std::remove_reference_t<F>;
  detail::run_chunks(n, chunks, [](void* b, std::size_t begin, std::size_t end) { (*static_cast<Body*>(b))(begin, end); },
                     const_cast<void*>(static_cast<const void*>(std::addressof(body))));
}

}  // namespace staticflow::cpu
