// Shapes, broadcasting (static and at run time), specs and static values, and their strings.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#include "staticflow/core/broadcast.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/core/static_value.hpp"

namespace sf = staticflow;
using sf::dyn;
using sf::shape;

TEST_CASE("shape: rank, dims, size and is_static", "[core][shape]") {
  STATIC_REQUIRE(shape<>::rank == 0);
  STATIC_REQUIRE(shape<>::is_static);
  STATIC_REQUIRE(shape<>::size == 1);

  STATIC_REQUIRE(shape<5>::rank == 1);
  STATIC_REQUIRE(shape<5>::size == 5);
  STATIC_REQUIRE(shape<5>::dims[0] == 5);

  STATIC_REQUIRE(shape<2, 3, 4>::rank == 3);
  STATIC_REQUIRE(shape<2, 3, 4>::is_static);
  STATIC_REQUIRE(shape<2, 3, 4>::size == 24);
  STATIC_REQUIRE(shape<2, 3, 4>::dims[1] == 3);

  STATIC_REQUIRE(shape<2, 0>::size == 0);

  STATIC_REQUIRE(shape<dyn>::rank == 1);
  STATIC_REQUIRE_FALSE(shape<dyn>::is_static);
  STATIC_REQUIRE_FALSE(shape<2, dyn>::is_static);
  STATIC_REQUIRE(shape<2, dyn>::size == dyn);
  STATIC_REQUIRE(shape<2, dyn>::dims[1] == dyn);
  STATIC_REQUIRE(dyn == static_cast<std::size_t>(-1));

  STATIC_REQUIRE(sf::detail::is_shape<shape<1, 2>>::value);
  STATIC_REQUIRE_FALSE(sf::detail::is_shape<int>::value);
}

TEST_CASE("shape_string and extents_string use TensorFlow's spelling", "[core][shape]") {
  CHECK(sf::detail::shape_string(shape<>{}) == "()");
  CHECK(sf::detail::shape_string(shape<2>{}) == "(2,)");
  CHECK(sf::detail::shape_string(shape<2, 3>{}) == "(2, 3)");
  CHECK(sf::detail::shape_string(shape<2, dyn>{}) == "(2, None)");
  CHECK(sf::detail::shape_string(shape<dyn>{}) == "(None,)");
  CHECK(sf::detail::shape_string(shape<dyn, 3, dyn>{}) == "(None, 3, None)");

  CHECK(sf::detail::extents_string(sf::extents<0>{}) == "()");
  CHECK(sf::detail::extents_string(sf::extents<1>{7}) == "(7,)");
  CHECK(sf::detail::extents_string(sf::extents<3>{1, 20, 300}) == "(1, 20, 300)");

  STATIC_REQUIRE(sf::detail::product(sf::extents<0>{}) == 1);
  STATIC_REQUIRE(sf::detail::product(sf::extents<3>{2, 3, 4}) == 24);
  STATIC_REQUIRE(sf::detail::product(sf::extents<2>{5, 0}) == 0);
}

TEST_CASE("broadcast_shape_t follows NumPy's rules for static shapes", "[core][broadcast]") {
  using sf::broadcast_shape_t;
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<>, shape<>>, shape<>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<2, 3>, shape<>>, shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<>, shape<2, 3>>, shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<2, 3>, shape<3>>, shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<3>, shape<2, 3>>, shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<2, 1>, shape<1, 3>>, shape<2, 3>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<4, 1, 5>, shape<3, 1>>, shape<4, 3, 5>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<1>, shape<7>>, shape<7>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<0>, shape<1>>, shape<0>>);
}

TEST_CASE("broadcast_shape_t with dyn dimensions", "[core][broadcast]") {
  using sf::broadcast_shape_t;
  // dyn meets dyn: still dyn.
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<dyn>, shape<dyn>>, shape<dyn>>);
  // dyn meets 1: dyn (the 1 broadcasts).
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<dyn>, shape<1>>, shape<dyn>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<1>, shape<dyn>>, shape<dyn>>);
  // dyn meets k != 1: k (checked at run time).
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<dyn>, shape<4>>, shape<4>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<4>, shape<dyn>>, shape<4>>);
  // dyn meets a missing dimension: dyn.
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<dyn, 3>, shape<3>>, shape<dyn, 3>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<dyn, 3>, shape<>>, shape<dyn, 3>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<1, dyn>, shape<5, 1>>, shape<5, dyn>>);
  STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<dyn, 1>, shape<dyn, 6>>, shape<dyn, 6>>);
}

TEST_CASE("shapes_broadcast and dims_broadcast", "[core][broadcast]") {
  using sf::detail::dims_broadcast;
  using sf::detail::shapes_broadcast;
  STATIC_REQUIRE(dims_broadcast(3, 3));
  STATIC_REQUIRE(dims_broadcast(1, 3));
  STATIC_REQUIRE(dims_broadcast(3, 1));
  STATIC_REQUIRE(dims_broadcast(dyn, 3));
  STATIC_REQUIRE(dims_broadcast(3, dyn));
  STATIC_REQUIRE_FALSE(dims_broadcast(2, 3));
  STATIC_REQUIRE_FALSE(dims_broadcast(0, 3));

  STATIC_REQUIRE(shapes_broadcast<shape<2, 3>, shape<3>>());
  STATIC_REQUIRE(shapes_broadcast<shape<2, 3>, shape<dyn>>());
  STATIC_REQUIRE_FALSE(shapes_broadcast<shape<2, 3>, shape<2>>());
  STATIC_REQUIRE_FALSE(shapes_broadcast<shape<2>, shape<3>>());
  STATIC_REQUIRE_FALSE(shapes_broadcast<shape<4, 3>, shape<5, 1>>());
}

TEST_CASE("broadcast_extents at run time", "[core][broadcast]") {
  using sf::extents;
  using sf::detail::broadcast_extents;

  CHECK(broadcast_extents<2>(extents<2>{2, 3}, extents<1>{3}) == extents<2>{2, 3});
  CHECK(broadcast_extents<2>(extents<1>{3}, extents<2>{2, 3}) == extents<2>{2, 3});
  CHECK(broadcast_extents<2>(extents<2>{2, 1}, extents<2>{1, 3}) == extents<2>{2, 3});
  CHECK(broadcast_extents<3>(extents<3>{4, 1, 5}, extents<2>{3, 1}) == extents<3>{4, 3, 5});
  CHECK(broadcast_extents<2>(extents<0>{}, extents<2>{6, 7}) == extents<2>{6, 7});
  CHECK(broadcast_extents<1>(extents<1>{0}, extents<1>{1}) == extents<1>{0});
  // The result rank may exceed both operands' ranks: the missing dimensions are 1.
  CHECK(broadcast_extents<3>(extents<1>{4}, extents<1>{1}) == extents<3>{1, 1, 4});

  SECTION("incompatible extents throw shape_error naming both shapes") {
    CHECK_THROWS_AS((broadcast_extents<2>(extents<2>{2, 3}, extents<1>{2})), sf::shape_error);
    CHECK_THROWS_WITH((broadcast_extents<2>(extents<2>{2, 3}, extents<1>{2})),
                      "staticflow: shapes (2, 3) and (2,) do not broadcast");
    CHECK_THROWS_WITH((broadcast_extents<2>(extents<1>{4}, extents<2>{5, 3})),
                      "staticflow: shapes (4,) and (5, 3) do not broadcast");
    CHECK_THROWS_WITH((broadcast_extents<1>(extents<1>{0}, extents<1>{2})),
                      "staticflow: shapes (0,) and (2,) do not broadcast");
  }

  SECTION("shape_error is an std::invalid_argument") {
    try {
      (void)broadcast_extents<1>(extents<1>{2}, extents<1>{3});
      FAIL("broadcast_extents did not throw");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()) == "staticflow: shapes (2,) and (3,) do not broadcast");
    }
  }
}

TEST_CASE("errors prefix their message with `staticflow: `", "[core][errors]") {
  CHECK(std::string(sf::shape_error("boom").what()) == "staticflow: boom");
  CHECK(std::string(sf::signature_error("no match").what()) == "staticflow: no match");
  STATIC_REQUIRE(std::is_base_of_v<std::invalid_argument, sf::signature_error>);
}

TEST_CASE("spec: dtype, shape and TensorFlow's strings", "[core][spec]") {
  STATIC_REQUIRE(std::is_same_v<sf::spec<float, dyn, 3>::value_type, float>);
  STATIC_REQUIRE(std::is_same_v<sf::spec<float, dyn, 3>::shape_type, shape<dyn, 3>>);
  STATIC_REQUIRE(sf::spec<float, dyn, 3>::rank == 2);
  STATIC_REQUIRE(sf::spec<double>::rank == 0);
  STATIC_REQUIRE(std::is_same_v<sf::spec_of_t<bool, shape<4, 5>>, sf::spec<bool, 4, 5>>);
  STATIC_REQUIRE(sf::spec_type<sf::spec<int, 2>>);
  STATIC_REQUIRE_FALSE(sf::spec_type<shape<2>>);
  STATIC_REQUIRE_FALSE(sf::spec_type<int>);

  CHECK(sf::tensor_spec_string<sf::spec<int, 2>>() == "TensorSpec(shape=(2,), dtype=tf.int32, name=None)");
  CHECK(sf::tensor_spec_string<sf::spec<float, dyn, 3>>() ==
        "TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)");
  CHECK(sf::tensor_spec_string<sf::spec<double>>() == "TensorSpec(shape=(), dtype=tf.float64, name=None)");
  CHECK(sf::tensor_spec_string<sf::spec<bool, 2, 3>>() == "TensorSpec(shape=(2, 3), dtype=tf.bool, name=None)");
  CHECK(sf::tensor_spec_string<sf::spec<std::int64_t, dyn>>() ==
        "TensorSpec(shape=(None,), dtype=tf.int64, name=None)");

  CHECK(sf::short_spec_string(sf::spec<int, 2>{}) == "int32[2]");
  CHECK(sf::short_spec_string(sf::spec<float, dyn, 3>{}) == "float32[None,3]");
  CHECK(sf::short_spec_string(sf::spec<float>{}) == "float32[]");
  CHECK(sf::short_spec_string(sf::spec<bool, 2, 3, 4>{}) == "bool[2,3,4]");
  CHECK(sf::short_spec_string(sf::spec<std::int64_t, dyn>{}) == "int64[None]");
}

TEST_CASE("static values are integral constants printed as Literal[...]", "[core][static_value]") {
  STATIC_REQUIRE(std::is_same_v<sf::static_value<3>, std::integral_constant<int, 3>>);
  STATIC_REQUIRE(std::is_same_v<sf::static_value<true>, std::integral_constant<bool, true>>);
  STATIC_REQUIRE(sf::static_value_type<sf::static_value<3>>);
  STATIC_REQUIRE(sf::static_value_type<const std::integral_constant<long, 7>&>);
  STATIC_REQUIRE(sf::static_value_type<std::true_type>);
  STATIC_REQUIRE_FALSE(sf::static_value_type<int>);
  STATIC_REQUIRE_FALSE(sf::static_value_type<sf::spec<int>>);

  CHECK(sf::detail::static_value_string(sf::static_value<3>{}) == "Literal[3]");
  CHECK(sf::detail::static_value_string(sf::static_value<-12>{}) == "Literal[-12]");
  CHECK(sf::detail::static_value_string(sf::static_value<0>{}) == "Literal[0]");
  CHECK(sf::detail::static_value_string(sf::static_value<true>{}) == "Literal[True]");
  CHECK(sf::detail::static_value_string(sf::static_value<false>{}) == "Literal[False]");
  CHECK(sf::detail::static_value_string(std::integral_constant<long long, 10000000000LL>{}) ==
        "Literal[10000000000]");
}
