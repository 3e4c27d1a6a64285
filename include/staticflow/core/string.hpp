// staticflow/core/string.hpp -- the string dtype (`sf::string`, TensorFlow's tf.string) and the
// per-thread pool that holds the characters a call makes.
//
// A string tensor's element is a view: a pointer to its bytes and their count. It is trivially
// copyable, so every data-movement kernel (reshape, transpose, gather, concat, slicing, where)
// moves string tensors as it moves numbers, and buffers of strings come from the call's arena like
// any other. The bytes live where the value came from: in the caller's std::string arguments
// (valid for the call), in a literal's own copy (kept by the graph), or, for the strings an op
// makes (`a + b`, upper, substr, as_string), in this thread's string pool. A call that reads or
// makes strings opens a `string_scope` (trace/concrete_function.hpp): its results are copied into
// std::string before the scope gives the pool's bytes back, so a steady stream of calls reuses
// the same memory.
#pragma once

#include <cstddef>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>

#include "staticflow/core/chunk_stack.hpp"

namespace staticflow {

/// The element of a string tensor (TensorFlow's tf.string): bytes it does not own.
struct string {
  const char* bytes = "";
  std::size_t length = 0;

  constexpr string() = default;
  constexpr string(const char* b, std::size_t n) : bytes(b), length(n) {}
  constexpr string(std::string_view s) : bytes(s.data()), length(s.size()) {}  // NOLINT: a view of s
  // A number is no string: `T(0)` in a kernel that fills with zeros does not compile for strings.
  string(int) = delete;
  string(std::nullptr_t) = delete;

  constexpr const char* data() const { return bytes; }
  constexpr std::size_t size() const { return length; }
  constexpr bool empty() const { return length == 0; }
  constexpr std::string_view view() const { return {bytes, length}; }
  constexpr operator std::string_view() const { return view(); }  // NOLINT: reading is free
  std::string str() const { return std::string(view()); }

  friend constexpr bool operator==(string a, string b) { return a.view() == b.view(); }
  friend constexpr auto operator<=>(string a, string b) { return a.view() <=> b.view(); }
  friend std::ostream& operator<<(std::ostream& os, string s) { return os << s.view(); }
};

namespace detail {

/// This thread's string bytes, handed back in stack order by string_scope.
class string_pool : public chunk_stack {
 public:
  static string_pool& local() {
    thread_local string_pool instance;
    return instance;
  }
  char* allocate(std::size_t bytes) {
    return reinterpret_cast<char*>(chunk_stack::allocate(bytes, 1, std::size_t{1} << 12));
  }
};

/// A string made of `parts`, its bytes in this thread's string pool.
template <class... Parts>
string pooled_string(const Parts&... parts) {
  const std::size_t n = (std::size_t{0} + ... + std::string_view(parts).size());
  if (n == 0) return {};
  char* at = string_pool::local().allocate(n);
  std::size_t offset = 0;
  ((std::memcpy(at + offset, std::string_view(parts).data(), std::string_view(parts).size()),
    offset += std::string_view(parts).size()),
   ...);
  return {at, n};
}
}  // namespace detail

/// Concatenation (the seed's `a + a` on tf.string).
inline string operator+(string a, string b) { return detail::pooled_string(a, b); }

/// Gives back, when it ends, the pool bytes made while it was alive (a call that makes strings).
class string_scope {
 public:
  string_scope() : pool_(detail::string_pool::local()), mark_(pool_.top()) {}
  ~string_scope() { pool_.release(mark_); }
  string_scope(const string_scope&) = delete;
  string_scope& operator=(const string_scope&) = delete;

 private:
  detail::string_pool& pool_;
  detail::chunk_stack::mark mark_;
};

}  // namespace staticflow
