// expect: static assertion failed: staticflow: boolean_mask: the mask's shape is not the tensor's shape at the masked axes
// A mask over the columns given for the rows: the mask's shape must be tensor.shape[axis:axis + rank(mask)].
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto keep) {
    return sf::boolean_mask(x, keep);  // fix: sf::boolean_mask(x, keep, sf::axes<1>{}) masks the columns
  });
  xt::xtensor_fixed<float, xt::xshape<4, 3>> x{};
  xt::xtensor_fixed<bool, xt::xshape<3>> keep{true, false, true};
  auto y = f(x, keep);
  return static_cast<int>(y.size());
}
