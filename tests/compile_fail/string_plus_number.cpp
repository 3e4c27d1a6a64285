// expect: static assertion failed: staticflow: a string tensor does not mix with numbers
// A string and a number have no common dtype: convert one of them first.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto s, auto n) {
    return s + n;  // fix: return s + sf::strings::as_string(n);
  });
  return static_cast<int>(f("ab", 1).size());
}
