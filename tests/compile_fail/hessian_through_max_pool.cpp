// expect: static assertion failed: staticflow: a second derivative through max_pool
// A Hessian-vector product (or jvp) of a function with a max_pool needs the adjoint of
// MaxPoolGrad, which reads its input at the windows' maxima (TF's MaxPoolGradGrad): not written
// yet. avg_pool, conv2d, slice and concat have theirs.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto loss = [](auto x) {
    return sf::reduce_sum(sf::square(sf::max_pool2d(x, sf::ksize<2>)));  // fix: sf::avg_pool2d(x, sf::ksize<2>)
  };
  xt::xtensor<double, 4> x = xt::ones<double>({1, 4, 4, 1}), v = xt::ones<double>({1, 4, 4, 1});
  auto hv = sf::hessian_vector_product<0>(loss)(x, v);
  (void)hv;
  return 0;
}
