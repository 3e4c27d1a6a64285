// expect: staticflow: sf::while_loop: the body changes loop variable 1 from int32\[\] to float32\[\]
// A loop variable keeps its spec across iterations (tf.while_loop's shape invariants).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto n) {
    return sf::while_loop([&](auto i, auto) { return i < n; },
                          [](auto i, auto acc) { return std::tuple{i + 1, sf::cast<float>(acc) * 0.5f}; }, 0, 1);
  });
  (void)f(3);
}
