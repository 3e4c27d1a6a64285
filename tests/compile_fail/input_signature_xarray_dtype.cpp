// expect: staticflow: argument 0 is an xt::xarray of float64, the input signature expects float32\[None,None\] \(dtype float64 is not float32\)
// An xt::xarray's rank is known only at run time, its dtype statically: that part is checked here.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function<sf::spec<float, sf::dyn, sf::dyn>>([](auto x) { return x * 2.f; });
  auto a = xt::xarray<double>::from_shape({1, 1});  // fix: xt::xarray<float>
  h(a);
}
