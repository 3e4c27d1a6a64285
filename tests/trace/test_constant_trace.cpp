// Tests for trace/constant_trace.hpp: a stateless lambda whose trace is a constant expression is
// also traced and planned by the compiler, and its calls evaluate that constant plan; every
// other lambda keeps the plan made from its run-time trace. Both give the same results.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {

using vec4f = xt::xtensor_fixed<float, xt::xshape<4>>;
using mat23f = xt::xtensor_fixed<float, xt::xshape<2, 3>>;
using vecf = xt::xtensor<float, 1>;

// The concrete function type a call with arguments A... would use.
template <class... A, class Fn>
constexpr bool traced_at_compile_time(const Fn&) {
  using F = decltype(sf::function(std::declval<Fn>()));
  return F::template concrete_type<A...>::traced_at_compile_time;
}

auto collatz_body = [](auto n) {
  auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1; },
                                   [](auto s, auto m) {
                                     return std::tuple{s + 1, sf::where(m % 2 == 0, m / 2, 3 * m + 1)};
                                   },
                                   0, n);
  return steps;
};

int hand_collatz(std::int64_t m) {
  int steps = 0;
  for (; m != 1; ++steps) m = m % 2 == 0 ? m / 2 : 3 * m + 1;
  return steps;
}

// x * 1.01 + 0.5, Steps times: a graph nested 2 * Steps + 1 deep (each step a product and a sum)
template <int Steps, class X>
constexpr auto affine_chain(const X& x) {
  if constexpr (Steps == 0) return x;
  else return affine_chain<Steps - 1>(x * 1.01f + 0.5f);
}
template <int Steps>
const auto affine_steps = [](auto x) { return affine_chain<Steps>(x); };

int scale_by = 3;  // run-time state a lambda may read (so its trace is not a constant expression)

}  // namespace

TEST_CASE("a stateless lambda is traced by the compiler too, and its calls evaluate that plan", "[constant_trace]") {
  auto collatz = sf::function(collatz_body);
  using C = decltype(collatz)::concrete_type<std::int64_t>;
  STATIC_REQUIRE(C::traced_at_compile_time);

  for (std::int64_t n = 1; n <= 3000; ++n) REQUIRE(collatz(n) == hand_collatz(n));
  CHECK(collatz(std::int64_t{27}) == 111);
  CHECK(collatz.tracing_count() == 1);  // one trace per signature, as TensorFlow counts them

  // the plan calls use is the compiler's constant, not the object's own
  const auto& concrete = collatz.get_concrete_function(std::int64_t{1});
  using Sig = C::signature_type;
  CHECK(&concrete.evaluation_plan() ==
        &sf::detail::constant_plan_v<C::plan_type, C::output_values_type, decltype(collatz_body), Sig>);
  // and it equals the plan of the run-time trace, literal values included (loop bodies too)
  const C::plan_type run_time_plan(sf::detail::output_values_of<C::output_values_type>(concrete.graph()));
  CHECK(sf::graph::detail::plans_equal(run_time_plan, concrete.evaluation_plan()));
  constexpr auto traced = sf::detail::constant_trace<decltype(collatz_body), Sig>();
  auto listing = sf::detail::parameter_listing<Sig>();
  listing.add_output(traced);
  CHECK(listing.jaxpr() == concrete.graph_string());
}

TEST_CASE("literal values computed by the compiler's plan equal the run-time plan's, bit for bit", "[constant_trace]") {
  auto stateless = sf::function([](auto x) { return sf::exp(x * 0.1f + 1e-3f) / 3.0f - sf::reduce_sum(x) * 0.7f; });
  const float point_one = 0.1f, small = 1e-3f, three = 3.0f, seven_tenths = 0.7f;
  auto captured = sf::function([=](auto x) {  // the same literals as captured values: run-time plan
    return sf::exp(x * point_one + small) / three - sf::reduce_sum(x) * seven_tenths;
  });
  vec4f x = {1.5f, -2.25f, 0.3f, 7.0f};
  STATIC_REQUIRE(decltype(stateless)::concrete_type<vec4f>::traced_at_compile_time);
  STATIC_REQUIRE_FALSE(decltype(captured)::concrete_type<vec4f>::traced_at_compile_time);
  vec4f a = stateless(x), b = captured(x);
  for (std::size_t i = 0; i < 4; ++i) CHECK(a(i) == b(i));
  CHECK(a(0) == Approx(std::exp(1.5f * 0.1f + 1e-3f) / 3.0f - 6.55f * 0.7f));
}

TEST_CASE("lambdas the compiler cannot trace keep their run-time plan and behave as before", "[constant_trace]") {
  vec4f x = {1.f, 2.f, 3.f, 4.f};

  SECTION("captures: a default-constructed copy would not be the function called") {
    const float k = 2.5f;
    auto by_value = sf::function([k](auto v) { return v * k; });
    STATIC_REQUIRE_FALSE(decltype(by_value)::concrete_type<vec4f>::traced_at_compile_time);
    CHECK(by_value(x)(3) == 10.f);
    int traces = 0;
    auto by_reference = sf::function([&](auto v) {
      ++traces;
      return v + 1.f;
    });
    STATIC_REQUIRE_FALSE(decltype(by_reference)::concrete_type<vec4f>::traced_at_compile_time);
    by_reference(x);
    CHECK(by_reference(x)(0) == 2.f);
    CHECK(traces == 1);
  }

  SECTION("C++ side effects while tracing: they happen once, at the run-time trace") {
    auto noisy = [](auto v) {
      std::printf("%s", "");  // not a constant expression
      return v * 2.f;
    };
    CHECK_FALSE(traced_at_compile_time<vec4f>(noisy));
    auto f = sf::function(noisy);
    CHECK(f(x)(1) == 4.f);
    CHECK(f.tracing_count() == 1);
  }

  SECTION("run-time state read while tracing") {
    auto scaled = [](auto v) { return v * scale_by; };
    CHECK_FALSE(traced_at_compile_time<xt::xtensor_fixed<int, xt::xshape<2>>>(scaled));
    auto f = sf::function(scaled);
    CHECK(f(xt::xtensor_fixed<int, xt::xshape<2>>{1, 2})(1) == 6);
  }

  SECTION("effects: sf::print runs on every call") {
    auto printing = [](auto v) {
      static std::ostringstream printed;  // a static local: allowed in a lambda, not in a constant expression
      sf::print(sf::output_stream(printed), "v:", v);
      return v - 1.f;
    };
    CHECK_FALSE(traced_at_compile_time<vec4f>(printing));
    auto f = sf::function(printing);
    CHECK(f(x)(0) == 0.f);
    CHECK(f(x)(3) == 3.f);
  }
}

TEST_CASE("the compiler traces every op and combinator", "[constant_trace]") {
  using v4i = xt::xtensor_fixed<int, xt::xshape<4>>;
  CHECK(traced_at_compile_time<vec4f, vec4f>([](auto x, auto y) { return x * x + y * 2.0f; }));
  CHECK(traced_at_compile_time<vecf, vecf>([](auto x, auto y) { return x * x + y * 2.0f; }));  // run-time dims
  CHECK(traced_at_compile_time<mat23f>([](auto x) { return sf::reduce_sum(x, sf::axes<1>{}); }));
  CHECK(traced_at_compile_time<mat23f>([](auto x) { return sf::argmax(x); }));
  CHECK(traced_at_compile_time<mat23f>([](auto x) { return sf::matmul(x, sf::transpose(x)); }));
  CHECK(traced_at_compile_time<mat23f>([](auto x) { return sf::softmax(x); }));
  CHECK(traced_at_compile_time<mat23f>([](auto x) { return sf::reshape<sf::shape<3, 2>>(x); }));
  CHECK(traced_at_compile_time<mat23f>([](auto x) { return sf::concat<0>(x, x); }));
  CHECK(traced_at_compile_time<v4i>([](auto x) { return sf::one_hot<4>(x); }));
  CHECK(traced_at_compile_time<vec4f>([](auto x) { return sf::cast<int>(x) + 1; }));
  CHECK(traced_at_compile_time<vec4f>([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0, [&] { return sf::abs(x); }, [&] { return sf::square(x); });
  }));
  CHECK(traced_at_compile_time<int, vec4f>([](auto i, auto x) {
    return sf::switch_case(i, [&] { return x; }, [&] { return x * 2.0f; });
  }));
  CHECK(traced_at_compile_time<std::int64_t>(collatz_body));
  CHECK(traced_at_compile_time<vec4f, int>([](auto x, auto n) {
    return sf::fori_loop(0, n, [](auto, auto v) { return v * 2.0f; }, x);
  }));
  CHECK(traced_at_compile_time<vec4f>([](auto x) {
    return sf::scan([](auto c, auto e) { return std::tuple{c + e, c * e}; }, 0.0f, x);
  }));
  CHECK(traced_at_compile_time<vec4f>([](auto x) {
    auto ta = sf::fori_loop(0, sf::size(x), [&](auto i, auto ta) { return ta.write(i, x[i] + 1); },
                            sf::tensor_array<float>{});
    return ta.stack();
  }));
}

TEST_CASE("a function the compiler traced makes its graph only when asked for, once, on any thread", "[constant_trace]") {
  // a gradient: the run-time trace (the adjoint's walk) is the largest code such a function
  // would compile, and calls never need it (they evaluate the compiler's plan)
  constexpr auto loss = [](auto w, auto x) { return sf::reduce_sum(sf::tanh(x * w) * x); };
  auto vg = sf::value_and_grad<0>(loss);
  auto vg_captured = sf::value_and_grad<0>([loss](auto w, auto x) { return loss(w, x); });  // (has state)
  const vec4f w = {0.5f, -1.0f, 2.0f, 0.25f}, x = {1.0f, 2.0f, -0.5f, 3.0f};
  STATIC_REQUIRE(decltype(vg)::concrete_type<vec4f, vec4f>::traced_at_compile_time);
  STATIC_REQUIRE_FALSE(decltype(vg_captured)::concrete_type<vec4f, vec4f>::traced_at_compile_time);
  const auto [value, dw] = vg(w, x);
  const auto [value_captured, dw_captured] = vg_captured(w, x);
  CHECK(value == value_captured);
  for (std::size_t i = 0; i < 4; ++i) {
    const float t = std::tanh(x(i) * w(i));
    CHECK(dw(i) == Approx((1 - t * t) * x(i) * x(i)).epsilon(1e-5));
    CHECK(dw(i) == dw_captured(i));
  }

  // four threads ask for the listing at once: one graph, made once, listed alike
  const auto& concrete = vg.get_concrete_function(w, x);
  std::vector<std::string> listings(4);
  std::vector<const void*> graphs(4);
  {
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        graphs[t] = &concrete.graph();
        listings[t] = concrete.graph_string();
      });
    for (auto& th : threads) th.join();
  }
  for (std::size_t t = 1; t < 4; ++t) {
    CHECK(graphs[t] == graphs[0]);
    CHECK(listings[t] == listings[0]);
  }
  // the graph a trace at run time makes (the one the first call made before)
  using C = decltype(vg)::concrete_type<vec4f, vec4f>;
  const auto traced = sf::detail::constant_trace<decltype(sf::value_and_grad_fn<0>(loss)), C::signature_type>();
  auto listing = sf::detail::parameter_listing<C::signature_type>();
  std::apply([&](const auto&... out) { (listing.add_output(out), ...); }, traced);
  CHECK(listings[0] == listing.jaxpr());
  CHECK(listings[0].find("Tanh") != std::string::npos);
  CHECK(vg.tracing_count() == 1);
}

TEST_CASE("a graph nested deeper than STATICFLOW_CONSTANT_TRACE_DEPTH is planned at run time, with the same values",
          "[constant_trace]") {
  using sf::graph::nesting_depth_v;
  using x_node = sf::graph::argument<0, float, sf::shape<4>>;
  using lit = sf::graph::literal<float>;
  using product = sf::graph::binary<sf::op::multiply, x_node, lit>;
  STATIC_REQUIRE(nesting_depth_v<x_node> == 1);
  STATIC_REQUIRE(nesting_depth_v<product> == 2);
  STATIC_REQUIRE(nesting_depth_v<sf::graph::binary<sf::op::add, product, x_node>> == 3);
  STATIC_REQUIRE(nesting_depth_v<sf::graph::unary<sf::op::tanh, product>> == 3);

  // 20 steps are traced by the compiler; 70, nested 141 deep, are not tried. (Its constant
  // evaluation would fail anyway, quietly: a forward chain past about 62 steps, nested 125 deep, is
  // not traced. At 120 steps the attempt passed g++'s template depth of 900 in the planner's walk
  // and stopped the build, which the bound avoids too.)
  using shallow = decltype(sf::function(affine_steps<20>))::concrete_type<vec4f>;
  using deep = decltype(sf::function(affine_steps<70>))::concrete_type<vec4f>;
  STATIC_REQUIRE(sf::detail::deepest_output_v<shallow::output_values_type> == 41);
  STATIC_REQUIRE(sf::detail::deepest_output_v<deep::output_values_type> == 141);
  STATIC_REQUIRE(41 <= STATICFLOW_CONSTANT_TRACE_DEPTH);
  STATIC_REQUIRE(141 > STATICFLOW_CONSTANT_TRACE_DEPTH);
  STATIC_REQUIRE(shallow::traced_at_compile_time);
  STATIC_REQUIRE_FALSE(deep::traced_at_compile_time);

  const vec4f x = {-2.f, 0.f, 0.25f, 3.f};
  auto f_shallow = sf::function(affine_steps<20>);
  auto f_deep = sf::function(affine_steps<70>);
  const vec4f a = f_shallow(x), b = f_deep(x);
  for (std::size_t i = 0; i < 4; ++i) {
    double hand = x(i);
    for (int s = 0; s < 70; ++s) {
      hand = hand * 1.01 + 0.5;
      if (s == 19) CHECK(a(i) == Approx(hand).epsilon(1e-5));
    }
    CHECK(b(i) == Approx(hand).epsilon(1e-5));
  }
  CHECK(f_deep.tracing_count() == 1);  // traced once, at its first call
}
