// expect: staticflow: sf::while_loop: the condition must return a scalar bool tensor, not int32\[\]
// The condition returns a scalar bool (tf.while_loop); fix: return i > 0.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto n) { return sf::while_loop([](auto i) { return i; }, [](auto i) { return i - 1; }, n); });
  (void)f(3);
}
