// staticflow/trace/cache.hpp -- the per-function-object table of concrete functions, with its
// capacity bound, its retracing detector and the settings the messages use (names, log).
//
// Reads take no lock: the table is an open-addressing array of atomic pointers, published with
// release stores and read with acquire loads; a full table is replaced by a bigger copy and the
// old one is kept until the cache dies (or is cleared), so a reader never sees freed memory.
// Tracing (and every insertion) happens under a mutex, so concurrent first calls trace once.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "staticflow/core/errors.hpp"
#include "staticflow/trace/concrete_function.hpp"
#include "staticflow/trace/input_signature.hpp"
#include "staticflow/trace/log.hpp"
#include "staticflow/trace/signature.hpp"

namespace staticflow::detail {

/// What a polymorphic function was told at construction; its messages use it.
struct function_settings {
  std::string name;                      // for log messages
  bool named = false;                    // whether sf::function_name gave `name` (listings show it)
  std::vector<std::string> arg_names;    // empty: arg0, arg1, ...
  std::size_t capacity = 256;            // the most concrete functions held
  log_callback log;                      // empty: the process-wide callback

  std::string label(std::size_t i) const { return argument_label(i, arg_names.data(), arg_names.size()); }
};

class concrete_cache {
 public:
  /// How many of the recent dispatched calls must have traced for the retracing warning, and
  /// the window they must fall in (TensorFlow: "5 out of the last 5 calls ...").
  static constexpr std::size_t retrace_threshold = 5;
  static constexpr std::uint64_t retrace_window = 2 * retrace_threshold - 1;

  // Out of line: a cache is made once per function object; inlining it everywhere costs compile time.
  [[gnu::noinline]] explicit concrete_cache(function_settings settings = {}) : settings_(std::move(settings)) {
    reset_table();
  }
  [[gnu::noinline]] ~concrete_cache() = default;
  concrete_cache(const concrete_cache&) = delete;
  concrete_cache& operator=(const concrete_cache&) = delete;

  const function_settings& settings() const { return settings_; }
  void set_log_callback(log_callback cb) {
    std::lock_guard<std::mutex> lock(mutex_);
    settings_.log = std::move(cb);
  }

  /// The concrete function traced for `key`, or nullptr. Lock-free.
  concrete_function_base* find(const void* key) const noexcept {
    const table* t = table_.load(std::memory_order_acquire);
    for (std::size_t i = hash(key) & t->mask;; i = (i + 1) & t->mask) {
      concrete_function_base* c = t->slots[i].load(std::memory_order_acquire);
      if (c == nullptr || c->key() == key) return c;
    }
  }

  /// Traces the concrete function of a signature: `trace(context)` returns it as a std::unique_ptr.
  using trace_fn = std::unique_ptr<concrete_function_base> (*)(void* context);
  /// The signature as data (for messages and explain_miss).
  using describe_fn = signature_description (*)();

  /// Finds `key`, or runs `trace(context)` and inserts its result, all under the lock. A
  /// `Dispatched` call (one whose variant was chosen at run time) counts toward the retracing
  /// warning. Throws signature_error, before tracing, when the cache is at its capacity. (Not a
  /// template on the signature: one copy per TU serves every signature, and the static path's
  /// copy has no retracing code.)
  template <bool Dispatched>
  concrete_function_base& find_or_trace(const void* key, trace_fn trace, void* context, describe_fn describe) {
    if (auto* c = find(key)) {
      if constexpr (Dispatched) count_call();
      return *c;
    }
    std::string warning;
    concrete_function_base* c = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      c = find(key);  // another thread may have traced it while we waited
      if (c == nullptr) {
        if (owned_.size() >= settings_.capacity) throw_capacity_error(describe);
        std::unique_ptr<concrete_function_base> made = trace(context);
        c = made.get();
        owned_.push_back(std::move(made));
        describers_.push_back(describe);
        traces_.fetch_add(1, std::memory_order_relaxed);
        insert(c);
        if constexpr (Dispatched) warning = note_dispatched_trace(describe);
      } else if constexpr (Dispatched) {
        count_call();
      }
    }
    if constexpr (Dispatched)
      if (!warning.empty()) log_warning(warning);
    return *c;
  }

  /// A dispatched call that found its variant: counted (approximately: a relaxed increment that
  /// concurrent calls may lose, which a warning heuristic tolerates; no lock prefix on the path).
  void count_call() noexcept { calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }

  std::size_t tracing_count() const noexcept { return traces_.load(std::memory_order_relaxed); }

  /// How many concrete functions the cache holds now.
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return owned_.size();
  }

  /// Every concrete function, in the order they were traced.
  template <class F>
  void for_each(F&& f) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& c : owned_) f(*c);
  }

  /// Drops every concrete function (tracing_count keeps counting). Must not run concurrently with
  /// a call of the same function; references from get_concrete_function dangle afterwards.
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    table_.store(nullptr, std::memory_order_relaxed);
    tables_.clear();
    owned_.clear();
    describers_.clear();
    recent_ = {};
    reset_table();
  }

  /// Why a call with signature `call` (key `key`) would trace: empty when it would not.
  std::string explain(const void* key, const signature_description& call) const {
    if (find(key) != nullptr) return {};
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<signature_description> descriptions;
    for (describe_fn d : describers_) descriptions.push_back(d());
    std::string s = "staticflow: ";
    if (descriptions.empty()) {
      s += "nothing is traced yet: this call traces " + signature_text(call);
    } else {
      std::size_t best = 0, best_score = SIZE_MAX;
      for (std::size_t i = 0; i < descriptions.size(); ++i) {
        const std::size_t score = difference_count(call, descriptions[i]);
        if (score < best_score) best = i, best_score = score;
      }
      const auto& closest = descriptions[best];
      s += "this call traces " + signature_text(call) + ": none of the " + std::to_string(descriptions.size()) +
           (descriptions.size() == 1 ? " traced signature" : " traced signatures") + " matches; the closest, " +
           signature_text(closest) + ", differs in " + first_difference(call, closest);
    }
    if (owned_.size() >= settings_.capacity)
      s += "; the cache is full (capacity " + std::to_string(settings_.capacity) + "), so the call would throw";
    return s;
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

  void reset_table() {
    tables_.push_back(new_table(16));
    table_.store(tables_.back().get(), std::memory_order_release);
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

  /// Called under the lock for a dispatched call that traced. Returns the retracing warning when
  /// `retrace_threshold` of the recent dispatched calls traced (once per function object).
  [[gnu::noinline]] std::string note_dispatched_trace(describe_fn describe) {
    std::string signature = signature_text(describe());
    const std::uint64_t n = calls_.fetch_add(1, std::memory_order_relaxed) + 1;
    auto& r = recent_;
    r.stamps[r.next] = n;
    r.signatures[r.next] = std::move(signature);
    r.next = (r.next + 1) % retrace_threshold;
    r.count = std::min(r.count + 1, retrace_threshold);
    if (warned_ || r.count < retrace_threshold) return {};
    const std::uint64_t oldest = r.stamps[r.next];  // the slot written retrace_threshold traces ago
    const std::uint64_t span = n >= oldest ? n - oldest + 1 : retrace_window + 1;
    if (span > retrace_window) return {};
    warned_ = true;
    std::string s = "staticflow: " + std::to_string(retrace_threshold) + " out of the last " + std::to_string(span) +
                    " calls to " + settings_.name + " traced a new variant:";
    for (std::size_t k = 0; k < retrace_threshold; ++k)
      s += k ? ", " : " ", s += r.signatures[(r.next + k) % retrace_threshold];
    s += ". Each trace runs the body's C++ side effects again and each variant is compiled code: pass "
         "fewer dtypes and ranks, or give an input signature with sf::dyn dimensions "
         "(sf::function<sf::spec<float, sf::dyn>>(...)) so that one graph serves every shape";
    return s;
  }

  [[noreturn]] [[gnu::cold]] [[gnu::noinline]] void throw_capacity_error(describe_fn describe) const {
    throw signature_error(settings_.name + " already holds " + std::to_string(owned_.size()) +
                          " concrete functions, its capacity: tracing " + signature_text(describe()) +
                          " would exceed it; raise it with sf::cache_capacity(n) or call clear_cache()");
  }

  [[gnu::cold]] [[gnu::noinline]] void log_warning(const std::string& warning) {
    log_callback log;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      log = settings_.log;
    }
    log_message(log, warning);
  }

  /// How far apart two signatures are: per argument, a different kind (tensor or static value)
  /// weighs most, then dtype, then rank, then dimensions.
  static std::size_t difference_count(const signature_description& a, const signature_description& b) {
    if (a.size() != b.size()) return SIZE_MAX - 1;
    std::size_t n = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].text == b[i].text) continue;
      if (a[i].is_tensor != b[i].is_tensor || !a[i].is_tensor) n += 16;
      else n += (a[i].dtype != b[i].dtype ? 8 : 0) + (a[i].dims == b[i].dims ? 0 : a[i].dims.size() != b[i].dims.size() ? 4 : 1);
    }
    return n;
  }

  /// "argument 0 (x): rank 2, not 1" -- the first way `call` differs from `traced`.
  std::string first_difference(const signature_description& call, const signature_description& traced) const {
    if (call.size() != traced.size())
      return "its number of arguments: " + std::to_string(call.size()) + ", not " + std::to_string(traced.size());
    for (std::size_t i = 0; i < call.size(); ++i) {
      const auto& a = call[i];
      const auto& b = traced[i];
      if (a.text == b.text) continue;
      std::string what;
      if (a.is_tensor != b.is_tensor || !a.is_tensor) what = a.text + ", not " + b.text;
      else if (a.dtype != b.dtype) what = "dtype " + a.dtype + ", not " + b.dtype;
      else if (a.dims.size() != b.dims.size())
        what = "rank " + std::to_string(a.dims.size()) + ", not " + std::to_string(b.dims.size());
      else
        what = "shape " + runtime_shape_string(a.dims, a.dims.size()) + ", not " +
               runtime_shape_string(b.dims, b.dims.size());
      return settings_.label(i) + ": " + what;
    }
    return "nothing";
  }

  struct recent_traces {
    std::array<std::uint64_t, retrace_threshold> stamps{};
    std::array<std::string, retrace_threshold> signatures{};
    std::size_t next = 0;
    std::size_t count = 0;
  };

  // The dispatched-call counter, on its own cache line: concurrent calls write it.
  alignas(64) std::atomic<std::uint64_t> calls_{0};
  alignas(64) std::atomic<table*> table_{nullptr};
  std::vector<std::unique_ptr<table>> tables_;  // every table made, the current one last
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<concrete_function_base>> owned_;
  std::vector<describe_fn> describers_;  // the signature of each concrete function, as data on demand
  std::atomic<std::size_t> traces_{0};
  function_settings settings_;
  recent_traces recent_;
  bool warned_ = false;
};

}  // namespace staticflow::detail
