// expect: staticflow: sf::switch_case: the index must be a scalar integer tensor, not float32\[\]
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto i, auto x) { return sf::switch_case(i, [&] { return x; }, [&] { return -x; }); });
  (void)f(1.f, 2);
}
