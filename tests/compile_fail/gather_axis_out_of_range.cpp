// expect: static assertion failed: staticflow: gather: the axis is out of range for the tensor's rank
// Columns of a matrix picked along axis 2.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto ids) {
    return sf::gather(x, ids, sf::axes<2>{});  // fix: sf::axes<1>{} (or -1) for the columns
  });
  xt::xtensor<float, 2> x{{1, 2}, {3, 4}};
  xt::xtensor<std::int32_t, 1> ids{1, 0};
  auto y = f(x, ids);
  return static_cast<int>(y(0, 0));
}
