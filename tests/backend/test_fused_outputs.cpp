// Tests for backend/cpu/fused_outputs.hpp: a function's full reduction and its elementwise outputs
// of the same extents computed in one pass (value_and_grad of an elementwise loss). The value is
// bit-identical to the forward call's, the outputs equal the formulas, every size takes the same
// values (empty, one element, vector tails, several blocks), threads change nothing, and calls
// the pass cannot take (broadcasting, an output over an input) compute the same values the usual
// way. cpu::fused_pass_counter tells which path a call took.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <tuple>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
using vec = xt::xtensor<float, 1>;

vec ramp(std::size_t n, float lo, float step, std::size_t period) {
  vec v = vec::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) v(i) = lo + step * static_cast<float>(i % period);
  return v;
}

const auto tanh_loss = [](auto x, auto w, auto b) { return sf::reduce_sum(sf::tanh(x * w + b)); };
const auto four_inputs = [](auto a, auto b, auto c, auto d) { return sf::reduce_sum((a * b + c * d - a / (b + 1.f)) * 0.5f); };

template <class F, class... A>
constexpr bool fuses(F& f, const A&... a) {
  return std::remove_cvref_t<decltype(f.get_concrete_function(a...))>::fuses_outputs;
}

struct thread_count {
  explicit thread_count(std::size_t n) { sf::set_num_threads(n); }
  ~thread_count() { sf::set_num_threads(1); }
};
}  // namespace

TEST_CASE("fused outputs: the loss and its gradient in one pass, at every size") {
  auto vg = sf::value_and_grad<1>(tanh_loss);
  auto forward = sf::function(tanh_loss);
  const float b = 0.1f;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{63}, std::size_t{64},
                        std::size_t{65}, std::size_t{4096}, std::size_t{4097}, std::size_t{3 * 4096 + 5},
                        std::size_t{100003}}) {
    INFO("n = " << n);
    const vec x = ramp(n, -1.f, 0.002f, 1000), w = ramp(n, 0.5f, -0.001f, 700);
    float l = -1;
    vec gw = vec::from_shape({n});
    const std::size_t before = sf::cpu::fused_pass_counter();
    vg.call_into(std::tie(l, gw), x, w, b);
    CHECK(sf::cpu::fused_pass_counter() == before + 1);
    const float value = forward(x, w, b);
    CHECK(l == value);  // the reduction's order is the forward call's: the same bits
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double t = std::tanh(double(x(i)) * double(w(i)) + double(b));
      worst = std::max(worst, std::fabs((1 - t * t) * double(x(i)) - double(gw(i))));
    }
    CHECK(worst < 1e-6);
    // by value: the same pass, the same results
    const auto [l2, g2] = vg(x, w, b);
    CHECK(sf::cpu::fused_pass_counter() == before + 2);
    CHECK(l2 == l);
    CHECK((g2 == gw));
  }
  CHECK(fuses(vg, vec{}, vec{}, b));
}

TEST_CASE("fused outputs: four gradients of one loss, each input read once") {
  auto vg = sf::value_and_grad<0, 1, 2, 3>(four_inputs);
  auto forward = sf::function(four_inputs);
  const std::size_t n = 5000;
  const vec a = ramp(n, -1.f, 0.002f, 1000), b = ramp(n, 0.5f, 0.001f, 900), c = ramp(n, 2.f, -0.003f, 800),
            d = ramp(n, -0.5f, 0.001f, 700);
  float l = 0;
  vec ga = vec::from_shape({n}), gb = ga, gc = ga, gd = ga;
  const std::size_t before = sf::cpu::fused_pass_counter();
  vg.call_into(std::tie(l, ga, gb, gc, gd), a, b, c, d);
  CHECK(sf::cpu::fused_pass_counter() == before + 1);
  CHECK(l == forward(a, b, c, d));
  for (std::size_t i = 0; i < n; i += 97) {
    const double inv = 1 / (double(b(i)) + 1);
    CHECK(ga(i) == Approx(0.5 * (b(i) - inv)).epsilon(1e-5).margin(1e-6));
    CHECK(gb(i) == Approx(0.5 * (a(i) + a(i) * inv * inv)).epsilon(1e-5).margin(1e-6));
    CHECK(gc(i) == Approx(0.5 * d(i)).epsilon(1e-6));
    CHECK(gd(i) == Approx(0.5 * c(i)).epsilon(1e-6));
  }
}

TEST_CASE("fused outputs: a mean squared error (its 1 / count stored as a scalar, not spread into an array)") {
  auto vg = sf::value_and_grad<0>([](auto w, auto x, auto y) { return sf::reduce_mean(sf::square(x * w - y)); });
  auto forward = sf::function([](auto w, auto x, auto y) { return sf::reduce_mean(sf::square(x * w - y)); });
  const std::size_t n = 10007;
  const vec w = ramp(n, 0.5f, -0.001f, 700), x = ramp(n, -1.f, 0.002f, 1000), y = ramp(n, 0.25f, 0.003f, 300);
  const std::size_t before = sf::cpu::fused_pass_counter();
  const auto [l, gw] = vg(w, x, y);
  CHECK(sf::cpu::fused_pass_counter() == before + 1);
  CHECK(l == forward(w, x, y));
  for (std::size_t i = 0; i < n; i += 101) {
    const double r = double(x(i)) * double(w(i)) - double(y(i));
    CHECK(gw(i) == Approx(2 * r * double(x(i)) / double(n)).epsilon(1e-5).margin(1e-9));
  }
  // the gradient graph spreads a stored scalar, it does not store the spread array
  const std::string listing = vg.get_concrete_function(w, x, y).graph_string();
  CHECK(listing.find("float32[] = materialize") != std::string::npos);
  CHECK(listing.find("float32[None] = materialize") == std::string::npos);
}

TEST_CASE("fused outputs: one or two threads give the same bits") {
  auto vg = sf::value_and_grad<0, 1>(tanh_loss);
  const std::size_t n = 300007;  // several blocks per thread and a tail
  const vec x = ramp(n, -1.f, 0.002f, 1000), w = ramp(n, 0.5f, -0.001f, 700);
  const auto [l1, gx1, gw1] = vg(x, w, 0.25f);
  thread_count two(2);
  const std::size_t before = sf::cpu::fused_pass_counter();
  const auto [l2, gx2, gw2] = vg(x, w, 0.25f);
  CHECK(sf::cpu::fused_pass_counter() == before + 1);
  CHECK(l2 == l1);
  CHECK((gx2 == gx1));
  CHECK((gw2 == gw1));
}

TEST_CASE("fused outputs: calls the pass cannot take compute the same values the usual way") {
  SECTION("an argument that broadcasts at run time") {
    auto vg = sf::value_and_grad<0>([](auto x, auto b) { return sf::reduce_sum(sf::tanh(x + b)); });
    xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({3, 40});
    for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = -1.f + 0.05f * static_cast<float>(i % 41);
    xt::xtensor<float, 2> b = xt::xtensor<float, 2>::from_shape({1, 40});
    for (std::size_t j = 0; j < 40; ++j) b(0, j) = 0.01f * static_cast<float>(j);
    const std::size_t before = sf::cpu::fused_pass_counter();
    const auto [l, gx] = vg(x, b);
    CHECK(sf::cpu::fused_pass_counter() == before);  // b is read as a row: no flat pass
    double sum = 0;
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 40; ++j) {
        const double t = std::tanh(double(x(i, j)) + double(b(0, j)));
        sum += t;
        CHECK(gx(i, j) == Approx(1 - t * t).epsilon(1e-5));
      }
    CHECK(l == Approx(sum).epsilon(1e-5));
  }
  SECTION("a gradient written over an argument it reads") {
    auto vg = sf::value_and_grad<1>(tanh_loss);
    const std::size_t n = 1000;
    const vec x = ramp(n, -1.f, 0.002f, 1000);
    vec w = ramp(n, 0.5f, -0.001f, 700);
    const auto [l_ref, g_ref] = vg(x, w, 0.1f);
    float l = 0;
    const std::size_t before = sf::cpu::fused_pass_counter();
    vg.call_into(std::tie(l, w), x, w, 0.1f);  // w's gradient replaces w
    CHECK(sf::cpu::fused_pass_counter() == before);
    CHECK(l == l_ref);
    CHECK((w == g_ref));
  }
}

TEST_CASE("fused outputs: what the plan allows, known at compile time") {
  const vec v = ramp(8, 0.f, 1.f, 8);
  const xt::xtensor_fixed<float, xt::xshape<100>> s = xt::ones<float>({100});
  auto static_vg = sf::value_and_grad<0, 1>(tanh_loss);
  CHECK(fuses(static_vg, s, s, 0.5f));
  const auto [l, gx, gw] = static_vg(s, s, 0.5f);
  CHECK(l == Approx(100 * std::tanh(1.5)).epsilon(1e-5));
  CHECK(gx(99) == Approx(1 - std::tanh(1.5) * std::tanh(1.5)).epsilon(1e-6));
  CHECK((gw == gx));
  // the gradient reads the reduction (log-sum-exp): it cannot be computed beside it
  auto lse = sf::value_and_grad<0>([](auto x) { return sf::log(sf::reduce_sum(sf::exp(x))); });
  CHECK_FALSE(fuses(lse, v));
  // a loss over a matrix product: the sum reads the product's slot, the gradient adds two
  // products' slots; both are computed after the products, in one pass
  auto mm = sf::value_and_grad<0>([](auto a) { return sf::reduce_sum(sf::matmul(a, a)); });
  xt::xtensor<float, 2> a = {{1.f, 2.f}, {3.f, 4.f}};
  CHECK(fuses(mm, a));
  const auto [mm_value, mm_grad] = mm(a);
  CHECK(mm_value == 54.f);  // (7 + 10) + (15 + 22)
  // d/da sum(a a) = 1 a^T + a^T 1: row sums of a across, plus column sums of a down
  CHECK(mm_grad == xt::xtensor<float, 2>{{7.f, 11.f}, {9.f, 13.f}});
  // one output: nothing to fuse with
  auto grad_only = sf::grad<1>(tanh_loss);
  CHECK_FALSE(fuses(grad_only, v, v, 0.5f));
}

TEST_CASE("grouped outputs: elementwise outputs of one extent in one pass, without a reduction") {
  const std::size_t n = 4099;
  const vec a = ramp(n, -1.f, 0.002f, 1000), b = ramp(n, 0.5f, 0.001f, 900), c = ramp(n, 2.f, -0.003f, 800),
            d = ramp(n, -0.5f, 0.001f, 700);
  SECTION("sf::grad with respect to four arguments") {
    auto g = sf::grad<0, 1, 2, 3>(four_inputs);
    std::size_t before = sf::cpu::fused_pass_counter();
    const auto [ga, gb, gc, gd] = g(a, b, c, d);
    CHECK(sf::cpu::fused_pass_counter() == before + 1);
    for (std::size_t i = 0; i < n; i += 31) {
      const double inv = 1 / (double(b(i)) + 1);
      CHECK(ga(i) == Approx(0.5 * (b(i) - inv)).epsilon(1e-5).margin(1e-6));
      CHECK(gb(i) == Approx(0.5 * (a(i) + a(i) * inv * inv)).epsilon(1e-5).margin(1e-6));
      CHECK(gc(i) == Approx(0.5 * d(i)).epsilon(1e-6));
      CHECK(gd(i) == Approx(0.5 * c(i)).epsilon(1e-6));
    }
    vec ga2 = vec::from_shape({n}), gb2 = ga2, gc2 = ga2, gd2 = ga2;
    before = sf::cpu::fused_pass_counter();
    g.call_into(std::tie(ga2, gb2, gc2, gd2), a, b, c, d);
    CHECK(sf::cpu::fused_pass_counter() == before + 1);
    CHECK(((ga2 == ga) && (gb2 == gb) && (gc2 == gc) && (gd2 == gd)));
  }
  SECTION("sf::jvp: the value and its tangent share the tanh") {
    auto j = sf::jvp<0>([](auto x, auto w) { return sf::tanh(x * w); });
    const std::size_t before = sf::cpu::fused_pass_counter();
    const auto [y, dy] = j(a, b, c);
    CHECK(sf::cpu::fused_pass_counter() == before + 1);
    for (std::size_t i = 0; i < n; i += 31) {
      const double t = std::tanh(double(a(i)) * double(b(i)));
      CHECK(y(i) == Approx(t).epsilon(1e-6).margin(1e-7));
      CHECK(dy(i) == Approx((1 - t * t) * double(b(i)) * double(c(i))).epsilon(1e-5).margin(1e-6));
    }
  }
  SECTION("a loop body's two variables") {
    auto f = sf::function([](auto x, auto w, auto steps) {
      return sf::fori_loop(0, steps, [&](auto, auto h, auto s) { return std::tuple{sf::tanh(h * w + x), s + h}; },
                           x, x * 0.f);
    });
    const std::size_t before = sf::cpu::fused_pass_counter();
    const auto [h, s] = f(a, b, 5);
    CHECK(sf::cpu::fused_pass_counter() == before + 6);  // one pass per iteration, one copying the results out
    for (std::size_t i = 0; i < n; i += 31) {
      float hr = a(i), sr = 0.f;
      for (int k = 0; k < 5; ++k) {
        const float next = std::tanh(hr * b(i) + a(i));
        sr += hr;
        hr = next;
      }
      CHECK(h(i) == Approx(hr).epsilon(1e-5));
      CHECK(s(i) == Approx(sr).epsilon(1e-5));
    }
  }
  SECTION("outputs of different extents: one loop each") {
    auto f = sf::function([](auto x, auto y) { return std::tuple{x * 2.f, y * 3.f}; });
    const vec y = ramp(10, 1.f, 1.f, 10);
    const std::size_t before = sf::cpu::fused_pass_counter();
    const auto [x2, y3] = f(a, y);
    CHECK(sf::cpu::fused_pass_counter() == before);
    CHECK(x2(n - 1) == 2 * a(n - 1));
    CHECK(y3(9) == 30.f);
  }
}
