// expect: staticflow: _c takes a decimal integer such as 2_c
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
using namespace sf::literals;

int main() {
  auto f = sf::function([](auto x) { return x * 1.5_c; });  // fix: x * 1.5f (a run-time literal)
  (void)f(2.f);
}
