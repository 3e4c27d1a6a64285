// expect: static assertion failed: staticflow: argsort / sort / top_k: the tensor must have a numeric dtype
// Sorting a mask.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    return sf::sort(x > 0.f);  // fix: sort the values (or sf::cast<std::int32_t> the mask)
  });
  xt::xtensor<float, 1> x{1, -2, 3};
  auto y = f(x);
  return static_cast<int>(y(0));
}
