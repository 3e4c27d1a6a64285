// Element types: names, canonical dtypes of C++ types, promotion, weakly typed literals.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "staticflow/core/dtype.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/operators.hpp"

namespace sf = staticflow;
using std::int32_t;
using std::int64_t;

TEST_CASE("dtype names are TensorFlow's", "[core][dtype]") {
  CHECK(sf::dtype_name<bool> == std::string_view("bool"));
  CHECK(sf::dtype_name<int32_t> == std::string_view("int32"));
  CHECK(sf::dtype_name<int64_t> == std::string_view("int64"));
  CHECK(sf::dtype_name<float> == std::string_view("float32"));
  CHECK(sf::dtype_name<double> == std::string_view("float64"));
}

TEST_CASE("dtype concepts classify the five element types", "[core][dtype]") {
  STATIC_REQUIRE(sf::dtype<bool>);
  STATIC_REQUIRE(sf::dtype<int32_t>);
  STATIC_REQUIRE(sf::dtype<int64_t>);
  STATIC_REQUIRE(sf::dtype<float>);
  STATIC_REQUIRE(sf::dtype<double>);
  STATIC_REQUIRE_FALSE(sf::dtype<unsigned>);
  STATIC_REQUIRE_FALSE(sf::dtype<std::int16_t>);
  STATIC_REQUIRE_FALSE(sf::dtype<char>);
  STATIC_REQUIRE_FALSE(sf::dtype<long double>);
  STATIC_REQUIRE_FALSE(sf::dtype<const float>);

  STATIC_REQUIRE_FALSE(sf::numeric_dtype<bool>);
  STATIC_REQUIRE(sf::numeric_dtype<int32_t>);
  STATIC_REQUIRE(sf::numeric_dtype<double>);

  STATIC_REQUIRE(sf::floating_dtype<float>);
  STATIC_REQUIRE(sf::floating_dtype<double>);
  STATIC_REQUIRE_FALSE(sf::floating_dtype<int64_t>);
  STATIC_REQUIRE_FALSE(sf::floating_dtype<bool>);

  STATIC_REQUIRE(sf::integer_dtype<int32_t>);
  STATIC_REQUIRE(sf::integer_dtype<int64_t>);
  STATIC_REQUIRE_FALSE(sf::integer_dtype<bool>);
  STATIC_REQUIRE_FALSE(sf::integer_dtype<float>);
}

TEST_CASE("canonical_dtype_t maps C++ arithmetic types to dtypes", "[core][dtype]") {
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<bool>, bool>);
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<int>, int32_t>);
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<long long>, int64_t>);
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<float>, float>);
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<double>, double>);
  // cv-ref qualifiers are ignored.
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<const int&>, int32_t>);
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<volatile double>, double>);
  // `long` is int64 on LP64 targets.
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<long>,
                                std::conditional_t<sizeof(long) == 8, int64_t, int32_t>>);
  // Types with no dtype map to void.
  STATIC_REQUIRE(std::is_void_v<sf::canonical_dtype_t<unsigned>>);
  STATIC_REQUIRE(std::is_void_v<sf::canonical_dtype_t<unsigned long long>>);
  STATIC_REQUIRE(std::is_void_v<sf::canonical_dtype_t<short>>);
  STATIC_REQUIRE(std::is_void_v<sf::canonical_dtype_t<signed char>>);
  STATIC_REQUIRE(std::is_void_v<sf::canonical_dtype_t<long double>>);
  STATIC_REQUIRE(std::is_void_v<sf::canonical_dtype_t<int*>>);
}

namespace {
template <class A, class B, class Expected>
constexpr bool promotes_to() {
  return std::is_same_v<sf::promote_t<A, B>, Expected> && std::is_same_v<sf::promote_t<B, A>, Expected>;
}
}  // namespace

TEST_CASE("promote_t follows JAX's lattice", "[core][dtype]") {
  // Same type.
  STATIC_REQUIRE(promotes_to<bool, bool, bool>());
  STATIC_REQUIRE(promotes_to<int32_t, int32_t, int32_t>());
  STATIC_REQUIRE(promotes_to<double, double, double>());
  // bool with anything takes the other type.
  STATIC_REQUIRE(promotes_to<bool, int32_t, int32_t>());
  STATIC_REQUIRE(promotes_to<bool, int64_t, int64_t>());
  STATIC_REQUIRE(promotes_to<bool, float, float>());
  STATIC_REQUIRE(promotes_to<bool, double, double>());
  // Integers widen.
  STATIC_REQUIRE(promotes_to<int32_t, int64_t, int64_t>());
  // An integer meeting a float takes the float's type, however wide the integer.
  STATIC_REQUIRE(promotes_to<int32_t, float, float>());
  STATIC_REQUIRE(promotes_to<int64_t, float, float>());
  STATIC_REQUIRE(promotes_to<int32_t, double, double>());
  STATIC_REQUIRE(promotes_to<int64_t, double, double>());
  // Floats widen.
  STATIC_REQUIRE(promotes_to<float, double, double>());
}

namespace {
template <class T, class Literal>
using weak_t = typename sf::detail::weak_literal_dtype<T, Literal>::type;
}  // namespace

TEST_CASE("weak_literal_dtype: a C++ literal keeps the tensor's dtype where it can", "[core][dtype]") {
  // int tensor * 2 stays int32; * 2LL too (the literal is weak).
  STATIC_REQUIRE(std::is_same_v<weak_t<int32_t, int>, int32_t>);
  STATIC_REQUIRE(std::is_same_v<weak_t<int32_t, long long>, int32_t>);
  STATIC_REQUIRE(std::is_same_v<weak_t<int64_t, int>, int64_t>);
  // A floating literal next to an integer tensor makes float32, whatever its C++ type.
  STATIC_REQUIRE(std::is_same_v<weak_t<int32_t, double>, float>);
  STATIC_REQUIRE(std::is_same_v<weak_t<int64_t, double>, float>);
  STATIC_REQUIRE(std::is_same_v<weak_t<int32_t, float>, float>);
  // ... and next to a bool tensor too.
  STATIC_REQUIRE(std::is_same_v<weak_t<bool, double>, float>);
  // An integer literal next to a bool tensor makes int32.
  STATIC_REQUIRE(std::is_same_v<weak_t<bool, int>, int32_t>);
  STATIC_REQUIRE(std::is_same_v<weak_t<bool, long long>, int32_t>);
  // A float tensor keeps its width: float64 * 2.f stays float64, float32 * 2.0 stays float32.
  STATIC_REQUIRE(std::is_same_v<weak_t<double, float>, double>);
  STATIC_REQUIRE(std::is_same_v<weak_t<float, double>, float>);
  STATIC_REQUIRE(std::is_same_v<weak_t<float, int>, float>);
  STATIC_REQUIRE(std::is_same_v<weak_t<double, int>, double>);
  // A bool literal never changes the tensor's dtype.
  STATIC_REQUIRE(std::is_same_v<weak_t<int32_t, bool>, int32_t>);
  STATIC_REQUIRE(std::is_same_v<weak_t<bool, bool>, bool>);
}

TEST_CASE("weak literals in expressions on symbolic tensors", "[core][dtype]") {
  using sf::graph::argument;
  const argument<0, int32_t, sf::shape<4>> i{};
  const argument<1, double, sf::shape<4>> d{};
  const argument<2, bool, sf::shape<4>> b{};

  const auto i2 = i * 2;
  STATIC_REQUIRE(std::is_same_v<decltype(i2)::value_type, int32_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(i2.b), sf::graph::literal<int32_t>>);
  CHECK(i2.b.value == 2);

  const auto i25 = i * 2.5;
  STATIC_REQUIRE(std::is_same_v<decltype(i25)::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<decltype(i25.b), sf::graph::literal<float>>);
  CHECK(i25.b.value == 2.5f);

  const auto d2 = d * 2.f;
  STATIC_REQUIRE(std::is_same_v<decltype(d2)::value_type, double>);
  STATIC_REQUIRE(std::is_same_v<decltype(d2.b), sf::graph::literal<double>>);
  CHECK(d2.b.value == 2.0);

  // A literal on the left is weak as well.
  const auto l = 3 - i;
  STATIC_REQUIRE(std::is_same_v<decltype(l)::value_type, int32_t>);
  STATIC_REQUIRE(std::is_same_v<decltype(l.a), sf::graph::literal<int32_t>>);
  CHECK(l.a.value == 3);

  const auto bi = b + 1;
  STATIC_REQUIRE(std::is_same_v<decltype(bi)::value_type, int32_t>);
  CHECK(bi.b.value == 1);
}
