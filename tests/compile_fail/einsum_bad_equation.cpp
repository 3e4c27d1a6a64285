// expect: static assertion failed: staticflow: einsum: an equation holds letters, '\.\.\.', ',' between operands and '->' only
// A ';' where numpy's equations put ','.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto a, auto b) { return sf::einsum<"bij;bjk->bik">(a, b); });  // fix: sf::einsum<"bij,bjk->bik">
  xt::xtensor<float, 3> a = xt::ones<float>({2, 2, 3}), b = xt::ones<float>({2, 3, 2});
  return f.get_concrete_function(a, b).graph_string().empty();
}
