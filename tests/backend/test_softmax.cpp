// Tests for backend/cpu/softmax.hpp and graph::softmax_node (graph/composites.hpp): softmax and
// log_softmax along every axis against a double-precision reference, rows of every length up to
// 40 and long ones, -inf / huge / NaN entries, threads bit for bit, the node's expansion, the
// plan (one materialized node, computed once), and the short-row kernel against the row kernel.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();

template <class T>
xt::xtensor<T, 2> random_matrix(std::size_t rows, std::size_t cols, double lo, double hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  auto m = xt::xtensor<T, 2>::from_shape({rows, cols});
  for (auto& e : m) e = static_cast<T>(dist(rng));
  return m;
}

// softmax / log_softmax of one line of values, in double.
std::vector<double> reference(const std::vector<double>& v, bool log_form) {
  double m = -inf;
  bool nan = false;
  for (double x : v) nan |= std::isnan(x), m = std::max(m, x);
  std::vector<double> out(v.size());
  if (nan) {
    std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
    return out;
  }
  double s = 0;
  for (double x : v) s += std::exp(x - m);
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = log_form ? (v[i] - m) - std::log(s) : std::exp(v[i] - m) / s;
  return out;
}

// |got - want| within a relative bound (plus a tiny absolute one for results near 0), or both NaN.
template <class T>
bool close(T got, double want, double rel) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(static_cast<double>(got) - want) <= rel * std::fabs(want) + 1e-30;
}

template <class T, class M>
void check_rows(const M& x, const M& sm, const M& lsm, double rel_sm, double abs_lsm) {
  for (std::size_t i = 0; i < x.shape()[0]; ++i) {
    std::vector<double> row(x.shape()[1]);
    for (std::size_t j = 0; j < row.size(); ++j) row[j] = static_cast<double>(x(i, j));
    const auto want = reference(row, false);
    const auto want_log = reference(row, true);
    for (std::size_t j = 0; j < row.size(); ++j) {
      INFO("row " << i << " col " << j << " x " << row[j]);
      CHECK(close<T>(sm(i, j), want[j], rel_sm));
      if (std::isnan(want_log[j]) || std::isinf(want_log[j])) CHECK(close<T>(lsm(i, j), want_log[j], 0));
      else CHECK(std::fabs(static_cast<double>(lsm(i, j)) - want_log[j]) <= abs_lsm * (1 + std::fabs(want_log[j])));
    }
  }
}

template <class M>
bool bitwise_equal(const M& a, const M& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(*a.data()) * a.size()) == 0;
}
}  // namespace

TEST_CASE("softmax and log_softmax rows of every length match a double reference", "[softmax]") {
  auto f = sf::function([](auto x) { return std::tuple{sf::softmax(x), sf::log_softmax(x)}; });
  for (std::size_t n = 1; n <= 40; ++n) {
    CAPTURE(n);
    const auto x = random_matrix<float>(3, n, -20, 20, static_cast<unsigned>(n));
    const auto [sm, lsm] = f(x);
    check_rows<float>(x, sm, lsm, 8e-6, 2e-6);
    const auto xd = random_matrix<double>(2, n, -50, 50, 100 + static_cast<unsigned>(n));
    const auto [smd, lsmd] = f(xd);
    check_rows<double>(xd, smd, lsmd, 1e-13, 1e-14);
  }
  for (std::size_t n : {1000u, 1024u, 4099u}) {
    CAPTURE(n);
    const auto x = random_matrix<float>(4, n, -4, 4, 7);
    const auto [sm, lsm] = f(x);
    check_rows<float>(x, sm, lsm, 8e-6, 2e-6);
    for (std::size_t i = 0; i < 4; ++i) {  // each row sums to 1
      double total = 0;
      for (std::size_t j = 0; j < n; ++j) total += sm(i, j);
      CHECK(total == Approx(1.0).epsilon(1e-5));
    }
  }
}

TEST_CASE("softmax handles -inf, huge and NaN entries like the composite definition", "[softmax]") {
  const float fi = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto f = sf::function([](auto x) { return std::tuple{sf::softmax(x), sf::log_softmax(x)}; });
  // 19 columns: a whole 16-lane batch and a padded partial one under AVX-512
  xt::xtensor<float, 2> x = xt::zeros<float>({7, 19});
  for (std::size_t j = 0; j < 19; ++j) {
    x(0, j) = j % 3 ? -fi : static_cast<float>(j);       // -inf entries get exactly 0 (log: -inf)
    x(1, j) = 3e38f - static_cast<float>(j) * 1e37f;      // huge: no overflow after the shift
    x(2, j) = -3e38f + static_cast<float>(j) * 1e37f;     // hugely negative
    x(3, j) = -fi;                                        // all -inf: NaN, as exp(-inf - -inf)
    x(4, j) = j == 17 ? fi : 1.f;                         // +inf: NaN (inf - inf)
    x(5, j) = j == 18 ? nan : 1.f;                        // NaN propagates to the whole row
    x(6, j) = j == 18 ? 100.f : -100.f;                   // one dominant entry in the padded part
  }
  const auto [sm, lsm] = f(x);
  check_rows<float>(x, sm, lsm, 8e-6, 2e-6);
  CHECK(sm(0, 1) == 0.f);
  CHECK(lsm(0, 1) == -fi);
  for (std::size_t j = 0; j < 19; ++j) {
    CHECK(std::isnan(sm(3, j)));
    CHECK(std::isnan(sm(4, j)));
    CHECK(std::isnan(sm(5, j)));
    CHECK(std::isnan(lsm(5, j)));
  }
  CHECK(sm(6, 18) == Approx(1.0f));
  CHECK(sm(1, 0) == Approx(1.0f));  // 3e38 beats 2.9e38 by far
}

TEST_CASE("softmax along a leading or middle axis, and of rank 1 and 3 tensors", "[softmax]") {
  auto f = sf::function([](auto x) {
    return std::tuple{sf::softmax(x, sf::axes<0>{}), sf::log_softmax(x, sf::axes<1>{}), sf::softmax(x, sf::axes<-1>{})};
  });
  auto x = xt::xtensor<double, 3>::from_shape({3, 5, 21});
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> dist(-30, 30);
  for (auto& e : x) e = dist(rng);
  x(1, 2, 20) = -inf;
  const auto [s0, l1, s2] = f(x);
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t b = 0; b < 5; ++b)
      for (std::size_t c = 0; c < 21; ++c) {
        std::vector<double> v0(3), v1(5), v2(21);
        for (std::size_t k = 0; k < 3; ++k) v0[k] = x(k, b, c);
        for (std::size_t k = 0; k < 5; ++k) v1[k] = x(a, k, c);
        for (std::size_t k = 0; k < 21; ++k) v2[k] = x(a, b, k);
        CHECK(close<double>(s0(a, b, c), reference(v0, false)[a], 1e-13));
        const double want = reference(v1, true)[b];
        if (std::isinf(want)) CHECK(l1(a, b, c) == want);
        else CHECK(std::fabs(l1(a, b, c) - want) <= 1e-13 * (1 + std::fabs(want)));
        CHECK(close<double>(s2(a, b, c), reference(v2, false)[c], 1e-13));
      }
  auto g = sf::function([](auto v) { return sf::softmax(v); });
  const xt::xtensor_fixed<float, xt::xshape<3>> v = {1.f, 2.f, 3.f};
  const auto r = g(v);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(r)>, xt::xtensor_fixed<float, xt::xshape<3>>>);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  CHECK(r(2) == Approx(std::exp(3.0) / z));
}

TEST_CASE("the softmax node is one materialized node, computed once, and equals its expansion", "[softmax][plan]") {
  auto f = sf::function([](auto x) { return sf::softmax(x * 2.f) + sf::softmax(x * 2.f); });
  const auto x = random_matrix<float>(5, 33, -3, 3, 11);
  using F = std::remove_cvref_t<decltype(f.get_concrete_function(x))>;
  STATIC_REQUIRE(F::materialized_count == 2);  // two equal nodes: the plan computes one
  const auto before = sf::plan::materialization_counter();
  const auto r = f(x);
  CHECK(sf::plan::materialization_counter() - before == 1);
  auto e = sf::function([](auto x) { return sf::softmax(x * 2.f).expanded() * 2.f; });
  const auto want = e(x);  // the composite graph: reductions and elementwise ops
  for (std::size_t i = 0; i < r.size(); ++i) CHECK(r.data()[i] == Approx(want.data()[i]).epsilon(1e-5));
  CHECK(f.get_concrete_function(x).graph_string().find("Softmax[axis=1]") != std::string::npos);
}

namespace {
// softmax and log_softmax of x (above the parallel grain) with 1 and 2 threads: the same bits,
// and the reference's values
void check_threads_give_one_thread_bits(const xt::xtensor<float, 2>& x) {
  auto f = sf::function([](auto a) { return std::tuple{sf::softmax(a), sf::log_softmax(a)}; });
  sf::set_num_threads(1);
  const auto [a1, b1] = f(x);
  sf::set_num_threads(2);
  const auto [a2, b2] = f(x);
  sf::set_num_threads(1);
  CHECK(bitwise_equal(a1, a2));
  CHECK(bitwise_equal(b1, b2));
  check_rows<float>(x, a1, b1, 8e-6, 2e-6);
}
}  // namespace

TEST_CASE("softmax rows split across threads give the one-thread result bit for bit", "[softmax][threads]") {
  check_threads_give_one_thread_bits(random_matrix<float>(300, 517, -10, 10, 5));  // 155k elements
}

namespace {
// Rows of at most one batch run a batch's width of rows at a time, a row per lane
// (softmax_short_rows): against the row kernel, row by row. The same operations per lane, so the
// same values up to how g++ contracts the exp's polynomial into FMAs in each copy (equal bits at
// -O2 and -O3; at -Og, as the tests build, an element here and there differs by 1 ulp). Every
// length up to a batch, whole groups and a tail, rows of specials among random ones.
template <class T, class Kind>
void check_short_rows_match_row_kernel(unsigned seed) {
  constexpr std::size_t W = sf::cpu::detail::batch_t<T>::size;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-30, 30);
  const T special[] = {-std::numeric_limits<T>::infinity(), std::numeric_limits<T>::infinity(),
                       std::numeric_limits<T>::quiet_NaN(), T(-0.0), T(88), T(-104)};
  for (std::size_t n = 1; n <= W; ++n) {
    for (const std::size_t rows : {std::size_t{1}, std::size_t{2}, W - 1, W, 2 * W + 3}) {
      std::vector<T> x(rows * n), lanes(rows * n), by_row(rows * n);
      for (auto& v : x) v = static_cast<T>(dist(rng));
      for (std::size_t r = 0; r < rows; r += 3) x[r * n + r % n] = special[(r / 3) % 6];
      if (rows > 1)
        std::fill(x.begin() + static_cast<std::ptrdiff_t>(n), x.begin() + static_cast<std::ptrdiff_t>(2 * n),
                  -std::numeric_limits<T>::infinity());  // row 1: all -inf
      sf::cpu::detail::softmax_short_rows<Kind>(x.data(), lanes.data(), rows, n);
      for (std::size_t r = 0; r < rows; ++r)
        sf::cpu::detail::softmax_row<Kind, T>(x.data() + r * n, by_row.data() + r * n, n);
      INFO("n " << n << " rows " << rows);
      for (std::size_t i = 0; i < rows * n; ++i) {
        INFO("element " << i << " (x " << x[i] << "): " << lanes[i] << " against " << by_row[i]);
        if (std::isnan(by_row[i])) CHECK(std::isnan(lanes[i]));
        else if (std::isinf(by_row[i]) || by_row[i] == T(0)) CHECK(lanes[i] == by_row[i]);
        else CHECK(std::fabs(lanes[i] - by_row[i]) <= 2 * std::numeric_limits<T>::epsilon() * std::fabs(by_row[i]));
      }
    }
  }
}
}  // namespace

TEST_CASE("short rows run a batch of rows at a time with the row kernel's values", "[softmax]") {
  check_short_rows_match_row_kernel<float, sf::graph::softmax_kind>(11);
  check_short_rows_match_row_kernel<float, sf::graph::log_softmax_kind>(12);
  check_short_rows_match_row_kernel<double, sf::graph::softmax_kind>(13);
  check_short_rows_match_row_kernel<double, sf::graph::log_softmax_kind>(14);
  auto f = sf::function([](auto x) { return std::tuple{sf::softmax(x), sf::log_softmax(x)}; });
  SECTION("through traced functions: static and run-time shapes, a tail of rows, the reference") {
    const auto x = random_matrix<float>(37, 5, -10, 10, 15);  // two groups of 16 (AVX-512) and a tail
    const auto [sm, lsm] = f(x);
    check_rows<float>(x, sm, lsm, 8e-6, 2e-6);
    xt::xtensor_fixed<float, xt::xshape<37, 5>> xs = x;
    const auto [sms, lsms] = f(xs);
    const xt::xtensor<float, 2> smd = sms, lsmd = lsms;
    CHECK(bitwise_equal(smd, sm));
    CHECK(bitwise_equal(lsmd, lsm));
  }
  SECTION("split across threads: whole groups of rows, the one-thread bits") {
    check_threads_give_one_thread_bits(random_matrix<float>(40003, 5, -10, 10, 16));  // 200k elements
  }
  SECTION("a static [2, 3]: fewer rows than a batch, the other lanes dropped") {
    xt::xtensor_fixed<float, xt::xshape<2, 3>> x = {{1.f, 2.f, 3.f}, {-1e3f, 0.f, 1e3f}};
    const auto [sm, lsm] = f(x);
    xt::xtensor<float, 2> xd = x, smd = sm, lsmd = lsm;
    check_rows<float>(xd, smd, lsmd, 8e-6, 2e-6);
    CHECK(sm(0, 2) == Approx(0.66524096f));
    CHECK(sm(1, 2) == 1.f);
  }
  SECTION("size 0 and one row") {
    const auto empty = xt::xtensor<float, 2>::from_shape({0, 5});
    CHECK(std::get<0>(f(empty)).size() == 0);
    const auto one = random_matrix<float>(1, 5, -1, 1, 17);
    const auto [sm, lsm] = f(one);
    check_rows<float>(one, sm, lsm, 8e-6, 2e-6);
  }
}
