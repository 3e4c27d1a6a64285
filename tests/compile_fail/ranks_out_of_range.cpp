// expect: static assertion failed: staticflow: sf::ranks<...> supports ranks 0 to 8
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function<sf::ranks<1, 9>>([](auto x) { return x; });  // fix: sf::ranks<1, 8>
  xt::xarray<float> a = {1.f};
  h(a);
}
