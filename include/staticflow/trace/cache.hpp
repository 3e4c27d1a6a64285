// staticflow/trace/cache.hpp -- the per-function-object table of concrete functions.
//
// Reads take no lock: the table is an open-addressing array of atomic pointers, published with
// release stores and read with acquire loads; a full table is replaced by a bigger copy and the
// old one is kept until the cache dies, so a reader never sees freed memory. Tracing (and every
// insertion) happens under a mutex, so concurrent first calls trace once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "staticflow/trace/concrete_function.hpp"

namespace staticflow::detail {

class concrete_cache {
 public:
  concrete_cache() {
    tables_.push_back(new_table(16));
    table_.store(tables_.back().get(), std::memory_order_release);
  }

  /// The concrete function traced for `key`, or nullptr. Lock-free.
  concrete_function_base* find(const void* key) const noexcept {
    const table* t = table_.load(std::memory_order_acquire);
    for (std::size_t i = hash(key) & t->mask;; i = (i + 1) & t->mask) {
      concrete_function_base* c = t->slots[i].load(std::memory_order_acquire);
      if (c == nullptr || c->key() == key) return c;
    }
  }

  /// Finds `key`, or runs `trace()` (which returns a std::unique_ptr to a new concrete function)
  /// and inserts its result, all under the lock. Returns the function and whether it traced now.
  template <class Trace>
  concrete_function_base& find_or_trace(const void* key, Trace&& trace) {
    if (auto* c = find(key)) return *c;
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto* c = find(key)) return *c;  // another thread traced it while we waited
    std::unique_ptr<concrete_function_base> made = trace();
    concrete_function_base* c = made.get();
    owned_.push_back(std::move(made));
    traces_.fetch_add(1, std::memory_order_relaxed);
    insert(c);
    return *c;
  }

  std::size_t tracing_count() const noexcept { return traces_.load(std::memory_order_relaxed); }

  /// Every concrete function, in the order they were traced.
  template <class F>
  void for_each(F&& f) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& c : owned_) f(*c);
  }

 private:
  struct table {
    std::size_t mask;
    std::unique_ptr<std::atomic<concrete_function_base*>[]> slots;
  };

  static std::unique_ptr<table> new_table(std::size_t capacity) {
    auto t = std::make_unique<table>();
    t->mask = capacity - 1;
    t->slots.reset(new std::atomic<concrete_function_base*>[capacity]);
    for (std::size_t i = 0; i < capacity; ++i) t->slots[i].store(nullptr, std::memory_order_relaxed);
    return t;
  }

  static std::size_t hash(const void* key) noexcept {
    auto x = reinterpret_cast<std::uintptr_t>(key);
    return static_cast<std::size_t>((x >> 4) * 0x9E3779B97F4A7C15ull >> 20);
  }

  static void place(table& t, concrete_function_base* c) {
    std::size_t i = hash(c->key()) & t.mask;
    while (t.slots[i].load(std::memory_order_relaxed) != nullptr) i = (i + 1) & t.mask;
    t.slots[i].store(c, std::memory_order_release);
  }

  // Called under the lock. Keeps the load factor at most 1/2.
  void insert(concrete_function_base* c) {
    table* t = table_.load(std::memory_order_relaxed);
    if (2 * owned_.size() > t->mask + 1) {
      auto bigger = new_table(2 * (t->mask + 1));
      for (const auto& old : owned_) place(*bigger, old.get());  // includes c
      table_.store(bigger.get(), std::memory_order_release);
      tables_.push_back(std::move(bigger));
      return;
    }
    place(*t, c);
  }

  std::vector<std::unique_ptr<table>> tables_;  // every table made, the current one last
  std::atomic<table*> table_{nullptr};
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<concrete_function_base>> owned_;
  std::atomic<std::size_t> traces_{0};
};

}  // namespace staticflow::detail
