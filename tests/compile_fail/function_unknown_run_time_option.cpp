// expect: static assertion failed: staticflow: sf::function\(fn, ...\) takes a backend \(sf::backend::cpu, sf::backend::eager\), sf::arg_names\(...\), sf::function_name\(...\) and sf::cache_capacity\(n\)
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function([](auto x) { return x; }, "x");  // fix: sf::arg_names("x")
  (void)h;
}
