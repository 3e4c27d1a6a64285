// expect: static assertion failed: staticflow: a traced function must return a symbolic tensor, a std::tuple of them, or nothing. it returned a plain C\+\+ value
// A traced lambda must return symbolic tensors (or nothing), not a C++ value.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) {
    (void)x;
    return 1;  // fix: return x + 1;
  });
  xt::xtensor_fixed<int, xt::xshape<3>> x = {1, 2, 3};
  auto y = f(x);
  (void)y;
  return 0;
}
