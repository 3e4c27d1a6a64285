// expect: static assertion failed: staticflow: string tensors run on the CPU backend only
// The Thrust backend has no string kernels: a function on strings runs on sf::backend::cpu.
#include <staticflow/staticflow.hpp>
#include <staticflow/backend/thrust/thrust.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto s) { return sf::strings::length(s); });
  xt::xtensor<std::string, 1> in = {"a", "bc"};
  auto n = f(sf::backend::thrust, in);  // fix: auto n = f(in);
  return static_cast<int>(n(0));
}
