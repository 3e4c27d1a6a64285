// Slots that are views (plan/slot_views.hpp, graph::contiguous_stretch; backend/cpu/run_plan.hpp):
// a slice (or split piece) that is one contiguous stretch of an argument or of a plain slot, a
// reshape, expand_dims or squeeze of one, and (CPU backend) x[i] of one, is a view, not a copy.
// Tested: which rules make a stretch (against every element's offset, for random slices of random
// shapes), that 1M-element stencils, reshapes and rows take no arena memory, and that views give
// the copies' values wherever memory could be shared: outputs over the input, variables assigned
// after a read, loop variables, effects, slots, slices of slices, empty and one-element slices,
// and x[i]'s range error before any effect.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
using form = sf::graph::axis_rule::form;

namespace {
/// Per axis, the result's extent and the operand's row-major stride; returns the result's size.
template <std::size_t R>
std::size_t extents_and_strides(const std::array<sf::graph::axis_rule, R>& rules, std::array<std::size_t, R>& m,
                                std::array<std::size_t, R>& stride) {
  std::size_t size = 1, s = 1;
  for (std::size_t d = R; d-- > 0;) {
    m[d] = rules[d].m;
    size *= m[d];
    stride[d] = s;
    s *= rules[d].n;
  }
  return size;
}

/// The offset of result element 0 when the result's elements are consecutive in the row-major
/// operand (element k at offset 0 + k), else -1; -1 for an empty result. Element by element.
template <std::size_t R>
std::ptrdiff_t brute_force_stretch(const std::array<sf::graph::axis_rule, R>& rules) {
  std::array<std::size_t, R> m{}, stride{};
  const std::size_t size = extents_and_strides(rules, m, stride);
  if (size == 0) return -1;
  std::ptrdiff_t first = -1;
  for (std::size_t k = 0; k < size; ++k) {
    std::ptrdiff_t offset = 0;
    for (std::size_t d = R, rest = k; d-- > 0; rest /= m[d]) {
      const std::ptrdiff_t at = rules[d].source(rest % m[d]);
      if (at < 0) return -1;  // the fill value
      offset += at * static_cast<std::ptrdiff_t>(stride[d]);
    }
    if (k == 0) first = offset;
    else if (offset != first + static_cast<std::ptrdiff_t>(k)) return -1;
  }
  return first;
}

/// Whether result element p reads the operand at first + sum_d p_d * delta_d with every delta_d >= 0
/// and delta 1 along the last axis (unless it has one coordinate): the strided views the CPU
/// backend's row loops read. False for an empty result or a fill. Element by element.
template <std::size_t R>
bool brute_force_strided(const std::array<sf::graph::axis_rule, R>& rules, std::size_t& first, std::array<std::size_t, R>& delta) {
  std::array<std::size_t, R> m{}, stride{};
  const std::size_t size = extents_and_strides(rules, m, stride);
  if (size == 0) return false;
  const auto offset_of = [&](const std::array<std::size_t, R>& p) -> std::ptrdiff_t {
    std::ptrdiff_t offset = 0;
    for (std::size_t d = 0; d < R; ++d) {
      const std::ptrdiff_t at = rules[d].source(p[d]);
      if (at < 0) return -1;
      offset += at * static_cast<std::ptrdiff_t>(stride[d]);
    }
    return offset;
  };
  const std::ptrdiff_t origin = offset_of({});
  if (origin < 0) return false;
  first = static_cast<std::size_t>(origin);
  for (std::size_t d = 0; d < R; ++d) {
    std::array<std::size_t, R> unit{};
    unit[d] = 1;
    const std::ptrdiff_t next = m[d] > 1 ? offset_of(unit) : origin;
    if (next < origin || (d + 1 == R && m[d] > 1 && next != origin + 1)) return false;
    delta[d] = static_cast<std::size_t>(next - origin);
  }
  for (std::size_t k = 0; k < size; ++k) {
    std::array<std::size_t, R> p{};
    std::size_t want = first;
    for (std::size_t d = R, rest = k; d-- > 0; rest /= m[d]) p[d] = rest % m[d], want += p[d] * delta[d];
    if (offset_of(p) != static_cast<std::ptrdiff_t>(want)) return false;
  }
  return true;
}

template <std::size_t R>
std::size_t check_random_slices(std::mt19937& rng, std::size_t& contiguous, std::size_t& strided) {
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::size_t bad = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::array<sf::graph::axis_rule, R> rules{};
    for (std::size_t d = 0; d < R; ++d) {
      const auto n = static_cast<std::size_t>(pick(0, 5));
      const int kind = pick(0, 9);
      if (kind < 4) {
        rules[d] = sf::graph::axis_rule::identity(n);  // a whole axis, the common case
      } else if (kind < 9) {
        // a slice: bounds open or in [-7, 7], steps mostly 1
        const auto bound = [&]() -> std::ptrdiff_t { return pick(0, 3) == 0 ? sf::open_index : pick(-7, 7); };
        const int step_pick = pick(0, 5);
        const std::ptrdiff_t step = step_pick < 3 ? 1 : step_pick == 3 ? -1 : step_pick == 4 ? 2 : -2;
        const sf::resolved_span s = sf::span(bound(), bound(), step).resolve(n);
        rules[d] = {form::strided, s.start, s.step, n, s.length};
      } else {
        // a roll: wrapped, never a stretch the kernel may read in place
        rules[d] = {form::wrapped, pick(0, 3), 1, n == 0 ? 1 : n, n == 0 ? 1 : n};
      }
    }
    const std::ptrdiff_t want = brute_force_stretch(rules);
    const std::ptrdiff_t got = sf::graph::contiguous_stretch(rules);
    // a wrapped axis of extent 1 reads coordinate 0: a stretch by the elements, not by the form
    bool wraps = false;
    for (const auto& r : rules) wraps |= r.how == form::wrapped;
    if (got != want && !(wraps && got == -1)) {
      ++bad;
      UNSCOPED_INFO("rank " << R << ": got " << got << ", the elements say " << want);
    }
    contiguous += got >= 0;
    // the strided layout: exactly the elements' offsets where it says so, and found wherever the
    // elements have one (a wrap aside, as above)
    std::size_t offset = 0, want_offset = 0;
    sf::extents<R> strides{};
    std::array<std::size_t, R> delta{};
    const bool layout = sf::graph::strided_layout(rules, offset, strides);
    const bool want_layout = brute_force_strided(rules, want_offset, delta);
    if (layout ? !want_layout || offset != want_offset || strides != delta : want_layout && !wraps) {
      ++bad;
      UNSCOPED_INFO("rank " << R << ": strided layout " << layout << " at " << offset << ", the elements say " << want_layout
                            << " at " << want_offset);
    }
    strided += layout;
  }
  return bad;
}

std::vector<float> ramp(std::size_t n, float from = -3.f, float step = 0.25f) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = from + step * static_cast<float>(i % 97);
  return v;
}
}  // namespace

TEST_CASE("slot views: a stretch exactly where every element of the result is consecutive in the operand",
          "[plan][slot_views]") {
  std::mt19937 rng(7);
  std::size_t contiguous = 0, strided = 0;
  CHECK(check_random_slices<1>(rng, contiguous, strided) == 0);
  CHECK(check_random_slices<2>(rng, contiguous, strided) == 0);
  CHECK(check_random_slices<3>(rng, contiguous, strided) == 0);
  CHECK(check_random_slices<4>(rng, contiguous, strided) == 0);
  CHECK(contiguous > 1500);  // the sampling reaches both answers often (2464 of 12000)
  // every stretch is a strided layout, and the sampling reaches layouts that are not stretches
  // (2722 layouts, 2464 stretches) and slices that are neither
  CHECK(strided > contiguous + 100);
  CHECK(strided < 11000);

  // strided layouts by name: columns 1-2 of [4, 5] at 1 with strides (5, 1); every other row at 0
  // with (10, 1); a reversed column or a step along the last axis: none
  {
    using rule = sf::graph::axis_rule;
    std::size_t offset = 0;
    sf::extents<2> strides{};
    CHECK(sf::graph::strided_layout(std::array{rule::identity(4), rule{form::strided, 1, 1, 5, 2}}, offset, strides));
    CHECK((offset == 1 && strides == sf::extents<2>{5, 1}));
    CHECK(sf::graph::strided_layout(std::array{rule{form::strided, 0, 2, 4, 2}, rule::identity(5)}, offset, strides));
    CHECK((offset == 0 && strides == sf::extents<2>{10, 1}));
    CHECK_FALSE(sf::graph::strided_layout(std::array{rule{form::strided, 3, -1, 4, 4}, rule::identity(5)}, offset, strides));
    CHECK_FALSE(sf::graph::strided_layout(std::array{rule::identity(4), rule{form::strided, 0, 2, 5, 3}}, offset, strides));
  }

  // the forms by name: rows 1-2 of [4, 5] at 5; row 2's [1, 4) at 11; columns: no; every other row: no
  using rule = sf::graph::axis_rule;
  CHECK(sf::graph::contiguous_stretch(std::array{rule{form::strided, 1, 1, 4, 2}, rule::identity(5)}) == 5);
  CHECK(sf::graph::contiguous_stretch(std::array{rule{form::strided, 2, 1, 4, 1}, rule{form::strided, 1, 1, 5, 3}}) == 11);
  CHECK(sf::graph::contiguous_stretch(std::array{rule::identity(4), rule{form::strided, 1, 1, 5, 3}}) == -1);
  CHECK(sf::graph::contiguous_stretch(std::array{rule{form::strided, 0, 2, 4, 2}, rule::identity(5)}) == -1);
  CHECK(sf::graph::contiguous_stretch(std::array{rule{form::strided, 0, 1, 4, 0}, rule::identity(5)}) == -1);  // empty
  CHECK(sf::graph::contiguous_stretch(std::array{rule{form::strided, 3, -1, 4, 1}, rule{form::strided, 4, -1, 5, 1}}) == 19);
}

TEST_CASE("slot views: a 1M-element shifted-slice stencil copies nothing", "[plan][slot_views]") {
  const std::size_t n = std::size_t{1} << 20;
  const std::vector<float> values = ramp(n);
  const xt::xtensor<float, 1> u = xt::adapt(values, std::array<std::size_t, 1>{n});
  xt::xtensor<float, 1> out = xt::zeros<float>({n - 2});
  auto step = sf::function([](auto x) {
    const auto mid = x(sf::span(1, -1));
    return mid + 0.1f * (x(sf::span(2, sf::none)) - 2.f * mid + x(sf::span(sf::none, -2)));
  });
  // in a thread of its own, whose arena starts empty: three 4 MB copies would take at least 12 MB
  std::size_t arena_bytes = 0;
  std::thread([&] {
    step.call_into(out, u);
    arena_bytes = sf::plan::arena::local().capacity();
  }).join();
  CHECK(arena_bytes < (std::size_t{1} << 20));
  std::size_t wrong = 0;
  for (std::size_t i = 1; i + 1 < n; ++i)
    wrong += out(i - 1) != values[i] + 0.1f * (values[i + 1] - 2.f * values[i] + values[i - 1]);
  CHECK(wrong == 0);

  // columns are not a stretch: copied, and right
  xt::xtensor<float, 2> m = xt::zeros<float>({3, 4});
  for (std::size_t i = 0; i < 12; ++i) m.flat(i) = static_cast<float>(i);
  auto columns = sf::function([](auto x) { return x(sf::whole, sf::span(1, 3)) * 2.f; });
  CHECK((columns(m) == xt::xtensor<float, 2>{{2, 4}, {10, 12}, {18, 20}}));
}

TEST_CASE("slot views: reshape, expand_dims, squeeze, split pieces and the one-axis slice copy nothing",
          "[plan][slot_views]") {
  const std::size_t n = std::size_t{1} << 20;
  const std::vector<float> values = ramp(n);
  const xt::xtensor<float, 1> x = xt::adapt(values, std::array<std::size_t, 1>{n});
  xt::xtensor<float, 2> rows = xt::zeros<float>({n / 1024, std::size_t{1024}});
  xt::xtensor<float, 3> column = xt::zeros<float>({std::size_t{1}, n / 2, std::size_t{1}});
  xt::xtensor<float, 1> halves = xt::zeros<float>({n / 2}), tail = xt::zeros<float>({n / 4});
  auto reshaped = sf::function([](auto a) { return sf::reshape<sf::shape<sf::dyn, 1024>>(a) * 2.f; });
  auto expanded = sf::function([](auto a) {  // a split piece [n/2] -> [1, n/2, 1]: views of views
    const auto [first, second] = sf::split<2>(a, sf::axes<0>{});
    const auto lifted = sf::expand_dims(sf::squeeze(sf::expand_dims(sf::expand_dims(first, sf::axes<0>{}), sf::axes<0>{}), sf::axes<0>{}),
                                        sf::axes<-1>{});
    return lifted - sf::reshape<sf::shape<1, sf::dyn, 1>>(second);
  });
  auto pieces = sf::function([](auto a) {
    const auto [first, second] = sf::split<2>(a, sf::axes<0>{});
    return second - first;
  });
  auto old_slice = sf::function([&](auto a) { return sf::slice(a, sf::axes<0>{}, 3 * n / 4, n / 4) + 1.f; });
  std::size_t arena_bytes = 0;
  std::thread([&] {
    reshaped.call_into(rows, x);
    expanded.call_into(column, x);
    pieces.call_into(halves, x);
    old_slice.call_into(tail, x);
    arena_bytes = sf::plan::arena::local().capacity();
  }).join();
  CHECK(arena_bytes < (std::size_t{1} << 20));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += rows.flat(i) != 2.f * values[i];
  for (std::size_t i = 0; i < n / 2; ++i) wrong += column.flat(i) != values[i] - values[n / 2 + i];
  for (std::size_t i = 0; i < n / 2; ++i) wrong += halves(i) != values[n / 2 + i] - values[i];
  for (std::size_t i = 0; i < n / 4; ++i) wrong += tail(i) != values[3 * n / 4 + i] + 1.f;
  CHECK(wrong == 0);

  // the one-axis slice of a matrix's columns is not a stretch: copied, and right
  const xt::xtensor<float, 2> m = {{1, 2, 3}, {4, 5, 6}};
  auto columns = sf::function([](auto a) { return sf::slice(a, sf::axes<1>{}, 1, 2) * 1.f; });
  CHECK((columns(m) == xt::xtensor<float, 2>{{2, 3}, {5, 6}}));
  auto one_row = sf::function([](auto a) { return sf::slice(a, sf::axes<0>{}, 1, 1) * 1.f; });
  CHECK((one_row(m) == xt::xtensor<float, 2>{{4, 5, 6}}));
  auto empty = sf::function([](auto a) { return sf::reshape<sf::shape<0, 3>>(sf::slice(a, sf::axes<0>{}, 2, 0)) * 1.f; });
  CHECK(empty(m).size() == 0);
}

TEST_CASE("slot views: whole rows, a stretch of one row, slices of slices and of slots, empty and one element",
          "[plan][slot_views]") {
  xt::xtensor<float, 2> m = xt::zeros<float>({4, 5});
  for (std::size_t i = 0; i < 20; ++i) m.flat(i) = static_cast<float>(i) - 7.f;
  auto f = sf::function([](auto x) {
    return std::tuple{x(sf::span(1, 3)) + 1.f,                                              // rows 1-2: a view
                      sf::strided_slice(x, sf::axes<0, 1>{}, sf::span(2, 3), sf::span(1, 4)) * 1.f,  // row 2's [1, 4)
                      x(sf::span(1, sf::none))(sf::span(sf::none, -1))(sf::span(1, 2)) * 1.f,     // a slice of slices
                      sf::matmul(x, sf::transpose(x))(sf::span(-2, sf::none)) * 1.f,          // of a slot
                      x(sf::span(3, 3)) * 1.f,                                                // no rows
                      x(sf::span(-1, sf::none), sf::span(-1, sf::none)) * 1.f};               // one element
  });
  const auto [rows, stretch, nested, of_product, none, last] = f(m);
  CHECK((rows == xt::eval(xt::view(m, xt::range(1, 3), xt::all()) + 1.f)));
  CHECK((stretch == xt::eval(xt::view(m, xt::range(2, 3), xt::range(1, 4)))));
  CHECK((nested == xt::eval(xt::view(m, xt::range(2, 3), xt::all()))));
  xt::xtensor<float, 2> product = xt::zeros<float>({4, 4});
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      for (std::size_t k = 0; k < 5; ++k) product(i, j) += m(i, k) * m(j, k);
  CHECK((of_product == xt::eval(xt::view(product, xt::range(2, 4), xt::all()))));
  CHECK((none.shape(0) == 0 && none.shape(1) == 5));
  CHECK((last == xt::xtensor<float, 2>{{12.f}}));

  // a slice that is the function's only output is computed into the caller's memory (a copy)
  auto only = sf::function([](auto x) { return x(sf::span(1, 3)); });
  const xt::xtensor<float, 2> two_rows = only(m);
  CHECK((two_rows == xt::eval(xt::view(m, xt::range(1, 3), xt::all()))));
  // and a one-element input
  const xt::xtensor<float, 2> no_rows = only(xt::xtensor<float, 2>{{4.f}});
  CHECK((no_rows.shape(0) == 0 && no_rows.shape(1) == 1));
}

TEST_CASE("slot views: an output over its own input gets the values of the copies", "[plan][slot_views]") {
  auto step = sf::function([](auto x) {
    const auto mid = x(sf::span(1, -1));
    return mid + 0.5f * (x(sf::span(2, sf::none)) - mid);
  });
  for (const std::size_t out_at : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
    CAPTURE(out_at);
    std::vector<float> buffer = ramp(40, 1.f, 1.5f);
    const std::vector<float> before = buffer;
    auto in = xt::adapt(buffer.data(), 40, xt::no_ownership(), std::array<std::size_t, 1>{40});
    auto out = xt::adapt(buffer.data() + out_at, 38, xt::no_ownership(), std::array<std::size_t, 1>{38});
    step.call_into(out, in);
    for (std::size_t i = 0; i < 38; ++i) REQUIRE(buffer[out_at + i] == before[i + 1] + 0.5f * (before[i + 2] - before[i + 1]));
  }
}

TEST_CASE("slot views: variables, effects and loop variables", "[plan][slot_views]") {
  // a slice of a variable read before an assignment sees the old values
  sf::variable<float, sf::dyn> v{xt::xtensor<float, 1>{1.f, 2.f, 3.f, 4.f}};
  auto shift = sf::function([&](auto x) {
    auto tail = v.read()(sf::span(1, sf::none));
    v.assign(x);
    return tail * 1.f + v.read()(sf::span(sf::none, -1));
  });
  CHECK((shift(xt::xtensor<float, 1>{10.f, 20.f, 30.f, 40.f}) == xt::xtensor<float, 1>{12.f, 23.f, 34.f}));
  CHECK((v.value() == xt::xtensor<float, 1>{10.f, 20.f, 30.f, 40.f}));

  // an argument's row, broadcast into every row of a variable by an assignment
  sf::variable<float, 3, 4> w{xt::xtensor<float, 2>(xt::zeros<float>({3, 4}))};
  auto spread = sf::function([&](auto x) {
    w.assign(x(sf::span(1, 2)) * 2.f);
    return x(sf::span(2, sf::none)) * 1.f;
  });
  xt::xtensor<float, 2> x = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}};
  CHECK((spread(x) == xt::xtensor<float, 2>{{9, 10, 11, 12}}));
  CHECK((w.value() == xt::xtensor<float, 2>{{10, 12, 14, 16}, {10, 12, 14, 16}, {10, 12, 14, 16}}));

  // a variable's own row broadcast into all of it: the row is read before any row is written
  sf::variable<float, 3, 4> own{xt::xtensor<float, 2>{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}};
  auto spread_own = sf::function([&](auto s) {
    own.assign(own.read()(sf::span(1, 2)) * s);
    return s;
  });
  spread_own(2.f);
  CHECK((own.value() == xt::xtensor<float, 2>{{10, 12, 14, 16}, {10, 12, 14, 16}, {10, 12, 14, 16}}));

  // a heat stencil over a loop variable, ten steps, ends kept: against the same steps by hand
  auto heat = sf::function([](auto u0) {
    return sf::fori_loop(0, 10, [](auto, auto u) {
      const auto mid = u(sf::span(1, -1));
      const auto next = mid + 0.25f * (u(sf::span(2, sf::none)) - 2.f * mid + u(sf::span(sf::none, -2)));
      return sf::concat<0>(u(sf::span(sf::none, 1)), next, u(sf::span(-1, sf::none)));
    }, u0);
  });
  std::vector<float> hand = ramp(33, 0.f, 0.75f);
  const xt::xtensor<float, 1> start = xt::adapt(hand, std::array<std::size_t, 1>{33});
  for (int s = 0; s < 10; ++s) {
    std::vector<float> next = hand;
    for (std::size_t i = 1; i + 1 < 33; ++i) next[i] = hand[i] + 0.25f * (hand[i + 1] - 2.f * hand[i] + hand[i - 1]);
    hand = next;
  }
  CHECK((heat(start) == xt::adapt(hand, std::array<std::size_t, 1>{33})));
}

TEST_CASE("slot views: x[i] reads its row where it lies, and an index out of range still throws first",
          "[plan][slot_views]") {
  const std::size_t rows = 256, width = 4096;  // 4 MB
  xt::xtensor<float, 2> m = xt::xtensor<float, 2>::from_shape({rows, width});
  for (std::size_t i = 0; i < m.size(); ++i) m.flat(i) = static_cast<float>(i % 1013) * 0.5f;
  xt::xtensor<float, 1> out = xt::zeros<float>({width});
  // a row by a C++ integer, a negative one, and one by a tensor index; each row is 16 KB, and the
  // slot of a copy would be one more 16 KB buffer per x[i] (three here, six calls)
  auto rows_sum = sf::function([](auto x, auto k) { return x[3] + x[-1] + x[k] * 2.f; });
  std::size_t arena_bytes = 0;
  std::thread([&] {
    for (int call = 0; call < 6; ++call) rows_sum.call_into(out, m, std::int32_t{7});
    arena_bytes = sf::plan::arena::local().capacity();
  }).join();
  CHECK(arena_bytes == 0);
  std::size_t wrong = 0;
  for (std::size_t j = 0; j < width; ++j) wrong += out(j) != m(3, j) + m(rows - 1, j) + m(7, j) * 2.f;
  CHECK(wrong == 0);

  // x[i] of a slot (a matmul), of a slice (a view of a view), in a loop over a loop's counter
  const xt::xtensor<float, 2> a = {{1, 2}, {3, 4}, {5, 6}};
  auto of_slots = sf::function([](auto x) {
    return std::tuple{sf::matmul(x, sf::transpose(x))[1] * 1.f, x(sf::span(1, sf::none))[1] * 1.f,
                      sf::fori_loop(0, 3, [&](auto i, auto acc) { return acc + x[i]; }, x[0] * 0.f)};
  });
  const auto [product_row, slice_row, summed] = of_slots(a);
  CHECK((product_row == xt::xtensor<float, 1>{11, 25, 39}));
  CHECK((slice_row == xt::xtensor<float, 1>{5, 6}));
  CHECK((summed == xt::xtensor<float, 1>{9, 12}));

  // an index out of range: sf::shape_error, and a variable assigned in the same call is unchanged
  sf::variable<float> counter{0.f};
  auto counted = sf::function([&](auto x, auto k) {
    counter.assign_add(1.f);
    return x[k] * 1.f;
  });
  CHECK_THROWS_WITH(counted(a, std::int32_t{3}), "staticflow: x[i]: index 3 is out of range for an axis of size 3");
  CHECK_THROWS_WITH(counted(a, std::int32_t{-4}), "staticflow: x[i]: index -4 is out of range for an axis of size 3");
  CHECK((counted(a, std::int32_t{-3}) == xt::xtensor<float, 1>{1, 2}));
  CHECK(counter.value() == 1.f);
}
