// expect: static assertion failed: staticflow: apply_gradients\(grads, vars...\): give one gradient per variable
// Two gradients for one variable.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  sf::variable<float, 3> w{{1.f, 2.f, 3.f}};
  sf::variable<float, 3> u{{1.f, 2.f, 3.f}};
  sf::adam opt{0.1f};
  auto step = sf::function([&](auto x) {
    sf::gradient_tape tape;
    auto loss = sf::reduce_sum(w * u * x);
    opt.apply_gradients(tape.gradient(loss, w, u), w);  // fix: ..., w, u)
    return loss;
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  (void)step(x);
  return 0;
}
