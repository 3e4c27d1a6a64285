// tests/graph/tf_reference.hpp -- comparing results with numbers TensorFlow printed: a tensor's
// elements as a vector, and a list of printed values in the dtype under test.
#pragma once

#include <initializer_list>
#include <vector>

namespace tf_reference {

template <class E>
auto flat(const E& e) {
  return std::vector<typename E::value_type>(e.begin(), e.end());
}

/// TF's values (printed as Python floats: exact for float32 and float64) in dtype T.
template <class T>
std::vector<T> as(std::initializer_list<double> v) {
  std::vector<T> out;
  for (double x : v) out.push_back(static_cast<T>(x));
  return out;
}

}  // namespace tf_reference
