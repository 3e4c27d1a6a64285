// expect: static assertion failed: staticflow: depthwise_conv2d: the filter's in_channels \(dim 2\) differ from the image's channels \(dim 3\)
// A depthwise filter is [height, width, in_channels, multiplier]: its dim 2 must be the image's 3 channels.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto k) { return sf::depthwise_conv2d(x, k, sf::padding::same); });
  auto& c = f.get_concrete_function(sf::spec<float, 1, 8, 8, 3>{}, sf::spec<float, 3, 3, 4, 1>{});  // fix: sf::spec<float, 3, 3, 3, 4>{} for 4 filters per channel
  return c.graph_string().empty();
}
