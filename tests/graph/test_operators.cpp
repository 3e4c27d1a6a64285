// The node types, dtypes and shapes that operators and TensorFlow-named functions build from
// symbolic tensors and weakly typed C++ literals, and how a symbolic tensor prints.
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>
#include <type_traits>

#include "staticflow/core/static_value.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/print.hpp"

namespace sf = staticflow;
namespace g = staticflow::graph;
namespace op = staticflow::op;
using std::int32_t;
using std::int64_t;

namespace {
using fx23 = g::argument<0, float, sf::shape<2, 3>>;
using fy3 = g::argument<1, float, sf::shape<3>>;
using ix23 = g::argument<0, int32_t, sf::shape<2, 3>>;
using dz = g::argument<2, double, sf::shape<>>;
using bb23 = g::argument<3, bool, sf::shape<2, 3>>;
using fdyn = g::argument<4, float, sf::shape<sf::dyn, 3>>;

template <class N>
std::string str(const N& n) {
  std::ostringstream os;
  os << n;
  return os.str();
}

template <class N, class T, class S>
constexpr bool has_spec = std::is_same_v<typename N::value_type, T> && std::is_same_v<typename N::shape_type, S>;
}  // namespace

TEST_CASE("arguments are symbolic tensors with the spec of their type", "[graph][operators]") {
  STATIC_REQUIRE(sf::symbolic<fx23>);
  STATIC_REQUIRE(sf::symbolic<const fx23&>);
  STATIC_REQUIRE(sf::symbolic<g::literal<float>>);
  STATIC_REQUIRE_FALSE(sf::symbolic<float>);
  STATIC_REQUIRE_FALSE(sf::symbolic<sf::spec<float, 2, 3>>);
  STATIC_REQUIRE(fx23::index == 0);
  STATIC_REQUIRE(std::is_same_v<sf::spec_of_node_t<fx23>, sf::spec<float, 2, 3>>);
  STATIC_REQUIRE(std::is_same_v<sf::spec_of_node_t<const fdyn&>, sf::spec<float, sf::dyn, 3>>);
  STATIC_REQUIRE(std::is_empty_v<fx23>);
}

TEST_CASE("x * 2 keeps float32 and the literal holds 2.0f", "[graph][operators]") {
  const fx23 x{};
  const auto y = x * 2;
  STATIC_REQUIRE(std::is_same_v<decltype(y), const g::binary<op::multiply, fx23, g::literal<float>>>);
  STATIC_REQUIRE(has_spec<decltype(y), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(y)::compute_type, float>);
  CHECK(y.b.value == 2.0f);

  // A literal on the left.
  const auto z = 0.5 - x;
  STATIC_REQUIRE(std::is_same_v<decltype(z), const g::binary<op::subtract, g::literal<float>, fx23>>);
  CHECK(z.a.value == 0.5f);

  // A literal's value is a run-time member: a new value is the same type.
  STATIC_REQUIRE(std::is_same_v<decltype(x * 2), decltype(x * 3)>);
  CHECK((x * 3).b.value == 3.0f);
}

TEST_CASE("a floating literal next to an int tensor makes a float32 node", "[graph][operators]") {
  const ix23 i{};
  const auto y = i * 2.5;
  STATIC_REQUIRE(std::is_same_v<decltype(y), const g::binary<op::multiply, ix23, g::literal<float>>>);
  STATIC_REQUIRE(std::is_same_v<decltype(y)::compute_type, float>);
  STATIC_REQUIRE(has_spec<decltype(y), float, sf::shape<2, 3>>);
  CHECK(y.b.value == 2.5f);

  // An integer literal keeps int32.
  const auto k = i + 7;
  STATIC_REQUIRE(has_spec<decltype(k), int32_t, sf::shape<2, 3>>);
  CHECK(k.b.value == 7);
  // Integer division stays integer.
  STATIC_REQUIRE(has_spec<decltype(i / 2), int32_t, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(i % 2), int32_t, sf::shape<2, 3>>);
}

TEST_CASE("two tensors promote their dtypes and broadcast their shapes", "[graph][operators]") {
  const fx23 x{};
  const fy3 y{};
  const ix23 i{};
  const dz d{};

  STATIC_REQUIRE(has_spec<decltype(x + y), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(y + x), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(x + y), g::binary<op::add, fx23, fy3>>);
  // int32 with float64 -> float64; a 0-d tensor broadcasts to anything.
  STATIC_REQUIRE(has_spec<decltype(i * d), double, sf::shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(i * d)::compute_type, double>);
  // int32 with float32 -> float32.
  STATIC_REQUIRE(has_spec<decltype(i - x), float, sf::shape<2, 3>>);
  // dyn dimensions: (None, 3) with (3,) -> (None, 3); with (2, 3) -> (2, 3).
  const fdyn f{};
  STATIC_REQUIRE(has_spec<decltype(f + y), float, sf::shape<sf::dyn, 3>>);
  STATIC_REQUIRE(has_spec<decltype(f + x), float, sf::shape<2, 3>>);
  // Nested expressions carry their children by value.
  const auto e = (x + y) * x;
  STATIC_REQUIRE(std::is_same_v<decltype(e), const g::binary<op::multiply, g::binary<op::add, fx23, fy3>, fx23>>);
}

TEST_CASE("comparisons give bool nodes computed in the promoted dtype", "[graph][operators]") {
  const fx23 x{};
  const ix23 i{};
  const bb23 b{};

  const auto gt = x > 0;
  STATIC_REQUIRE(std::is_same_v<decltype(gt), const g::binary<op::greater, fx23, g::literal<float>>>);
  STATIC_REQUIRE(has_spec<decltype(gt), bool, sf::shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(gt)::compute_type, float>);
  CHECK(gt.b.value == 0.0f);

  STATIC_REQUIRE(has_spec<decltype(i < 2.5), bool, sf::shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(i < 2.5)::compute_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(i <= x), g::binary<op::less_equal, ix23, fx23>>);
  STATIC_REQUIRE(std::is_same_v<decltype(i >= x)::op_type, op::greater_equal>);
  STATIC_REQUIRE(std::is_same_v<decltype(i == 1)::op_type, op::equal>);
  STATIC_REQUIRE(std::is_same_v<decltype(i != 1)::op_type, op::not_equal>);
  STATIC_REQUIRE(has_spec<decltype(b == b), bool, sf::shape<2, 3>>);

  // Logic on bool tensors.
  STATIC_REQUIRE(std::is_same_v<decltype(b && (x > 0)), g::binary<op::logical_and, bb23, decltype(x > 0)>>);
  STATIC_REQUIRE(has_spec<decltype(b || b), bool, sf::shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(!b), g::unary<op::logical_not, bb23>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::logical_not(b)), g::unary<op::logical_not, bb23>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::logical_or(b, true)),
                                g::binary<op::logical_or, bb23, g::literal<bool>>>);
}

TEST_CASE("unary operators and functions", "[graph][operators]") {
  const fx23 x{};
  const ix23 i{};
  STATIC_REQUIRE(std::is_same_v<decltype(-x), g::unary<op::negate, fx23>>);
  STATIC_REQUIRE(std::is_same_v<decltype(+x), fx23>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::negative(i)), g::unary<op::negate, ix23>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::abs(i)), g::unary<op::abs, ix23>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::sqrt(x)), g::unary<op::sqrt, fx23>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::exp(x)), g::unary<op::exp, fx23>>);
  STATIC_REQUIRE(has_spec<decltype(sf::sigmoid(x)), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(sf::relu(i)), int32_t, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(sf::square(i)), int32_t, sf::shape<2, 3>>);
}

TEST_CASE("TensorFlow-named binary functions build the same nodes as the operators", "[graph][operators]") {
  const fx23 x{};
  const fy3 y{};
  const ix23 i{};
  STATIC_REQUIRE(std::is_same_v<decltype(sf::add(x, y)), decltype(x + y)>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::multiply(x, 2)), decltype(x * 2)>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::truncatemod(i, 3)), decltype(i % 3)>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::greater(x, y)), decltype(x > y)>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::floordiv(i, 2)), g::binary<op::floordiv, ix23, g::literal<int32_t>>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::floormod(2, i)), g::binary<op::floormod, g::literal<int32_t>, ix23>>);
  STATIC_REQUIRE(has_spec<decltype(sf::pow(i, 0.5)), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(sf::maximum(x, y)), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::minimum(x, y))::op_type, op::minimum>);
  CHECK(sf::pow(i, 0.5).b.value == 0.5f);
}

TEST_CASE("where builds a select node", "[graph][operators]") {
  const fx23 x{};
  const fy3 y{};
  const ix23 i{};
  const bb23 b{};

  const auto s = sf::where(x > 0, x, 0);
  STATIC_REQUIRE(std::is_same_v<decltype(s), const g::select<decltype(x > 0), fx23, g::literal<float>>>);
  STATIC_REQUIRE(has_spec<decltype(s), float, sf::shape<2, 3>>);
  CHECK(s.b.value == 0.0f);

  // The branches promote and all three broadcast.
  STATIC_REQUIRE(has_spec<decltype(sf::where(b, i, y)), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(sf::where(b, i, 2.5)), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(sf::where(b, i, 2)), int32_t, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(sf::where(y > 0, x, i)), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(sf::where(g::argument<5, bool, sf::shape<4, 1, 1>>{}, x, y)), float,
                          sf::shape<4, 2, 3>>);
  // A literal branch takes its dtype weakly from the other branch.
  STATIC_REQUIRE(std::is_same_v<decltype(sf::where(b, 1, x).a), g::literal<float>>);
  CHECK(sf::where(b, 1, x).a.value == 1.0f);
}

TEST_CASE("cast builds a convert node to the canonical dtype", "[graph][operators]") {
  const fx23 x{};
  const ix23 i{};
  STATIC_REQUIRE(std::is_same_v<decltype(sf::cast<float>(i)), g::cast<float, ix23>>);
  STATIC_REQUIRE(has_spec<decltype(sf::cast<float>(i)), float, sf::shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::cast<int>(x)), g::cast<int32_t, fx23>>);
  STATIC_REQUIRE(std::is_same_v<decltype(sf::cast<long long>(x)), g::cast<int64_t, fx23>>);
  STATIC_REQUIRE(has_spec<decltype(sf::cast<bool>(x)), bool, sf::shape<2, 3>>);
  STATIC_REQUIRE(has_spec<decltype(sf::cast<double>(x * i)), double, sf::shape<2, 3>>);

  // The scalar conversion: float to int truncates, to bool is `!= 0`.
  STATIC_REQUIRE(g::cast<int32_t, fx23>::apply(-2.75f) == -2);
  STATIC_REQUIRE(g::cast<int32_t, fx23>::apply(2.75f) == 2);
  STATIC_REQUIRE(g::cast<bool, fx23>::apply(0.0f) == false);
  STATIC_REQUIRE(g::cast<bool, fx23>::apply(-0.0f) == false);
  STATIC_REQUIRE(g::cast<bool, fx23>::apply(0.25f) == true);
  STATIC_REQUIRE(g::cast<bool, ix23>::apply(-3) == true);
  STATIC_REQUIRE(g::cast<float, ix23>::apply(7) == 7.0f);
}

TEST_CASE("a static value as an operand is a literal whose value is part of its type", "[graph][operators]") {
  const fx23 x{};
  const ix23 i{};
  const bb23 b{};

  const auto y = x * sf::static_value<3>{};
  STATIC_REQUIRE(std::is_same_v<decltype(y), const g::binary<op::multiply, fx23, g::static_literal<float, 3>>>);
  CHECK(y.b.value == 3.0f);  // a literal in every other respect
  STATIC_REQUIRE(decltype(y.b)::constant == 3.0f);

  const auto k = sf::static_value<3>{} + i;
  STATIC_REQUIRE(std::is_same_v<decltype(k), const g::binary<op::add, g::static_literal<int32_t, 3>, ix23>>);
  CHECK(k.a.value == 3);

  const auto l = b && std::true_type{};
  STATIC_REQUIRE(std::is_same_v<decltype(l), const g::binary<op::logical_and, bb23, g::static_literal<bool, true>>>);
  CHECK(l.b.value == true);

  // A static value is a constant the compiler sees (new code per value); a plain literal is a
  // run-time value of the graph (one graph for every value).
  STATIC_REQUIRE_FALSE(std::is_same_v<decltype(x * sf::static_value<3>{}), decltype(x * sf::static_value<4>{})>);
  STATIC_REQUIRE(std::is_same_v<decltype(x * 3), decltype(x * 4)>);
  CHECK((i * sf::static_value<-4>{}).b.value == -4);
  CHECK(str(x * sf::static_value<3>{}) == str(x * 3));
  // constants fold while tracing, as plain literals do
  const auto folded = sf::static_value<6>{} * sf::abs(sf::static_value<-7>{});
  STATIC_REQUIRE(std::is_same_v<decltype(folded), const g::literal<int32_t>>);
  CHECK(folded.value == 42);
}

TEST_CASE("2_c is a static value: an int, or a long long when it does not fit", "[graph][operators]") {
  using namespace sf::literals;
  STATIC_REQUIRE(std::is_same_v<decltype(2_c), std::integral_constant<int, 2>>);
  STATIC_REQUIRE(std::is_same_v<decltype(0_c), std::integral_constant<int, 0>>);
  STATIC_REQUIRE(std::is_same_v<decltype(2147483647_c), std::integral_constant<int, 2147483647>>);
  STATIC_REQUIRE(std::is_same_v<decltype(3'000'000'000_c), std::integral_constant<long long, 3000000000LL>>);
  STATIC_REQUIRE(std::is_same_v<decltype(9223372036854775807_c),
                                std::integral_constant<long long, 9223372036854775807LL>>);
  const ix23 i{};
  STATIC_REQUIRE(std::is_same_v<decltype(i % 2_c), g::binary<op::mod, ix23, g::static_literal<int32_t, 2>>>);
}

namespace {
template <class A, class B>
concept addable = requires(const A& a, const B& b) { a + b; };
template <class A>
concept negatable = requires(const A& a) { -a; };
}  // namespace

TEST_CASE("the operators only take part when an operand is symbolic", "[graph][operators]") {
  STATIC_REQUIRE(addable<fx23, int>);
  STATIC_REQUIRE(addable<double, fx23>);
  STATIC_REQUIRE(addable<fx23, fy3>);
  STATIC_REQUIRE(addable<fx23, sf::static_value<2>>);
  // C++ text is a string literal: it takes part next to a string tensor (next to a number tensor
  // it is a compile error naming both dtypes: tests/compile_fail/string_plus_number.cpp)
  STATIC_REQUIRE(addable<g::argument<0, sf::string, sf::shape<2>>, std::string>);
  STATIC_REQUIRE(addable<const char*, g::argument<0, sf::string, sf::shape<2>>>);
  STATIC_REQUIRE_FALSE(addable<fx23, std::vector<float>>);
  STATIC_REQUIRE_FALSE(addable<fx23, sf::spec<float, 2, 3>>);
  STATIC_REQUIRE_FALSE(sf::detail::binary_operands<sf::static_value<1>, sf::static_value<2>>);
  STATIC_REQUIRE_FALSE(sf::detail::binary_operands<int, double>);
  STATIC_REQUIRE(sf::detail::binary_operands<sf::static_value<1>, fx23>);
  STATIC_REQUIRE(negatable<fx23>);
  STATIC_REQUIRE_FALSE(negatable<sf::spec<float>>);
  // Plain C++ arithmetic is untouched.
  STATIC_REQUIRE(std::is_same_v<decltype(1 + 2), int>);
}

TEST_CASE("operator<< prints TensorFlow's description of a symbolic tensor", "[graph][print]") {
  const fx23 x{};
  const fy3 y{};
  const ix23 i{};
  const fdyn f{};

  CHECK(str(x) == "Tensor(\"arg0:0\", shape=(2, 3), dtype=float32)");
  CHECK(str(y) == "Tensor(\"arg1:0\", shape=(3,), dtype=float32)");
  CHECK(str(dz{}) == "Tensor(\"arg2:0\", shape=(), dtype=float64)");
  CHECK(str(f) == "Tensor(\"arg4:0\", shape=(None, 3), dtype=float32)");
  CHECK(str(x * y) == "Tensor(\"mul:0\", shape=(2, 3), dtype=float32)");
  CHECK(str(i * 2.5) == "Tensor(\"mul:0\", shape=(2, 3), dtype=float32)");
  CHECK(str(x > 0) == "Tensor(\"gt:0\", shape=(2, 3), dtype=bool)");
  CHECK(str(-i) == "Tensor(\"neg:0\", shape=(2, 3), dtype=int32)");
  CHECK(str(f + y) == "Tensor(\"add:0\", shape=(None, 3), dtype=float32)");
  CHECK(str(sf::cast<int64_t>(x)) == "Tensor(\"convert:0\", shape=(2, 3), dtype=int64)");
  CHECK(str(sf::where(x > 0, x, 0)) == "Tensor(\"select:0\", shape=(2, 3), dtype=float32)");
  CHECK(str(g::literal<double>(1.5)) == "Tensor(\"Const:0\", shape=(), dtype=float64)");
}
