// Tests for graph/child_refs.hpp: a node's children are references to the node's own members (no
// copies), usable as a tuple (std::tuple_size / std::tuple_element), through apply_children and
// child<K>, which also take a std::tuple; nodes without children give an empty set.
#include <catch2/catch.hpp>

#include <staticflow/staticflow.hpp>

#include <tuple>
#include <type_traits>

namespace sf = staticflow;

namespace {
using vec = sf::graph::argument<0, float, sf::shape<3>>;
using num = sf::graph::argument<1, float, sf::shape<>>;
}  // namespace

TEST_CASE("children are references to the node's operands", "[child_refs]") {
  const auto product = vec{} * num{};
  const auto kids = sf::graph::children(product);
  using kids_type = std::remove_cvref_t<decltype(kids)>;
  STATIC_REQUIRE(std::tuple_size_v<kids_type> == 2);
  STATIC_REQUIRE(std::is_same_v<std::tuple_element_t<0, kids_type>, const vec&>);
  STATIC_REQUIRE(std::is_same_v<std::tuple_element_t<1, kids_type>, const num&>);
  CHECK(&sf::graph::child<0>(kids) == &product.a);
  CHECK(&sf::graph::child<1>(kids) == &product.b);
  const auto where = sf::graph::apply_children(
      [&](const vec& a, const num& b) { return (&a == &product.a) + 2 * (&b == &product.b); }, kids);
  CHECK(where == 3);

  // a select has three children, in the order (condition, then, else)
  const auto chosen = sf::where(vec{} > num{}, vec{}, num{});
  const auto three = sf::graph::children(chosen);
  STATIC_REQUIRE(std::tuple_size_v<std::remove_cvref_t<decltype(three)>> == 3);
  CHECK(&sf::graph::child<0>(three) == &chosen.c);
  CHECK(&sf::graph::child<2>(three) == &chosen.b);
}

TEST_CASE("leaves have no children; std::tuple goes through the same calls", "[child_refs]") {
  const auto none = sf::graph::children(vec{});
  STATIC_REQUIRE(std::tuple_size_v<std::remove_cvref_t<decltype(none)>> == 0);
  CHECK(sf::graph::apply_children([](auto&&... k) { return static_cast<int>(sizeof...(k)); }, none) == 0);

  const int a = 4;
  const double b = 2.5;
  const std::tuple<const int&, const double&> as_tuple{a, b};
  CHECK(sf::graph::apply_children([](int x, double y) { return x * y; }, as_tuple) == 10.0);
  CHECK(&sf::graph::child<1>(as_tuple) == &b);
  const auto made = sf::graph::make_child_refs(a, b);
  STATIC_REQUIRE(std::is_same_v<std::tuple_element_t<0, std::remove_cvref_t<decltype(made)>>, const int&>);
  CHECK(&sf::graph::child<0>(made) == &a);
  CHECK(sf::graph::apply_children([](int x, double y) { return x + y; }, made) == 6.5);
}
