// Seed 000 and 002: C++ side effects in the body happen only while tracing; the graph runs on
// every call. A plain C++ function, by contrast, prints on every call.
#include <iostream>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

template <class T>
T simple_computation(T x, T y) {
  std::cout << "Tracing with inputs: " << x << ", " << y << "\n";  // runs on every call
  T a = x + y;
  return a * 2;
}

int main() {
  std::cout << "Eager Execution:\n";
  std::cout << simple_computation(1, 2) << "\n";
  std::cout << simple_computation(3, 4) << "\n";

  auto optimized_computation = sf::function([](auto x, auto y) {
    std::cout << "Tracing optimized function with inputs: " << x << ", " << y << "\n";  // trace only
    auto a = sf::add(x, y);
    auto b = sf::multiply(a, 2);
    return b;
  });
  std::cout << "\nGraph Execution (sf::function):\n";
  std::cout << optimized_computation(1, 2) << "\n";        // traces the int32 graph
  std::cout << optimized_computation(3, 4) << "\n";        // reuses it
  std::cout << optimized_computation(1.0f, 2.0f) << "\n";  // traces the float32 graph
  std::cout << optimized_computation(3.0f, 4.0f) << "\n";  // reuses it
  std::cout << "traces: " << optimized_computation.tracing_count() << "\n";

  // seed 002: double, on an int32, a float32 and a string scalar (tf.constant('a'))
  auto dbl = sf::function([](auto a) {
    std::cout << "Tracing with " << a << "\n";
    return a + a;
  }, sf::arg_names("a"));
  std::cout << "\n" << dbl(1) << "\n\n" << dbl(1.1f) << "\n\n" << dbl("a") << "\n\n";
  std::cout << dbl(2) << "  (no trace: int32 was seen)\n" << dbl("b") << "  (nor a string)\n\n";
  std::cout << dbl.pretty_printed_concrete_signatures() << "\n";
  return optimized_computation.tracing_count() == 2 ? 0 : 1;
}
