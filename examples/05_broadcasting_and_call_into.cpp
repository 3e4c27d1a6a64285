// Run-time shapes, NumPy broadcasting without temporaries, writing into your own buffers in a hot
// loop, and the errors that bad shapes raise before anything is written.
#include <iostream>
#include <vector>

#include <staticflow/staticflow.hpp>
#include <xtensor/xio.hpp>

namespace sf = staticflow;

int main() {
  auto affine = sf::function([](auto x, auto w, auto b) { return sf::relu(x * w + b); });
  xt::xtensor<float, 2> x = {{1, -2, 3}, {-4, 5, -6}};
  xt::xtensor<float, 1> w = {1.f, 0.5f, 2.f};   // a row: broadcast over the rows of x
  xt::xtensor<float, 2> b = {{0.5f}, {-1.f}};   // a column: broadcast over the columns
  std::cout << "relu(x * w + b) =\n" << affine(x, w, b) << "\n";

  // a hot loop over the caller's memory: no allocation per call, two buffers used in turn
  std::vector<float> ping(1024, 1.f), pong(1024);
  const std::array<std::size_t, 1> n{1024};
  auto ping_view = xt::adapt(ping.data(), ping.size(), xt::no_ownership(), n);
  auto pong_view = xt::adapt(pong.data(), pong.size(), xt::no_ownership(), n);
  auto step = sf::function([](auto v) { return v * 0.5f + 1.f; });
  for (int i = 0; i < 5; ++i) {
    step.call_into(pong_view, ping_view);
    step.call_into(ping_view, pong_view);
  }
  std::cout << "after 10 steps of v * 0.5 + 1 from 1: " << ping[0] << " (2 - 2^-10 = " << 2.0 - 1.0 / 1024
            << "; traces: " << step.tracing_count() << ")\n";

  // bad run-time shapes throw sf::shape_error, and the output is left as it was
  xt::xtensor<float, 1> wrong = {1.f, 2.f};
  try {
    affine(x, wrong, b);
  } catch (const sf::shape_error& e) {
    std::cout << "error: " << e.what() << "\n";
  }
  return ping[1023] == 2.f - 1.f / 1024 ? 0 : 1;
}
