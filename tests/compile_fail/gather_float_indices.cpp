// expect: static assertion failed: staticflow: gather: the indices must be an int32 or int64 tensor
// An embedding lookup with the token ids still in a float tensor.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto table, auto ids) {
    return sf::gather(table, ids);  // fix: sf::gather(table, sf::cast<int>(ids))
  });
  xt::xtensor<float, 2> table{{1, 2}, {3, 4}};
  xt::xtensor<float, 1> ids{1, 0};
  auto y = f(table, ids);
  return static_cast<int>(y(0, 0));
}
