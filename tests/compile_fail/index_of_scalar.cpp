// expect: staticflow: x\[i\]: a scalar \(rank-0 tensor\) cannot be indexed
// x[i] takes a slice along the leading axis, which a rank-0 tensor does not have; fix: use x itself.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto x) { return x[0]; });
  (void)f(1.f);
}
