// expect: staticflow: sf::cond: the true branch returns 2 values and the false branch returns 1
// Both branches of sf::cond are traced and must return the same structure; fix: return a tuple of two from both.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto x) {
    return sf::cond(x > 0, [&] { return std::tuple{x, x}; }, [&] { return x; });
  });
  (void)f(1);
}
