// expect: static assertion failed: staticflow: the arguments do not match this concrete function's signature
// A concrete function accepts only the signature it was traced for: float32[3] here, not int32[3].
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return x * 2; });
  auto& c = f.get_concrete_function(sf::spec<float, 3>{});
  xt::xtensor_fixed<int, xt::xshape<3>> x = {1, 2, 3};  // fix: xt::xtensor_fixed<float, xt::xshape<3>> x = {1, 2, 3};
  auto y = c(x);
  return static_cast<int>(y(0));
}
