// Seed 001 and 002: one polymorphic function, a concrete function per signature. Static values
// (the analog of Python numbers) get a graph each; tensors of one signature share one.
#include <iostream>

#include <staticflow/staticflow.hpp>
#include <xtensor/xio.hpp>

namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return sf::abs(x); });
  auto& s1 = f.get_concrete_function(sf::static_value<1>{});
  auto& s2 = f.get_concrete_function(sf::static_value<2>{});  // a new graph per static value
  std::cout << "static values 1 and 2 share a graph: " << std::boolalpha
            << (static_cast<const void*>(&s1) == static_cast<const void*>(&s2)) << "\n";
  auto& t1 = f.get_concrete_function(1);
  auto& t2 = f.get_concrete_function(2);  // C++ scalars are 0-d tensors: the same graph
  std::cout << "tensors 1 and 2 share a graph: " << (&t1 == &t2) << "\n";

  auto g = sf::function([](auto x) { return x + 1; });
  xt::xtensor_fixed<float, xt::xshape<2>> vector = {1.0f, 1.0f};
  xt::xtensor_fixed<float, xt::xshape<1, 1>> matrix = {{3.0f}};
  std::cout << "vector and matrix share a graph: "
            << (static_cast<const void*>(&g.get_concrete_function(vector)) ==
                static_cast<const void*>(&g.get_concrete_function(matrix)))
            << "\n";
  std::cout << "g(vector) = " << g(vector) << ", g(matrix) = " << g(matrix) << "\n";

  // seed 002: add(ones([2, 2]), ones([2, 2]))
  auto add = sf::function([](auto a, auto b) { return a + b; });
  xt::xtensor_fixed<float, xt::xshape<2, 2>> ones = {{1.f, 1.f}, {1.f, 1.f}};
  std::cout << "add(ones, ones) =\n" << add(ones, ones) << "\n";

  // run-time shapes: one graph serves every length
  auto h = sf::function([](auto x) { return x * 2.f; });
  std::cout << "h([1, 2, 3]) = " << h(xt::xtensor<float, 1>{1, 2, 3}) << ", h([4, 5]) = "
            << h(xt::xtensor<float, 1>{4, 5}) << ", traces: " << h.tracing_count() << "\n";
  return 0;
}
