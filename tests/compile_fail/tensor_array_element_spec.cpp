// expect: staticflow: tensor_array::write: the element is float32\[2\], the array holds int32\[\] elements
// Every element of a tensor array has the spec of the first one written (tf.TensorArray's element_shape); fix: sf::tensor_array<float> and elements of one shape.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto x) { return sf::tensor_array<int>{}.write(0, x).stack(); });
  xt::xtensor_fixed<float, xt::xshape<2>> x = {1, 2};
  (void)f(x);
}
