// expect: static assertion failed: staticflow: tensor_scatter_nd / scatter_nd: the updates' shape is not indices.shape\[:-1\] \+ tensor.shape\[K:\]
// two row tuples into a 4x3 table take updates of shape [2, 3]; these rows have 4 columns.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto table, auto ids, auto rows) { return sf::tensor_scatter_nd_add(table, ids, rows); });
  xt::xtensor_fixed<float, xt::xshape<4, 3>> table{};
  xt::xtensor_fixed<int, xt::xshape<2, 1>> ids{{0}, {2}};
  xt::xtensor_fixed<float, xt::xshape<2, 4>> rows{};
  auto y = f(table, ids, rows);
  return static_cast<int>(y(0, 0));
}
