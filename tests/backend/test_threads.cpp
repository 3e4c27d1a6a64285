// Multi-core CPU evaluation: large elementwise loops, reductions and matmuls split across threads
// give bit-for-bit the single-threaded results (the documented orders do not depend on the split).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
xt::xtensor<float, 2> random_matrix(std::size_t rows, std::size_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2, 2);
  auto m = xt::xtensor<float, 2>::from_shape({rows, cols});
  for (auto& v : m) v = dist(rng);
  return m;
}

template <class A, class B>
bool bitwise_equal(const A& a, const B& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(*a.data())) == 0;
}

struct thread_count {
  explicit thread_count(std::size_t n) { sf::set_num_threads(n); }
  ~thread_count() { sf::set_num_threads(1); }
};
}  // namespace

TEST_CASE("two threads give the single-threaded results bit for bit", "[threads]") {
  const auto x = random_matrix(517, 331, 1);  // 171k elements: above the parallel grain
  const auto row = random_matrix(1, 331, 2);
  auto f = sf::function([](auto a, auto r) {
    return std::tuple{sf::tanh(sf::exp(a * 0.5f) - r), sf::reduce_sum(a), sf::reduce_sum(a, sf::axes<1>{}),
                      sf::reduce_max(a * r, sf::axes<0>{}), sf::matmul(a, sf::transpose(a)), sf::softmax(a)};
  });
  sf::set_num_threads(1);
  const auto [e1, s1, rows1, cols1, mm1, sm1] = f(x, row);
  {
    thread_count two(2);
    CHECK(sf::num_threads() == 2);
    const auto [e2, s2, rows2, cols2, mm2, sm2] = f(x, row);
    CHECK(bitwise_equal(e1, e2));
    CHECK(std::memcmp(&s1, &s2, sizeof s1) == 0);
    CHECK(bitwise_equal(rows1, rows2));
    CHECK(bitwise_equal(cols1, cols2));
    CHECK(bitwise_equal(mm1, mm2));
    CHECK(bitwise_equal(sm1, sm2));
  }
  CHECK(sf::num_threads() == 1);
  // and the values are right, not only equal
  double total = 0;
  for (float v : x) total += v;
  CHECK(s1 == Approx(total).epsilon(1e-4));
  CHECK(e1(3, 4) == Approx(std::tanh(std::exp(x(3, 4) * 0.5f) - row(0, 4))));
}

TEST_CASE("a 1-D graph of run-time length gives the same results on two threads", "[threads]") {
  // above the grain and not a multiple of any unrolled step: the threaded flat loop and the
  // spread of a one-element argument (backend/cpu/kernel.hpp run_flat_spread) split it
  const std::size_t n = 100003;
  const auto x = random_matrix(1, n, 3), y = random_matrix(1, n, 4);
  auto a = xt::xtensor<float, 1>::from_shape({n}), b = xt::xtensor<float, 1>::from_shape({n});
  std::copy(x.begin(), x.end(), a.begin());
  std::copy(y.begin(), y.end(), b.begin());
  const xt::xtensor<float, 1> one{0.25f};
  auto f = sf::function([](auto u, auto v) { return sf::tanh(sf::exp(u * 0.5f) - v); });
  sf::set_num_threads(1);
  const xt::xtensor<float, 1> flat1 = f(a, b), spread1 = f(a, one);
  REQUIRE(flat1.size() == n);
  REQUIRE(spread1.size() == n);
  {
    thread_count two(2);
    const xt::xtensor<float, 1> flat2 = f(a, b), spread2 = f(a, one);
    CHECK(bitwise_equal(flat1, flat2));
    CHECK(bitwise_equal(spread1, spread2));
  }
  for (const std::size_t i : {std::size_t{0}, std::size_t{63}, std::size_t{65536}, n - 3, n - 1}) {
    CHECK(flat1(i) == Approx(std::tanh(std::exp(a(i) * 0.5f) - b(i))));
    CHECK(spread1(i) == Approx(std::tanh(std::exp(a(i) * 0.5f) - 0.25f)));
  }
}
