// expect: static assertion failed: staticflow: sf::onnx::export_model: this op has no ONNX mapping
// The exporter lowers each node type it knows (io/onnx.hpp); a node type it does not know (here a
// user's own op; also one a later release adds before its lowering) stops the build, and the
// diagnostic names the type (the template argument of no_onnx_mapping). Fix: write the op with
// the ops that export (docs/deployment.md lists them), or add its lowering to io/onnx.hpp.
#include <cstddef>
#include <string>
#include <tuple>

#include <staticflow/io/onnx.hpp>
namespace sf = staticflow;

struct my_op : sf::node<my_op> {
  using value_type = float;
  using shape_type = sf::shape<2>;
  constexpr std::tuple<> children() const { return {}; }
  std::string name() const { return "my_op"; }
};

// What export_model needs of a concrete function, holding a graph made of my_op.
struct my_function {
  using signature_type = std::tuple<>;
  static constexpr std::size_t output_count = 1;
  const sf::detail::effect_program* effects() const { return nullptr; }
  const my_op& graph() const { return op; }
  my_op op;
};

int main() {
  sf::onnx::to_model(my_function{});
  return 0;
}
