// expect: static assertion failed: staticflow: a pooling takes its input, sf::ksize<...>, then at most one sf::strides<...>, at most one sf::padding \(valid or same\) and at most one sf::data_format
// Two paddings given to one pooling.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto image) {
    return sf::avg_pool2d(image, sf::ksize<2>, sf::padding::same, sf::padding::valid);  // fix: one of them
  });
  xt::xtensor_fixed<float, xt::xshape<1, 8, 8, 3>> image{};
  auto y = f(image);
  return static_cast<int>(y(0, 0, 0, 0));
}
