// expect: static assertion failed: staticflow: string tensors take \+, ==, != and the sf::strings ops, not arithmetic
// `+` concatenates strings; `*`, `-`, `/`, reductions and math functions have no string meaning.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto s) {
    return s * s;  // fix: return s + s; (concatenation) or sf::strings::to_number<float>(s) * 2.f
  });
  return static_cast<int>(f("ab").size());
}
