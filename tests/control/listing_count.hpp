// count_of(listing, what): how often `what` occurs in a graph_string listing (the unrolled-loop
// tests count equations such as " = Mul " and " = materialize ").
#pragma once

#include <cstddef>
#include <string>

namespace staticflow_test {
inline std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
}  // namespace staticflow_test
