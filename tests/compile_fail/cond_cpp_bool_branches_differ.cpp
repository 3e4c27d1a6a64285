// expect: staticflow: sf::cond with a C\+\+ bool runs one branch at trace time
// A plain bool picks a branch while tracing; both must then have one C++ type.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  bool flag = true;
  auto f = sf::function([&](auto x) { return sf::cond(flag, [&] { return x; }, [&] { return sf::cast<float>(x); }); });
  (void)f(1);
}
