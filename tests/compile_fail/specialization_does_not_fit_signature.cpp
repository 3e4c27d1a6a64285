// expect: staticflow: specialization 1, shape \(3, 3\), does not fit the input signature \(float32\[None\]\)
// A specialization must make some dimension of the input signature static.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function<sf::spec<float, sf::dyn>, sf::specialize<sf::shape<4>, sf::shape<3, 3>>>(  // fix: drop shape<3, 3>
      [](auto x) { return x * 2.f; });
  (void)h;
}
