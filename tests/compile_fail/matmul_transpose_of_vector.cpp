// expect: static assertion failed: staticflow: matrix_transpose / matmul's transpose_a / transpose_b need a tensor of rank 2 or more
// tf.linalg.matmul(v, m, transpose_a=True) of a vector: TF requires rank >= 2 with the options too.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto v, auto m) { return sf::matmul(v, m, sf::transpose_a); });  // fix: sf::matmul(v, m)
  xt::xtensor<float, 1> v{1, 2};
  xt::xtensor<float, 2> m{{1, 2}, {3, 4}};
  auto y = f(v, m);
  return static_cast<int>(y(0));
}
