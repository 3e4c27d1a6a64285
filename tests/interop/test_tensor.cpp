// Tests for interop/tensor.hpp (sf::tensor, a tensor of run-time dtype and shape),
// interop/xarray.hpp (run-time-rank containers) and interop/tensor_ref.hpp (the views the
// dispatch map hands to concrete functions).
#include <catch2/catch.hpp>

#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("sf::tensor holds a run-time dtype and shape; copies share the data", "[tensor]") {
  sf::tensor def;
  CHECK(def.dtype() == sf::dtype_id::float32);
  CHECK(def.rank() == 0);
  CHECK(def.data<float>()[0] == 0.f);

  sf::tensor i = 7;
  CHECK(i.spec_string() == "int32[]");
  sf::tensor l = 7LL;
  CHECK(l.dtype() == sf::dtype_id::int64);
  sf::tensor b = true;
  CHECK(b.spec_string() == "bool[]");

  xt::xarray<double> a = {{1., 2., 3.}, {4., 5., 6.}};
  const double* buffer = a.data();
  sf::tensor t = std::move(a);  // takes the buffer
  CHECK(t.raw_data() == static_cast<const void*>(buffer));
  CHECK(t.spec_string() == "float64[2,3]");
  CHECK(t.rank() == 2);
  CHECK(t.shape()[1] == 3);
  CHECK(t.size() == 6);
  sf::tensor shared = t;
  CHECK(shared.raw_data() == t.raw_data());
  sf::tensor copy = t.clone();
  CHECK(copy.raw_data() != t.raw_data());
  CHECK((copy.to_xarray<double>() == xt::xarray<double>{{1., 2., 3.}, {4., 5., 6.}}));

  CHECK_THROWS_MATCHES(t.data<float>(), sf::signature_error, Catch::Message("staticflow: sf::tensor holds float64, not float32"));
  CHECK_THROWS_MATCHES(t.to_xarray<int>(), sf::signature_error, Catch::Message("staticflow: sf::tensor holds float64, not int32"));

  xt::xtensor<int, 1> v = {1, 2, 3};
  sf::tensor from_expr = v * 2;  // an expression is evaluated into a new buffer
  CHECK((from_expr.to_xarray<int>() == xt::xarray<int>{2, 4, 6}));

  std::vector<float> raw = {1.f, 2.f, 3.f, 4.f};
  sf::tensor view = sf::tensor::adapt(raw.data(), {2, 2});
  CHECK(view.raw_data() == static_cast<const void*>(raw.data()));
  raw[3] = 40.f;
  CHECK(view.data<float>()[3] == 40.f);
  CHECK_THROWS_MATCHES(sf::tensor::zeros<float>({1, 1, 1, 1, 1, 1, 1, 1, 1}), sf::signature_error,
                       Catch::Message("staticflow: sf::tensor supports ranks up to 8, not 9"));
  sf::tensor z = sf::tensor::zeros<std::int64_t>({3});
  CHECK(z.spec_string() == "int64[3]");
  CHECK(z.data<std::int64_t>()[2] == 0);
  CHECK(sf::dtype_name_of(sf::dtype_id::bool_) == "bool");
  STATIC_REQUIRE(sf::dtype_id_of<double> == sf::dtype_id::float64);
}

TEST_CASE("xt::xarray and dynamic-shape xt::adapt have a run-time rank", "[xarray]") {
  STATIC_REQUIRE(sf::runtime_rank_tensor<xt::xarray<float>>);
  std::vector<float> raw(6);
  auto dynamic = xt::adapt(raw.data(), raw.size(), xt::no_ownership(), std::vector<std::size_t>{2, 3});
  STATIC_REQUIRE(sf::runtime_rank_tensor<decltype(dynamic)>);
  auto fixed_rank = xt::adapt(raw.data(), raw.size(), xt::no_ownership(), std::array<std::size_t, 2>{2, 3});
  STATIC_REQUIRE_FALSE(sf::runtime_rank_tensor<decltype(fixed_rank)>);
  STATIC_REQUIRE_FALSE(sf::argument_traits<xt::xarray<float>>::supported);  // no static signature entry
  STATIC_REQUIRE(sf::argument_traits<xt::xarray<float>>::dispatchable);
  STATIC_REQUIRE_FALSE(sf::argument_traits<xt::xarray<float, xt::layout_type::column_major>>::dispatchable);

  // a dynamic-shape adapt of the caller's memory is dispatched like an xt::xarray
  for (std::size_t k = 0; k < raw.size(); ++k) raw[k] = static_cast<float>(k);
  auto f = sf::function<sf::ranks<2>>([](auto x) { return x * 10.f; });
  auto r = f(dynamic);
  CHECK((r == xt::xarray<float>{{0.f, 10.f, 20.f}, {30.f, 40.f, 50.f}}));

  // results become xt::xarray without copying an xt::xtensor's buffer
  xt::xtensor<float, 2> m = {{1.f, 2.f}};
  const float* buffer = m.data();
  xt::xarray<float> moved = sf::detail::to_xarray<float>(std::move(m));
  CHECK(moved.data() == buffer);
  CHECK((sf::detail::to_xarray<float>(3.f) == xt::xarray<float>(3.f)));
  CHECK((sf::detail::to_xarray<int>(xt::xtensor_fixed<int, xt::xshape<2>>{1, 2}) == xt::xarray<int>{1, 2}));
}

TEST_CASE("tensor_ref is an argument of the spec it was made for", "[tensor_ref]") {
  using ref = sf::tensor_ref<float, sf::shape<sf::dyn, 3>>;
  STATIC_REQUIRE(std::is_same_v<sf::detail::signature_entry_t<ref>, sf::spec<float, sf::dyn, 3>>);
  std::vector<float> raw = {1.f, 2.f, 3.f, 4.f, 5.f, 6.f};
  ref r(raw.data(), {2, 3});
  auto f = sf::function([](auto x) { return x + x; });
  auto out = f(r);
  STATIC_REQUIRE(std::is_same_v<decltype(out), xt::xtensor<float, 2>>);
  CHECK(out(1, 2) == 12.f);
  std::vector<float> dest(6, 0.f);
  f.call_into(sf::tensor_out_ref<float, 2>(dest.data(), {2, 3}), r);
  CHECK(dest[5] == 12.f);
}
