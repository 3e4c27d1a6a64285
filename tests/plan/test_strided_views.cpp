// Strided slot views on the CPU backend (plan/slot_views.hpp's strided_view_slots,
// graph::strided_layout, strided_tensor_view, backend/cpu/kernel.hpp's row cursors): a slice that
// cuts trailing axes (`u[1:-1, 1:-1]`, columns, every other row) and is read only by fused loops
// is read where it lies, row by row, not copied. Tested: the 2-D five-point stencil against a hand
// loop at 66^2 and 1026^2 (no arena memory, one and two threads), sizes with no or one interior
// element, static shapes, a slice broadcast against a larger operand, a slice that a reduction also
// reads (a copy, and a repeat of a strided slot that is not one), slices of slices, an output over
// its own input, and a 2-D heat loop.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
xt::xtensor<float, 2> grid(std::size_t rows, std::size_t cols) {
  xt::xtensor<float, 2> u = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (std::size_t k = 0; k < u.size(); ++k) u.flat(k) = -2.f + 0.125f * static_cast<float>((k * 7) % 61);
  return u;
}

// The five-point step as TF users write it: five slices, each cutting the columns.
constexpr auto five_point = [](auto u) {
  const auto inner = sf::span(1, -1);
  const auto mid = u(inner, inner);
  return mid + 0.1f * (u(sf::span(2, sf::none), inner) + u(sf::span(sf::none, -2), inner) + u(inner, sf::span(2, sf::none)) +
                       u(inner, sf::span(sf::none, -2)) - 4.f * mid);
};

/// How many interior values of `out` differ from the step by hand by more than a float's rounding.
template <class U, class O>
std::size_t wrong_steps(const U& u, const O& out) {
  const std::size_t n = u.shape()[0], m = u.shape()[1];
  std::size_t wrong = 0;
  for (std::size_t i = 1; i + 1 < n; ++i)
    for (std::size_t j = 1; j + 1 < m; ++j) {
      const float want = u(i, j) + 0.1f * (u(i + 1, j) + u(i - 1, j) + u(i, j + 1) + u(i, j - 1) - 4.f * u(i, j));
      wrong += std::fabs(out(i - 1, j - 1) - want) > 1e-5f;
    }
  return wrong;
}
}  // namespace

TEST_CASE("strided views: the 2-D five-point stencil reads its five slices where they lie", "[plan][strided_views]") {
  auto step = sf::function(five_point);
  for (const std::size_t n : {std::size_t{66}, std::size_t{1026}}) {
    CAPTURE(n);
    const auto u = grid(n, n);
    xt::xtensor<float, 2> out = xt::zeros<float>({n - 2, n - 2});
    // in a thread of its own, whose arena starts empty: the five copies took 5 (n - 2)^2 floats
    std::size_t arena_bytes = 0, evaluations = 0;
    std::thread([&] {
      sf::plan::materialization_counter() = 0;
      step.call_into(out, u);
      evaluations = sf::plan::materialization_counter();
      arena_bytes = sf::plan::arena::local().capacity();
    }).join();
    CHECK(arena_bytes == 0);
    CHECK(evaluations == 5);  // the five slices (the centre's repeat takes its view)
    CHECK(wrong_steps(u, out) == 0);
    CHECK(wrong_steps(u, step(u)) == 0);
  }
  // two threads split the rows of the 1M-value step
  sf::set_num_threads(2);
  const auto u = grid(1026, 700);
  const auto out = step(u);
  sf::set_num_threads(1);
  CHECK(out.shape()[0] == 1024);
  CHECK(out.shape()[1] == 698);
  CHECK(wrong_steps(u, out) == 0);
}

TEST_CASE("strided views: no interior, one interior value, one row and static shapes", "[plan][strided_views]") {
  auto step = sf::function(five_point);
  for (const auto& [n, m] : {std::pair{std::size_t{2}, std::size_t{2}}, std::pair{std::size_t{3}, std::size_t{3}},
                             std::pair{std::size_t{3}, std::size_t{9}}, std::pair{std::size_t{9}, std::size_t{3}},
                             std::pair{std::size_t{0}, std::size_t{4}}, std::pair{std::size_t{1}, std::size_t{1}}}) {
    CAPTURE(n, m);
    const auto u = grid(n, m);
    const auto out = step(u);
    CHECK(out.shape()[0] == (n < 2 ? 0 : n - 2));
    CHECK(out.shape()[1] == (m < 2 ? 0 : m - 2));
    CHECK(wrong_steps(u, out) == 0);
  }
  xt::xtensor_fixed<float, xt::xshape<6, 7>> s;
  for (std::size_t k = 0; k < s.size(); ++k) s.flat(k) = static_cast<float>(k);
  const auto out = step(s);
  CHECK(out.shape()[0] == 4);
  CHECK(wrong_steps(s, out) == 0);
  auto columns = sf::function([](auto x) { return x(sf::whole, sf::span(1, 3)) * 2.f; });
  CHECK((columns(s) == xt::xtensor<float, 2>{{2, 4}, {16, 18}, {30, 32}, {44, 46}, {58, 60}, {72, 74}}));
  auto every_other_row = sf::function([](auto x) { return x(sf::span(0, sf::none, 2), sf::span(1, -1)) + 1.f; });
  CHECK((every_other_row(s) == xt::xtensor<float, 2>{{2, 3, 4, 5, 6}, {16, 17, 18, 19, 20}, {30, 31, 32, 33, 34}}));
}

TEST_CASE("strided views: broadcast, also reduced, sliced again, and written over their input", "[plan][strided_views]") {
  const auto u = grid(5, 6);
  // a column broadcast along the rows (its row step is 0) and a row broadcast down the columns
  auto spread = sf::function([](auto x) { return x(sf::span(1, 4), sf::span(2, 3)) * x(sf::span(0, 1), sf::span(0, 4)); });
  const auto spread_out = spread(u);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 4; ++j) wrong += spread_out(i, j) != u(i + 1, 2) * u(0, j);
  CHECK(wrong == 0);

  // one slice read by a fused loop and by a reduction: the reduction reads a copy, each right
  auto both = sf::function([](auto x) {
    const auto cols = x(sf::whole, sf::span(1, 3));
    return std::tuple{cols * 2.f, sf::reduce_sum(cols)};
  });
  const auto [twice, total] = both(u);
  float want_total = 0;
  wrong = 0;
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 1; j < 3; ++j) wrong += twice(i, j - 1) != 2.f * u(i, j), want_total += u(i, j);
  CHECK(wrong == 0);
  CHECK(total == Approx(want_total));

  // a slice of a strided slice: the inner one is read by a slice, so it is a copy, the outer a view
  auto twice_cut = sf::function([](auto x) { return x(sf::span(1, sf::none), sf::span(1, -1))(sf::span(0, 2), sf::span(2, sf::none)) - 1.f; });
  const auto cut = twice_cut(u);
  CHECK(cut.shape()[0] == 2);
  CHECK(cut.shape()[1] == 2);
  CHECK((cut == xt::xtensor<float, 2>{{u(1, 3) - 1.f, u(1, 4) - 1.f}, {u(2, 3) - 1.f, u(2, 4) - 1.f}}));

  // an output over the memory its input slices read: the values of copies taken before the write
  auto shifted = sf::function([](auto x) { return x(sf::span(1, sf::none), sf::span(1, sf::none)) * 0.5f + x(sf::span(sf::none, -1), sf::span(sf::none, -1)); });
  for (const std::size_t out_at : {std::size_t{0}, std::size_t{1}, std::size_t{7}}) {
    CAPTURE(out_at);
    const auto before = grid(6, 6);
    std::vector<float> buffer(before.begin(), before.end());
    auto in = xt::adapt(buffer.data(), 36, xt::no_ownership(), std::array<std::size_t, 2>{6, 6});
    auto out = xt::adapt(buffer.data() + out_at, 25, xt::no_ownership(), std::array<std::size_t, 2>{5, 5});
    shifted.call_into(out, in);
    wrong = 0;
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = 0; j < 5; ++j) wrong += buffer[out_at + i * 5 + j] != before(i + 1, j + 1) * 0.5f + before(i, j);
    CHECK(wrong == 0);
  }
}

TEST_CASE("strided views: a 2-D heat loop with fixed edges", "[plan][strided_views]") {
  // ten steps of the five-point update on a loop variable, its edges kept by a zero pad plus the
  // old edges: against the same steps by hand
  auto heat = sf::function([](auto u0) {
    return sf::fori_loop(0, 10, [](auto, auto u) {
      const auto inner = sf::span(1, -1);
      const auto mid = u(inner, inner);
      const auto next = mid + 0.2f * (u(sf::span(2, sf::none), inner) + u(sf::span(sf::none, -2), inner) +
                                      u(inner, sf::span(2, sf::none)) + u(inner, sf::span(sf::none, -2)) - 4.f * mid);
      return sf::pad(next - mid, {{1, 1}, {1, 1}}) + u;
    }, u0);
  });
  const std::size_t n = 12, m = 17;
  auto hand = grid(n, m);
  const auto start = hand;
  for (int s = 0; s < 10; ++s) {
    auto next = hand;
    for (std::size_t i = 1; i + 1 < n; ++i)
      for (std::size_t j = 1; j + 1 < m; ++j)
        next(i, j) = hand(i, j) + 0.2f * (hand(i + 1, j) + hand(i - 1, j) + hand(i, j + 1) + hand(i, j - 1) - 4.f * hand(i, j));
    hand = next;
  }
  const auto got = heat(start);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < hand.size(); ++k) wrong += std::fabs(got.flat(k) - hand.flat(k)) > 1e-4f;
  CHECK(wrong == 0);
}
