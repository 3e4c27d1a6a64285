// expect: static assertion failed: staticflow: sf::dtypes<...> takes bool, int32_t, int64_t, float or double
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function<sf::dtypes<float, unsigned>>([](auto x) { return x; });  // fix: sf::dtypes<float, std::int32_t>
  sf::tensor t = 1.f;
  f(t);
}
