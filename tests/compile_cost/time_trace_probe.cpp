// What compile_cost.time_trace compiles with clang's -ftime-trace: one function with a
// materialized slot (a reduction) and its gradient, so the trace holds the planner and backprop.
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

int main() {
  auto loss = [](auto x) { return sf::reduce_sum(sf::square(x - sf::reduce_mean(x))); };
  auto grad = sf::grad<0>(loss);
  xt::xtensor<float, 1> x = {1.f, 2.f, 4.f};
  const auto g = grad(x);
  return g.size() == 3 ? 0 : 1;
}
