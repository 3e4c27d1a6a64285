// expect: static assertion failed: staticflow: conv2d_transpose: output_shape must be a static sf::shape<batch, height, width, channels>, or sf::shape_of\(a tensor\) for run-time extents
// A run-time height in a written-out output_shape: the output's extents must come from the type or from a tensor's shape.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto up = sf::function([](auto y, auto f) {
    return sf::conv2d_transpose(y, f, sf::shape<1, sf::dyn, 8, 3>{}, sf::padding::same, sf::strides<2>);  // fix: sf::shape_of(skip)
  });
  auto& c = up.get_concrete_function(sf::spec<float, 1, 4, 4, 8>{}, sf::spec<float, 3, 3, 3, 8>{});
  return c.graph_string().empty();
}
