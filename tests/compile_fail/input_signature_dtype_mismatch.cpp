// expect: staticflow: argument 0 is int32\[None\], the input signature expects float32\[None\] \(dtype int32 is not float32\)
// The seed's third call: an int32 vector against TensorSpec(shape=[None], dtype=tf.float32). TensorFlow
// raises a TypeError at the call; here the argument's type already says it, so it does not compile.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto h = sf::function<sf::spec<float, sf::dyn>>([](auto x) { return x * 2.f; });
  h(xt::xtensor<int, 1>{1, 2});  // fix: h(xt::xtensor<float, 1>{1, 2});
}
