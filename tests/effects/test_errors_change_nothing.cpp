// Issue 22 item 5: each run-time error of a call (docs/errors.md, "Run-time errors") changes no
// state. Every function here runs an effect (assign_add on a variable) next to the op that fails;
// the failing call comes after a successful call of the same signature, and must leave the
// variable, the trace cache (tracing_count, cache_size) and a call_into output exactly as they
// were, with the catalogued message.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <tuple>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
/// Calls `good()` once (it must succeed), then `bad()`, which must throw E with a message starting
/// with `message` (docs/errors.md), and checks that it changed neither `counter` nor f's cache.
template <class E, class F, class Good, class Bad>
void changes_nothing(F& f, const sf::variable<double>& counter, Good good, Bad bad, const std::string& message) {
  INFO(message);
  good();
  const double value = counter.value();
  const auto traces = f.tracing_count();
  const auto cached = f.cache_size();
  CHECK_THROWS_AS(bad(), E);
  CHECK_THROWS_WITH(bad(), Catch::StartsWith(message));
  CHECK(counter.value() == value);
  CHECK(f.tracing_count() == traces);
  CHECK(f.cache_size() == cached);
  good();  // the function still works
  CHECK(counter.value() > value);
}
}  // namespace

TEST_CASE("run-time shape errors in a call run no effect and trace nothing", "[effects][errors]") {
  sf::variable<double> counter{0.0};
  using v1 = xt::xtensor<float, 1>;
  using v2 = xt::xtensor<float, 2>;
  const v2 a23 = {{1, 2, 3}, {4, 5, 6}}, a32 = {{1, 2}, {3, 4}, {5, 6}}, a22 = {{1, 2}, {3, 4}};

  auto add = sf::function([&](auto x, auto y) { counter.assign_add(1.0); return x + y; });
  changes_nothing<sf::shape_error>(add, counter, [&] { return add(a23, a23); }, [&] { return add(a23, a32); },
                                   "staticflow: shapes (2, 3) and (3, 2) do not broadcast");

  auto mm = sf::function([&](auto x, auto y) { counter.assign_add(1.0); return sf::matmul(x, y); });
  changes_nothing<sf::shape_error>(mm, counter, [&] { return mm(a23, a32); }, [&] { return mm(a23, a23); },
                                   "staticflow: matmul: shapes (2, 3) and (2, 3) have inner dimensions 3 and 2");

  auto cat = sf::function([&](auto x, auto y) { counter.assign_add(1.0); return sf::concat<0>(x, y); });
  changes_nothing<sf::shape_error>(cat, counter, [&] { return cat(a23, a23); }, [&] { return cat(a23, a22); },
                                   "staticflow: concat: shapes (2, 3) and (2, 2) differ off axis 0");

  auto rs = sf::function([&](auto x) { counter.assign_add(1.0); return sf::reshape<sf::shape<sf::dyn, 4>>(x); });
  changes_nothing<sf::shape_error>(rs, counter, [&] { return rs(v1{1, 2, 3, 4}); }, [&] { return rs(v1{1, 2, 3}); },
                                   "staticflow: reshape: cannot reshape (3,) to (None, 4)");

  auto sl = sf::function([&](auto x) { counter.assign_add(1.0); return sf::slice(x, sf::axes<0>{}, 1, 5); });
  changes_nothing<sf::shape_error>(sl, counter, [&] { return sl(v2(xt::ones<float>({6, 3}))); }, [&] { return sl(a23); },
                                   "staticflow: slice: [1, 6) is out of range for axis 0 of shape (2, 3)");

  // a plain int axis is a trace-time number checked when the call runs: the first call traces and
  // throws, the second must find the trace and change nothing
  auto ax = sf::function([&](auto x) { counter.assign_add(1.0); return sf::reduce_sum(x, 2); });
  const double before_axis = counter.value();
  CHECK_THROWS_WITH(ax(a23), "staticflow: axis 2 is out of range for rank 2");
  CHECK(counter.value() == before_axis);  // the first call ran no effect either
  CHECK(ax.tracing_count() == 1);
  CHECK_THROWS_AS(ax(a23), sf::shape_error);
  CHECK(counter.value() == before_axis);
  CHECK(ax.tracing_count() == 1);

  auto am = sf::function([&](auto x) { counter.assign_add(1.0); return sf::argmax(x, sf::axes<1>{}); });
  changes_nothing<sf::shape_error>(am, counter, [&] { return am(a23); },
                                   [&] { return am(v2::from_shape({3, 0})); },
                                   "staticflow: argmax: axis 1 is empty in shape (3, 0)");

  auto ta = sf::function([&](auto i) { counter.assign_add(1.0); return sf::tensor_array<int>{}.write(i, 1).stack(); });
  changes_nothing<sf::shape_error>(ta, counter, [&] { return ta(2); }, [&] { return ta(-1); },
                                   "staticflow: tensor_array::write: index -1 is negative");
}

TEST_CASE("call_into errors leave the output and the variables as they were", "[effects][errors]") {
  sf::variable<double> counter{0.0};
  auto f = sf::function([&](auto x) { counter.assign_add(1.0); return x * 2.f; });
  const xt::xtensor<float, 1> x{1, 2, 3};
  xt::xtensor<float, 1> out{7, 7, 7}, short_out{9, 9};
  changes_nothing<sf::shape_error>(f, counter, [&] { f.call_into(out, x); }, [&] { f.call_into(short_out, x); },
                                   "staticflow: call_into: output 0 has shape (2,), the result has shape (3,)");
  CHECK((short_out == xt::xtensor<float, 1>{9, 9}));
  CHECK((out == xt::xtensor<float, 1>{2, 4, 6}));

  auto g = sf::function<sf::dtypes<std::int32_t>, sf::ranks<1>>([&](auto v) { counter.assign_add(1.0); return v + 1; });
  sf::tensor in = xt::xarray<int>{1, 2, 3};
  sf::tensor float_out = sf::tensor::zeros<float>({3});
  sf::tensor int_out = sf::tensor::zeros<std::int32_t>({3});
  changes_nothing<sf::signature_error>(g, counter, [&] { g.call_into(int_out, in); }, [&] { g.call_into(float_out, in); },
                                       "staticflow: call_into: output 0 has dtype float32, the result has dtype int32");
  CHECK(float_out.data<float>()[0] == 0.f);
  CHECK(int_out.data<std::int32_t>()[2] == 4);
}

TEST_CASE("signature errors trace nothing and run no effect", "[effects][errors]") {
  sf::variable<double> counter{0.0};
  auto sig = sf::function<sf::spec<float, sf::dyn>>([&](auto x) { counter.assign_add(1.0); return x * 2.f; });
  sf::tensor good = xt::xarray<float>{1, 2};
  sf::tensor wrong_dtype = xt::xarray<int>{1, 2};
  changes_nothing<sf::signature_error>(
      sig, counter, [&] { return sig(good); }, [&] { return sig(wrong_dtype); },
      "staticflow: argument 0 has dtype int32, expected float32 (got int32[2]");

  auto ranked = sf::function<sf::ranks<1>>([&](auto x) { counter.assign_add(1.0); return x * 2.f; });
  sf::tensor matrix = xt::xarray<float>(xt::ones<float>({1, 1}));
  changes_nothing<sf::signature_error>(
      ranked, counter, [&] { return ranked(good); }, [&] { return ranked(matrix); },
      "staticflow: argument 0 has rank 2, and no variant compiled for this call (float32[1,1]) takes it");
}

TEST_CASE("a variable assignment of the wrong shape, and a changed capture, change nothing", "[effects][errors]") {
  sf::variable<double> counter{0.0};
  sf::variable<float, 3> v{{1.f, 2.f, 3.f}};
  auto assign = sf::function([&](auto x) { counter.assign_add(1.0); v.assign(x); return x; });
  changes_nothing<sf::shape_error>(assign, counter, [&] { return assign(xt::xtensor<float, 1>{4, 5, 6}); },
                                   [&] { return assign(xt::xtensor<float, 1>{7, 8}); },
                                   "staticflow: shapes (2,) and (3,) do not broadcast");  // traced: the value's extents
  CHECK((v.value() == xt::xtensor<float, 1>{4, 5, 6}));

  xt::xtensor<int, 1> data{1, 2, 3};
  auto cap = sf::function([&](auto k) { counter.assign_add(1.0); return sf::capture(data) + k; });
  const auto before = cap(1);
  CHECK((before == xt::xtensor<int, 1>{2, 3, 4}));
  const double value = counter.value();
  data = xt::xtensor<int, 1>{1, 2, 3, 4, 5};
  CHECK_THROWS_MATCHES(cap(1), sf::shape_error,
                       Catch::Message("staticflow: sf::capture: the captured container has shape (5,), the function "
                                      "was traced for shape (3,) (trace again with clear_cache(), or capture a "
                                      "container of fixed shape)"));
  CHECK(counter.value() == value);
  CHECK(cap.tracing_count() == 1);
}
