// Which forward values and adjoints a gradient stores (autodiff/forward_values.hpp): a deep
// elementwise tree that a rule reads is one slot, computed once per call from the slots below it
// and read by the value and by every gradient loop; an adjoint past 8 leaves is one slot for every
// source; small trees stay fused. Values against central differences in float64.
#include <string>

#include "generated_chain.hpp"
#include "gradient_check.hpp"

namespace sf = staticflow;
namespace ad = staticflow::autodiff::detail;
using namespace gradient_check;

namespace {
using arg0 = sf::graph::argument<0, double, sf::shape<sf::dyn>>;
using arg1 = sf::graph::argument<1, double, sf::shape<sf::dyn>>;
using lit = sf::graph::literal<double>;
template <class Op, class A, class B>
using bin = sf::graph::binary<Op, A, B>;
using sum01 = bin<sf::op::add, arg0, arg1>;
using deep = bin<sf::op::add, bin<sf::op::multiply, sum01, sum01>, sum01>;  // 6 leaves
using slot = sf::graph::shared<sf::graph::path_tag<deep, std::index_sequence<>>, sf::graph::stored<deep>>;

std::size_t count_of(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

// bench/compile_time_gen.py's chain, 24 nodes long (generated_chain.hpp)
const auto chain24 = [](auto a, auto b, auto c, auto d) { return generated_chain::chain<24>(a * 0.5, a, b, c, d); };
}  // namespace

TEST_CASE("forward_values: leaf counts, and the children whose values a rule reads") {
  STATIC_REQUIRE(ad::tree_leaf_count<deep>::value == 6);
  STATIC_REQUIRE(ad::fused_leaf_count<deep>::value == 6);
  // a shared node is one read of its slot; a broadcast_like reads its operand, not its reference
  STATIC_REQUIRE(ad::fused_leaf_count<bin<sf::op::multiply, slot, arg0>>::value == 2);
  STATIC_REQUIRE(ad::tree_leaf_count<bin<sf::op::multiply, slot, arg0>>::value == 7);
  STATIC_REQUIRE(ad::fused_leaf_count<sf::graph::broadcast_as<lit, deep>>::value == 1);
  // a product reads each operand where the other can carry a gradient; a sum reads neither
  STATIC_REQUIRE(ad::rule_reads_child_v<bin<sf::op::multiply, deep, arg0>, 0>);
  STATIC_REQUIRE(ad::rule_reads_child_v<bin<sf::op::multiply, deep, arg0>, 1>);
  STATIC_REQUIRE_FALSE(ad::rule_reads_child_v<bin<sf::op::multiply, deep, lit>, 0>);
  STATIC_REQUIRE_FALSE(ad::rule_reads_child_v<bin<sf::op::add, deep, arg0>, 0>);
  STATIC_REQUIRE_FALSE(ad::rule_reads_child_v<bin<sf::op::divide, deep, lit>, 0>);
  STATIC_REQUIRE(ad::rule_reads_child_v<bin<sf::op::divide, deep, lit>, 1>);
  // tanh's rule reads its own value, not its operand; square and sin read the operand
  STATIC_REQUIRE_FALSE(ad::rule_reads_child_v<sf::graph::unary<sf::op::tanh, deep>, 0>);
  STATIC_REQUIRE(ad::rule_reads_child_v<sf::graph::unary<sf::op::square, deep>, 0>);
  STATIC_REQUIRE(ad::rule_reads_child_v<sf::graph::unary<sf::op::sin, deep>, 0>);
  // sqrt's rule reads its value plainly (g * 0.5 / sqrt(a)), so its operand counts as read
  STATIC_REQUIRE(ad::rule_reads_child_v<sf::graph::unary<sf::op::sqrt, deep>, 0>);
}

TEST_CASE("forward_values: a deep product's operand is one slot, read by the value and the gradients") {
  // u (6 leaves) is read by the product's rules: stored once, as is the adjoint of u; v (3
  // leaves) stays fused
  const auto deep_product = [](auto x, auto y) {
    const auto s = x + y;
    const auto u = s * s + s;
    const auto v = x * y + y;
    return u * v;
  };
  const std::size_t n = extent(1, 9);
  const auto x = random_tensor<1>({n}), y = random_tensor<1>({n});
  CHECK(check_gradients(deep_product, x, y) == 2 * n);

  auto vg = sf::value_and_grad<0, 1>(deep_product);
  const std::string listing = vg.get_concrete_function(x, y).graph_string();
  CHECK(count_of(listing, "materialize") == 1);
  CHECK(listing.find("    c:float64[None] = AddV2 a b\n"
                     "    d:float64[None] = Mul c c\n"
                     "    e:float64[None] = AddV2 d c\n"
                     "    f:float64[None] = materialize e\n") != std::string::npos);
  using C = std::remove_cvref_t<decltype(vg.get_concrete_function(x, y))>;
  STATIC_REQUIRE(C::materialized_count == 1);
  const auto before = sf::plan::materialization_counter();
  const auto [value, gx, gy] = vg(x, y);
  CHECK(sf::plan::materialization_counter() - before == 1);  // once per call, for three readers
  const xt::xtensor<double, 1> expected = ((x + y) * (x + y) + (x + y)) * (x * y + y);
  CHECK(xt::allclose(value, expected, 1e-12, 0.0));
  (void)gx;
  (void)gy;

  // small trees stay fused: sum(tanh(x * w + b)) has no slot
  auto small = sf::value_and_grad<1>([](auto x, auto w, auto b) { return sf::reduce_sum(sf::tanh(x * w + b)); });
  CHECK(std::remove_cvref_t<decltype(small.get_concrete_function(x, y, 0.5))>::materialized_count == 1);  // the sum
}

TEST_CASE("forward_values: an adjoint past 8 leaves is one slot for both sources") {
  // the adjoint at sigmoid(x - w) reads the gelu factor and the sigmoid's value: 10 leaves,
  // stored once instead of recomputed in the loops of x's and w's gradients. Also stored: gelu's
  // 1 + tanh(...) (read by the product, 9 leaves), the tanh value and the adjoint that holds it.
  const auto layer = [](auto x, auto w) {
    return sf::reduce_sum(sf::gelu(x * w, sf::tanh_approximation) * sf::sigmoid(x - w) + sf::softplus(x * x * w - 1.0));
  };
  const std::size_t n = extent(1, 9);
  const auto x = random_tensor<1>({n}, -1, 1), w = random_tensor<1>({n}, -1, 1);
  CHECK(check_gradients(layer, x, w) == 2 * n);
  const std::string listing = sf::value_and_grad<0, 1>(layer).get_concrete_function(x, w).graph_string();
  CHECK(count_of(listing, "materialize") == 4);
  CHECK(listing.find("    at:float64[None] = Mul w m\n"
                     "    au:float64[None] = Square o\n"
                     "    av:float64[None] = Sub o au\n"
                     "    aw:float64[None] = Mul at av\n"
                     "    ax:float64[None] = materialize aw\n") != std::string::npos);
}

TEST_CASE("forward_values: a 24-node chain is cut into slots, and its gradient is right") {
  const std::size_t n = extent(1, 9);
  // values kept where exp and tanh stay in range
  const auto a = random_tensor<1>({n}, -0.5, 0.5), b = random_tensor<1>({n}, -0.5, 0.5),
             c = random_tensor<1>({n}, -0.5, 0.5), d = random_tensor<1>({n}, -0.5, 0.5);
  CHECK(check_gradients(chain24, a, b, c, d) == 4 * n);

  auto vg = sf::value_and_grad<0, 1, 2, 3>(chain24);
  const std::string listing = vg.get_concrete_function(a, b, c, d).graph_string();
  // four forward values the rules read (every 5 or 6 nodes), the tanh and exp values and the
  // adjoints at those two nodes (which hold them): each a loop over a few nodes, where the
  // gradient loops recomputed the chain from the arguments
  CHECK(count_of(listing, "materialize") == 8);
  CHECK(listing.find("    j:float64[None] = Sub i b\n"
                     "    k:float64[None] = materialize j\n"
                     "    l:float64[None] = Mul k c\n") != std::string::npos);
  const auto before = sf::plan::materialization_counter();
  (void)vg(a, b, c, d);
  CHECK(sf::plan::materialization_counter() - before == 8);
}
