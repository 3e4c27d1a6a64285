// The quickstart: trace a generic lambda once per signature, run the fused graph on every call.
#include <iostream>

#include <staticflow/staticflow.hpp>
#include <xtensor/xio.hpp>

namespace sf = staticflow;

int main() {
  // seed 001: f(x, y) = x ** 2 + y
  auto f = sf::function([](auto x, auto y) { return x * x + y; });

  xt::xtensor_fixed<int, xt::xshape<2>> x = {2, 3}, y = {3, -2};
  auto r = f(x, y);  // traces once for (int32[2], int32[2])
  std::cout << "f([2, 3], [3, -2]) = " << r << "\n";
  std::cout << "tracing_count after one int32 call: " << f.tracing_count() << "\n";

  xt::xtensor_fixed<float, xt::xshape<2>> xf = {0.5f, 1.5f}, yf = {1.f, 1.f};
  std::cout << "f([0.5, 1.5], [1, 1]) = " << f(xf, yf) << "\n";
  std::cout << "tracing_count after a float32 call: " << f.tracing_count() << "\n\n";

  std::cout << f.pretty_printed_concrete_signatures() << "\n\n";

  auto& c1 = f.get_concrete_function(x, y);
  auto& c2 = f.get_concrete_function(sf::spec<int, 2>{}, sf::spec<int, 2>{});
  std::cout << "same concrete function for a tensor and a spec call: " << std::boolalpha << (&c1 == &c2) << "\n";
  std::cout << "the traced graph:\n" << c1.graph_string();
  return r(0) == 7 && r(1) == 7 ? 0 : 1;
}
