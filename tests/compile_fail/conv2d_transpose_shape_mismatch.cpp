// expect: static assertion failed: staticflow: conv2d_transpose: the input's shape is not what conv2d with these filters, strides and padding makes of output_shape
// A stride-2 SAME conv2d makes [1, 4, 4, 8] of a [1, 8, 8, 3] image, not [1, 8, 8, 8]: the transpose cannot go back.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto up = sf::function([](auto y, auto f) {
    return sf::conv2d_transpose(y, f, sf::shape<1, 8, 8, 3>{}, sf::padding::same, sf::strides<2>);  // fix: y of shape [1, 4, 4, 8]
  });
  auto& c = up.get_concrete_function(sf::spec<float, 1, 8, 8, 8>{}, sf::spec<float, 3, 3, 3, 8>{});
  return c.graph_string().empty();
}
