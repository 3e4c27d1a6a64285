// expect: static assertion failed: staticflow: split: the sizes must be counts \(at least one\), with at most one -1
// two parts of size -1: which one takes the rest is not defined (TF's error too).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    const auto parts = sf::split(x, sf::sizes<-1, 1, -1>{});
    return std::get<0>(parts);
  });
  xt::xtensor<float, 1> x{1, 2, 3};
  auto y = f(x);
  return static_cast<int>(y(0));
}
