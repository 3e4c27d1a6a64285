// expect: static assertion failed: staticflow: random: this distribution's dtype must be float or double
// Normal values asked for in an integer dtype (TF: "Invalid dtype").
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([] {
    return sf::random::stateless_normal<int>(sf::shape<3>{}, {1, 2});  // fix: float or double
  });
  auto y = f();
  return static_cast<int>(y(0));
}
