// A graph nested deeper than STATICFLOW_CONSTANT_TRACE_DEPTH (core/config.hpp) is not traced by
// the compiler: the gradient of a 70-node chain (bench/compile_time_gen.py's, nesting depth 156;
// 163 for this template's) reached g++'s constant-evaluation depth inside the planner's walk,
// which stopped the build ("'constexpr' evaluation depth exceeds maximum of 512" from an `if
// constexpr` instantiated at that depth) where a failed constant trace should only fail the
// constraint. Asking whether the compiler traces it is what failed, so the check is that question;
// calling it would add the run-time trace's code (about 25 s and 1.9 GB of g++ here), and run-time
// plans of gradients are what every other gradient test with a capturing lambda checks.
#include "generated_chain.hpp"
#include "gradient_check.hpp"

namespace sf = staticflow;

namespace {
// (named only in decltype: the question is about its type)
[[maybe_unused]] const auto chain70 = [](auto a, auto b, auto c, auto d) { return generated_chain::chain<70>(a * 0.5, a, b, c, d); };
using vecd = xt::xtensor<double, 1>;
}  // namespace

TEST_CASE("deep_chain: a 70-node chain's gradient compiles, and is planned at run time") {
  using deep = decltype(sf::value_and_grad<0, 1, 2, 3>(chain70))::concrete_type<vecd, vecd, vecd, vecd>;
  STATIC_REQUIRE(sf::detail::deepest_output_v<deep::output_values_type> == 163);
  STATIC_REQUIRE(STATICFLOW_CONSTANT_TRACE_DEPTH < 163);
  STATIC_REQUIRE_FALSE(deep::traced_at_compile_time);
}
