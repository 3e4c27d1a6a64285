// expect: staticflow: sf::fori_loop: a bound must be a scalar integer
// fori_loop's bounds are scalar integers; fix: pass an int, or sf::cast<int>(hi).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto hi) { return sf::fori_loop(0, hi, [](auto i, auto acc) { return acc + i; }, 0); });
  (void)f(2.5f);
}
