// expect: static assertion failed: staticflow: tensor_scatter_nd_add / _sub / scatter_nd: a bool tensor has no sum \(use update\)
// tf.tensor_scatter_nd_add has no bool kernel either.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto mask, auto ids, auto set) { return sf::tensor_scatter_nd_add(mask, ids, set); });  // fix: _update
  xt::xtensor_fixed<bool, xt::xshape<4>> mask{};
  xt::xtensor_fixed<int, xt::xshape<2, 1>> ids{{0}, {2}};
  xt::xtensor_fixed<bool, xt::xshape<2>> set{true, true};
  auto y = f(mask, ids, set);
  return y(0) ? 1 : 0;
}
