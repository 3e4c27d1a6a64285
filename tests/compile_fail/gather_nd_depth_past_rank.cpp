// expect: static assertion failed: staticflow: gather_nd / scatter_nd: the depth K of the index tuples \(the indices' last extent\) must be between 1 and the tensor's rank
// index tuples of 3 numbers into a matrix (rank 2).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto i) { return sf::gather_nd(x, i); });
  xt::xtensor<float, 2> x{{1, 2}, {3, 4}};
  xt::xtensor_fixed<int, xt::xshape<1, 3>> i{{0, 1, 0}};
  auto y = f(x, i);
  return static_cast<int>(y(0));
}
