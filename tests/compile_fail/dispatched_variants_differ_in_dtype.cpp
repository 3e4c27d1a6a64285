// expect: static assertion failed: staticflow: the variants of this call return different dtypes
// An xt::xarray result has one dtype for every rank; a body whose result dtype depends on the rank
// needs sf::tensor arguments (whose results are sf::tensor).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function<sf::ranks<0, 1>>([](auto x) {
    if constexpr (decltype(x)::shape_type::rank == 0) return sf::cast<double>(x);
    else return x;
  });
  xt::xarray<float> a = {1.f};
  f(a);  // fix: f(sf::tensor(a));
}
