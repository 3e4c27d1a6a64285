// detail::value_pack (core/value_pack.hpp): the aggregate list behind the planner's slots,
// backprop's accumulation points and the CPU kernels' cursors.
#include <catch2/catch.hpp>
#include <array>

#include <string>
#include <tuple>
#include <type_traits>

#include "staticflow/backend/cpu/cursor.hpp"
#include "staticflow/core/value_pack.hpp"

namespace detail = staticflow::detail;

namespace {
struct nothing {};
}  // namespace

TEST_CASE("value_pack: pack_values keeps each value and its type, in order", "[core][value_pack]") {
  const auto p = detail::pack_values(1, 2.5, std::string("three"));
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(p)>, detail::value_pack<int, double, std::string>>);
  STATIC_REQUIRE(decltype(p)::size == 3);
  CHECK(detail::pack_get<0>(p) == 1);
  CHECK(detail::pack_get<1>(p) == 2.5);
  CHECK(detail::pack_get<2>(p) == "three");
  STATIC_REQUIRE(std::is_aggregate_v<detail::value_pack<int, double>>);
  STATIC_REQUIRE(std::is_same_v<decltype(detail::pack_values()), detail::value_pack<>>);
}

TEST_CASE("value_pack: pack_get of a mutable pack writes in place", "[core][value_pack]") {
  auto p = detail::pack_values(1, 2);
  detail::pack_get<1>(p) = 7;
  CHECK(detail::pack_get<0>(p) == 1);
  CHECK(detail::pack_get<1>(p) == 7);
}

TEST_CASE("value_pack: pack_apply calls f with the values, const or mutable", "[core][value_pack]") {
  auto p = detail::pack_values(3, 4.5);
  CHECK(detail::pack_apply([](int a, double b) { return a * b; }, std::as_const(p)) == 13.5);
  detail::pack_apply([](auto&... v) { ((v = v * 2), ...); }, p);
  CHECK(detail::pack_get<0>(p) == 6);
  CHECK(detail::pack_get<1>(p) == 9.0);
  // returns what f returns, a reference included
  int& first = detail::pack_apply([](int& a, double&) -> int& { return a; }, p);
  first = -1;
  CHECK(detail::pack_get<0>(p) == -1);
  CHECK(detail::pack_apply([]() { return 42; }, detail::value_pack<>{}) == 42);
}

TEST_CASE("value_pack: concatenation and the one std::tuple at the end", "[core][value_pack]") {
  const auto ab = detail::pack_concat(detail::pack_of(1), detail::pack_values(2.0, 'c'), detail::pack_of(std::string("d")));
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(ab)>, detail::value_pack<int, double, char, std::string>>);
  CHECK(detail::pack_to_tuple(ab) == std::tuple<int, double, char, std::string>{1, 2.0, 'c', "d"});
  CHECK(detail::pack_to_tuple(detail::pack_concat(detail::value_pack<>{}, detail::pack_of(5))) == std::tuple<int>{5});
}

TEST_CASE("value_pack: an empty value takes no room (a kernel's unused cursor)", "[core][value_pack]") {
  STATIC_REQUIRE(sizeof(detail::value_pack<nothing, double*>) == sizeof(double*));
  STATIC_REQUIRE(sizeof(detail::value_pack<double*, nothing>) == sizeof(double*));
  namespace cpu = staticflow::cpu::detail;
  STATIC_REQUIRE(sizeof(detail::value_pack<cpu::unused_cursor, cpu::contiguous_cursor<float>>) == sizeof(const float*));
}

TEST_CASE("cursor_at reads argument I from a value_pack or a std::tuple of cursors", "[core][value_pack]") {
  namespace cpu = staticflow::cpu::detail;
  const float data[] = {1.f, 2.f, 3.f};
  const auto pack = detail::pack_values(cpu::unused_cursor{}, cpu::contiguous_cursor<float>{data}, cpu::broadcast_cursor<float>{9.f});
  const auto tuple = std::tuple{cpu::unused_cursor{}, cpu::contiguous_cursor<float>{data}, cpu::broadcast_cursor<float>{9.f}};
  CHECK(cpu::cursor_at<1>(pack).scalar(2) == 3.f);
  CHECK(cpu::cursor_at<2>(pack).scalar(0) == 9.f);
  CHECK(cpu::cursor_at<1>(tuple).scalar(1) == 2.f);
  CHECK(cpu::cursor_at<2>(tuple).scalar(5) == 9.f);
}

TEST_CASE("value_pack is tuple-like; detail::get, detail::apply and values_concat read packs, tuples and arrays", "[core][value_pack]") {
  auto p = detail::pack_values(1, 2.5, 'x');
  STATIC_REQUIRE(std::tuple_size_v<decltype(p)> == 3);
  STATIC_REQUIRE(std::is_same_v<std::tuple_element_t<1, decltype(p)>, double>);
  STATIC_REQUIRE(std::is_same_v<std::tuple_element_t<2, decltype(p)>, char>);
  CHECK(detail::get<1>(p) == 2.5);
  detail::get<0>(p) = 7;
  CHECK(detail::pack_get<0>(p) == 7);
  std::tuple<int, std::string> t{3, "ab"};
  CHECK(detail::get<1>(t) == "ab");
  const std::array<int, 3> a{4, 5, 6};
  CHECK(detail::get<2>(a) == 6);
  CHECK(detail::apply([](int i, double d, char c) { return i + d + (c == 'x' ? 100 : 0); }, p) == 109.5);
  CHECK(detail::apply([](int i, const std::string& s) { return s + std::to_string(i); }, t) == "ab3");
  CHECK(detail::apply([](int x, int y, int z) { return x * y * z; }, a) == 120);
  detail::apply([](int& i, std::string&) { i = -2; }, t);  // lvalues: the tuple's own elements
  CHECK(std::get<0>(t) == -2);
  const auto joined = detail::values_concat(t, p);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(joined)>, detail::value_pack<int, std::string, int, double, char>>);
  CHECK(detail::pack_to_tuple(joined) == std::tuple<int, std::string, int, double, char>{-2, "ab", 7, 2.5, 'x'});
  CHECK(detail::pack_to_tuple(detail::values_concat(std::tuple<>{}, detail::value_pack<>{})) == std::tuple<>{});
  // an element of a const tuple or pack of references is the reference, as std::get gives it
  int target = 1;
  const std::tuple<int&> refs{target};
  STATIC_REQUIRE(std::is_same_v<decltype(detail::get<0>(refs)), int&>);
  detail::get<0>(refs) = 9;
  CHECK(target == 9);
  const detail::value_pack<int&> pack_refs = detail::pack_values<int&>(target);
  STATIC_REQUIRE(std::is_same_v<decltype(detail::get<0>(pack_refs)), int&>);
  CHECK(detail::get<0>(pack_refs) == 9);
}
