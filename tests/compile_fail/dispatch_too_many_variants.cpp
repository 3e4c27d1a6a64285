// expect: static assertion failed: staticflow: this call would compile more than 256 variants
// Three sf::tensor arguments over 2 dtypes x 5 ranks each would be 1000 variants.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto y, auto z) { return x + y + z; });  // fix: sf::function<sf::ranks<1>>
  sf::tensor t = 1.f;
  f(t, t, t);
}
