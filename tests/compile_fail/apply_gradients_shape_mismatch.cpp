// expect: static assertion failed: staticflow: apply_gradients\(grads, vars...\): a gradient's dtype or shape does not fit its variable \(the k-th gradient goes to the k-th variable\)
// The gradients are given in the order of the variables: here the bias's gradient goes to w.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  sf::variable<float, 3> w{{1.f, 2.f, 3.f}};
  sf::variable<float, 2> b{{0.f, 0.f}};
  sf::sgd opt{0.1f};
  auto step = sf::function([&](auto x) {
    sf::gradient_tape tape;
    auto loss = sf::reduce_sum(w * x) + sf::reduce_sum(b);
    auto [dw, db] = tape.gradient(loss, w, b);
    opt.apply_gradients(std::tuple{db, dw}, w, b);  // fix: std::tuple{dw, db}
    return loss;
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, 2.f, 3.f};
  (void)step(x);
  return 0;
}
