// expect: static assertion failed: staticflow: sf::module::add_signature: the function needs an input signature
// A served signature is called with run-time tensors: its dtypes and ranks must be declared.
#include <staticflow/io/module.hpp>
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x) { return x * 2.f; });
  sf::module m;
  m.add_signature("serving_default", f);
  return 0;
}
