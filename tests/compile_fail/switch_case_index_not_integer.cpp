// expect: staticflow: sf::switch_case: the index must be a scalar integer tensor, not float32\[\]
// The branch index of sf::switch_case is a scalar integer (tf.switch_case); fix: sf::cast<int>(i).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto i, auto x) { return sf::switch_case(i, [&] { return x; }, [&] { return -x; }); });
  (void)f(1.f, 2);
}
