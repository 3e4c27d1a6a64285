// Tests for plan/path_counts.hpp: one constant evaluation per graph counts the paths from the
// outputs to each node type, for graphs of many hundreds of distinct node types too (the entries are
// found by a hash of their structure; found by a scan, 576 types of a 200-node chain's gradient
// passed g++'s 33,554,432 constexpr operations and the gradient did not compile).
#include <catch2/catch.hpp>

#include <cstddef>
#include <tuple>
#include <utility>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
namespace pd = sf::plan::detail;

namespace {
using x = sf::graph::argument<0, float, sf::shape<sf::dyn>>;

// x * K for K in [Lo, Hi), summed as a balanced tree: Hi - Lo distinct products (each its own
// static literal), Hi - Lo - 1 distinct sums, depth log2(Hi - Lo)
template <int Lo, int Hi>
auto wide_sum() {
  if constexpr (Hi - Lo == 1) return x{} * sf::static_value<Lo>{};
  else return wide_sum<Lo, (Lo + Hi) / 2>() + wide_sum<(Lo + Hi) / 2, Hi>();
}
}  // namespace

TEST_CASE("path counts over 768 distinct node types in one constant evaluation", "[plan][repeats]") {
  using wide = decltype(wide_sum<0, 256>());
  // 256 products, 255 sums, 256 literals and the argument (the scan took past the limit here)
  STATIC_REQUIRE(pd::path_table<std::tuple<wide>>::size == 256 + 255 + 256 + 1);
  STATIC_REQUIRE_FALSE(pd::holds_inner_repeats<std::tuple<wide>>::value);
  // the argument is read by every product; one product by one path
  STATIC_REQUIRE(pd::counted_paths<x, std::tuple<wide>>::value == 2);
  STATIC_REQUIRE(pd::counted_paths<decltype(x{} * sf::static_value<7>{}), std::tuple<wide>>::value == 1);
  // read twice from two outputs: two paths to each node
  STATIC_REQUIRE(pd::holds_inner_repeats<std::tuple<wide, wide>>::value);
  STATIC_REQUIRE(pd::counted_paths<decltype(x{} * sf::static_value<7>{}), std::tuple<wide, wide>>::value == 2);
  // a node type the outputs never reach
  STATIC_REQUIRE(pd::counted_paths<decltype(x{} * sf::static_value<300>{}), std::tuple<wide>>::value == 0);
  // types of one structure (a sum and a product of the same operands) share a hash, not an entry;
  // leaves hash their names
  using a_sum = decltype(x{} + x{});
  using a_product = decltype(x{} * x{});
  STATIC_REQUIRE(pd::type_node<a_sum>::entry.hash == pd::type_node<a_product>::entry.hash);
  STATIC_REQUIRE(pd::type_node<sf::graph::static_literal<float, 1>>::entry.hash != pd::type_node<sf::graph::static_literal<float, 2>>::entry.hash);
  STATIC_REQUIRE(pd::path_table<std::tuple<decltype(std::declval<a_sum>() - std::declval<a_product>())>>::size == 4);
  STATIC_REQUIRE(pd::counted_paths<a_sum, std::tuple<decltype(std::declval<a_sum>() - std::declval<a_product>())>>::value == 1);
}
