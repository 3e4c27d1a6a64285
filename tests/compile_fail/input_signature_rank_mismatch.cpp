// expect: staticflow: argument 0 is float32\[\], the input signature expects float32\[None\] \(rank 0 is not 1\)
// The seed's fourth call with a C++ scalar: a float is a 0-d tensor, whose rank is static, so a
// rank-1 input signature rejects it at compile time (an xt::xarray scalar throws at run time).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function<sf::spec<float, sf::dyn>>([](auto x) { return x * 2.f; });
  h(1.f);  // fix: h(xt::xtensor<float, 1>{1.f});
}
