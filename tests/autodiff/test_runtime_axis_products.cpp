// expand_dims / squeeze at a plain int axis (values, gradients, second derivatives through
// sf::hessian_vector_product, errors): apart from test_runtime_axis.cpp's first derivatives to
// keep each translation unit small. Forward mode: test_runtime_axis_jvp.cpp.
#include "gradient_check.hpp"

namespace sf = staticflow;
using namespace gradient_check;


TEST_CASE("expand_dims / squeeze at a plain int axis: values, gradients, second derivatives, errors") {
  const xt::xtensor<double, 2> x = {{1., 2., 3.}, {4., 5., 6.}};
  for (int a : {0, 1, 2, -1, -3}) {
    auto f = sf::function([a](auto x) { return sf::squeeze(sf::expand_dims(x, a) * 2.0, a); });
    check_same(f(x), xt::xtensor<double, 2>(2.0 * x));
  }
  auto last = sf::function([](auto x) { return sf::expand_dims(x, -1); });
  CHECK(last(x).shape() == std::array<std::size_t, 3>{2, 3, 1});
  auto middle = sf::function([](auto x) { return sf::expand_dims(x, 1); });
  CHECK(middle(x).shape() == std::array<std::size_t, 3>{2, 1, 3});
  CHECK(middle.get_concrete_function(x).graph_string() ==
        "{ lambda ; a:float64[None,None]. let\n"
        "    b:float64[None,None,None] = ExpandDims[axis=1] a\n"
        "  in (b) }\n");
  auto past = sf::function([](auto x) { return sf::expand_dims(x, 3); });
  CHECK_THROWS_WITH(past(x), "staticflow: axis 3 is out of range for rank 3");
  auto first = sf::function([](auto x) { return sf::squeeze(x, 0); });
  CHECK_THROWS_WITH(first(x), "staticflow: squeeze: axis 0 of shape (2, 3) has extent 2, not 1");
  auto from_end = sf::function([](auto x) { return sf::squeeze(x, -2) + 1.0; });
  CHECK_THROWS_WITH(from_end(x), "staticflow: squeeze: axis 0 of shape (2, 3) has extent 2, not 1");
  const xt::xtensor<double, 2> column = {{1.}, {2.}};
  check_same(sf::function([](auto x) { return sf::squeeze(x, -1); })(column), xt::xtensor<double, 1>{1., 2.});
  // a static shape keeps its rank and loses its dims to the type (the axis is a number)
  xt::xtensor_fixed<double, xt::xshape<2, 3>> fixed = x;
  CHECK(sf::function([](auto x) { return sf::expand_dims(x, 0); }).get_concrete_function(fixed).graph_string() ==
        "{ lambda ; a:float64[2,3]. let\n"
        "    b:float64[None,None,None] = ExpandDims[axis=0] a\n"
        "  in (b) }\n");

  // gradients through both, and second derivatives through a run-time-axis reduction (the
  // adjoint's own expand_dims is differentiated)
  const auto through = [](auto v) { return sf::reduce_sum(sf::tanh(sf::expand_dims(v, 0)) * sf::squeeze(sf::expand_dims(v * v, -1), -1)); };
  const auto v = random_tensor<2>({3, 4});
  CHECK(check_gradients(through, v) == 12);
  const auto dir = random_tensor<2>({3, 4});
  for (int a : {0, 1, -1}) {
    INFO("axis " << a);
    const auto curved = [a](auto x) { return sf::reduce_sum(sf::square(sf::reduce_sum(sf::tanh(x), a)) + sf::exp(sf::reduce_mean(x * x, a))); };
    CHECK(hvp_error(curved, v, dir) < 1e-6);
  }
}
