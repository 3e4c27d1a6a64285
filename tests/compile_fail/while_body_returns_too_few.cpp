// expect: staticflow: sf::while_loop: the body returns 1 values for 2 loop variables
// The body returns one value per loop variable, in order; fix: return std::tuple{i + 1, acc}.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto n) {
    return sf::while_loop([&](auto i, auto) { return i < n; }, [](auto i, auto) { return i + 1; }, 0, 0);
  });
  (void)f(3);
}
