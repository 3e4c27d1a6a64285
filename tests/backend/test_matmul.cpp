// Tests for backend/cpu/matmul.hpp: the general kernel against a naive triple loop in double
// precision for every shape up to 9 in each dimension, odd and large shapes that cross the tile
// and cache blocks, leading dimensions wider than the rows, integers (exact, wrapping), the
// unrolled static form, and threads > 1 equal to one thread bit for bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <staticflow/backend/cpu/matmul.hpp>
#include <staticflow/backend/cpu/matmul_static.hpp>

namespace cpu = staticflow::cpu;

namespace {

// A row-major matrix with a leading dimension of its own; the padding holds a sentinel that the
// kernel must neither read into results nor overwrite.
template <class T>
struct matrix {
  std::size_t rows, cols, ld;
  std::vector<T> data;
  matrix(std::size_t r, std::size_t c, std::size_t pad, T fill) : rows(r), cols(c), ld(c + pad), data(r * (c + pad) + 1, fill) {}
  T& operator()(std::size_t i, std::size_t j) { return data[i * ld + j]; }
  const T& operator()(std::size_t i, std::size_t j) const { return data[i * ld + j]; }
  T* ptr() { return data.data(); }
  const T* ptr() const { return data.data(); }
};

template <class T>
T sentinel() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
  else return T(0x5a5a5a5a);
}

template <class T>
matrix<T> random_matrix(std::size_t r, std::size_t c, std::size_t pad, std::mt19937& rng) {
  matrix<T> m(r, c, pad, sentinel<T>());
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < c; ++j) m(i, j) = static_cast<T>(dist(rng));
  return m;
}

// Runs cpu::matmul into a C prefilled with the sentinel and checks every element against the
// double-precision triple loop, within the bound of a length-k chain of roundings; checks that
// the padding of C is untouched.
template <class T>
void check_float(std::size_t m, std::size_t n, std::size_t k, std::size_t pad_a, std::size_t pad_b,
                 std::size_t pad_c, std::mt19937& rng, std::size_t threads = 1) {
  const auto a = random_matrix<T>(m, k, pad_a, rng);
  const auto b = random_matrix<T>(k, n, pad_b, rng);
  matrix<T> c(m, n, pad_c, sentinel<T>());
  cpu::matmul(a.ptr(), a.ld, b.ptr(), b.ld, c.ptr(), c.ld, m, n, k, threads);
  const double eps = std::numeric_limits<T>::epsilon();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (std::size_t p = 0; p < k; ++p) {
        ref += double(a(i, p)) * double(b(p, j));
        mag += std::fabs(double(a(i, p)) * double(b(p, j)));
      }
      const double got = c(i, j);
      if (!(std::fabs(got - ref) <= (double(k) + 1) * eps * mag)) {
        if (bad++ < 5) {
          INFO(m << "x" << n << "x" << k << " pads " << pad_a << "," << pad_b << "," << pad_c << " at (" << i << ", "
                 << j << "): got " << got << ", want " << ref);
          CHECK(false);
        }
      }
    }
    for (std::size_t j = n; j < c.ld; ++j) {
      if (!std::isnan(double(c(i, j)))) {
        INFO(m << "x" << n << "x" << k << ": padding of C written at (" << i << ", " << j << ")");
        CHECK(false);
        ++bad;
        break;
      }
    }
  }
  CHECK(bad == 0);
}

template <class T>
std::vector<T> run(const matrix<T>& a, const matrix<T>& b, std::size_t threads) {
  matrix<T> c(a.rows, b.cols, 0, sentinel<T>());
  cpu::matmul(a.ptr(), a.ld, b.ptr(), b.ld, c.ptr(), c.ld, a.rows, b.cols, a.cols, threads);
  return c.data;
}

template <class T>
bool bitwise_equal(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0;
}

}  // namespace

TEST_CASE("matmul: every shape up to 9x9x9, float and double", "[matmul]") {
  std::mt19937 rng(1);
  for (std::size_t m = 0; m <= 9; ++m)
    for (std::size_t n = 0; n <= 9; ++n)
      for (std::size_t k = 0; k <= 9; ++k) {
        check_float<float>(m, n, k, 0, 0, 0, rng);
        check_float<double>(m, n, k, 0, 0, 0, rng);
      }
}

TEST_CASE("matmul: leading dimensions wider than the rows", "[matmul]") {
  std::mt19937 rng(2);
  for (std::size_t m : {1, 5, 13})
    for (std::size_t n : {1, 7, 33})
      for (std::size_t k : {1, 9, 20}) {
        check_float<float>(m, n, k, 3, 5, 1, rng);
        check_float<float>(m, n, k, 17, 0, 16, rng);
        check_float<double>(m, n, k, 1, 9, 2, rng);
      }
}

TEST_CASE("matmul: odd and large shapes that cross tiles and cache blocks", "[matmul]") {
  std::mt19937 rng(3);
  // 127x65x33 cuts every tile; k = 600 crosses the K blocks (256 floats, 128 doubles); n = 1100
  // crosses the 512-column blocks; B packed (100x300x100: more than 8 row panels; 30x1100x1000:
  // B over 4 MiB) or read in place (the others); few rows (m <= 4) and narrow (n <= 4) products,
  // with k around multiples of the batch width.
  const std::size_t shapes[][3] = {{127, 65, 33}, {33, 127, 65}, {65, 33, 127}, {13, 1100, 20}, {40, 70, 600},
                                   {100, 300, 100}, {50, 1100, 40}, {257, 300, 1}, {25, 49, 129},
                                   {1, 300, 257}, {1, 2100, 50}, {3, 77, 300}, {4, 33, 5}, {2, 700, 16},
                                   {300, 1, 257}, {37, 3, 100}, {5, 4, 16}, {1000, 2, 50}, {4, 4, 33}, {9, 1, 17},
                                   {30, 1100, 1000}};
  for (const auto& s : shapes) {
    check_float<float>(s[0], s[1], s[2], 0, 0, 0, rng);
    check_float<double>(s[0], s[1], s[2], 1, 2, 3, rng);
  }
}

namespace {
// The product with A and / or B read transposed where they lie (cpu::detail::operand_order) is
// the product of the copied transposes, bit for bit.
template <class T>
void check_transposed(std::size_t m, std::size_t n, std::size_t k, std::mt19937& rng) {
  const auto a = random_matrix<T>(m, k, 0, rng);
  const auto b = random_matrix<T>(k, n, 0, rng);
  const auto want = run(a, b, 1);
  matrix<T> at(k, m, 3, sentinel<T>()), bt(n, k, 5, sentinel<T>());  // (padded rows: ld > width)
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p) at(p, i) = a(i, p);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) bt(j, p) = b(p, j);
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      matrix<T> c(m, n, 0, sentinel<T>());
      cpu::matmul(ta ? at.ptr() : a.ptr(), ta ? at.ld : a.ld, tb ? bt.ptr() : b.ptr(), tb ? bt.ld : b.ld, c.ptr(),
                  c.ld, m, n, k, 1, cpu::detail::operand_order{ta, tb});
      INFO(m << "x" << n << "x" << k << (ta ? " A transposed" : "") << (tb ? " B transposed" : ""));
      CHECK(bitwise_equal(c.data, want));
    }
  }
}
}  // namespace

TEST_CASE("matmul: operands read transposed give the bits of their copied transposes", "[matmul]") {
  // n and k around multiples of the batch width (the transposed B is packed W x W blocks at a
  // time: full blocks, then the rest of the columns and of k), k = 300 across two K blocks of
  // floats and three of doubles, m from the few-rows path (5) to many row panels (100).
  std::mt19937 rng(10);
  for (std::size_t m : {5, 13, 40, 100})
    for (std::size_t n : {7, 16, 33, 64, 100})
      for (std::size_t k : {1, 15, 16, 17, 40, 300}) {
        check_transposed<float>(m, n, k, rng);
        check_transposed<double>(m, n, k, rng);
      }
}

TEST_CASE("matmul: 512x512x512 float", "[matmul]") {
  std::mt19937 rng(4);
  check_float<float>(512, 512, 512, 0, 0, 0, rng);
}

TEST_CASE("matmul: k == 0 writes zeros, m == 0 or n == 0 writes nothing", "[matmul]") {
  matrix<float> c(3, 4, 2, sentinel<float>());
  const float a = 1, b = 1;
  cpu::matmul(&a, 0, &b, 4, c.ptr(), c.ld, 3, 4, 0);
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < 4; ++j) CHECK(c(i, j) == 0.f);
    for (std::size_t j = 4; j < 6; ++j) CHECK(std::isnan(c(i, j)));
  }
  matrix<float> d(1, 1, 0, 5.f);
  cpu::matmul(&a, 1, &b, 1, d.ptr(), 1, 0, 1, 1);
  cpu::matmul(&a, 1, &b, 0, d.ptr(), 0, 1, 0, 1);
  CHECK(d(0, 0) == 5.f);
}

TEST_CASE("matmul: results are the fma chain over k, wherever the tiles cut", "[matmul]") {
  // (Products with n > 4; narrow ones are dot products.)
  // The element (i, j) of a product does not depend on the other rows and columns: computing a
  // sub-block gives the same bits as the whole product.
  std::mt19937 rng(5);
  const auto a = random_matrix<float>(50, 300, 0, rng);
  const auto b = random_matrix<float>(300, 70, 0, rng);
  const auto whole = run(a, b, 1);
  matrix<float> part(7, 5, 0, sentinel<float>());
  const std::size_t i0 = 13, j0 = 31;
  cpu::matmul(a.ptr() + i0 * a.ld, a.ld, b.ptr() + j0, b.ld, part.ptr(), part.ld, 7, 5, 300);
  for (std::size_t i = 0; i < 7; ++i)
    for (std::size_t j = 0; j < 5; ++j) CHECK(part(i, j) == whole[(i0 + i) * 70 + j0 + j]);
  // And it is fma(a[k-1], b[k-1], ... fma(a[0], b[0], 0)), on the blocked and few-rows paths
  // (cpu::detail::fmadd is std::fma where the target has FMA instructions).
  float chain = 0;
  for (std::size_t p = 0; p < 300; ++p) chain = cpu::detail::fmadd(a(i0, p), b(p, j0), chain);
  CHECK(chain == whole[i0 * 70 + j0]);
  matrix<float> row(1, 70, 0, sentinel<float>());
  cpu::matmul(a.ptr() + i0 * a.ld, a.ld, b.ptr(), b.ld, row.ptr(), row.ld, 1, 70, 300);
  for (std::size_t j = 0; j < 70; ++j) CHECK(row(0, j) == whole[i0 * 70 + j]);
}

namespace {
// The exact wrapped result, computed independently in the unsigned type (j-k order).
template <class T>
void check_integer(std::size_t m, std::size_t n, std::size_t k, std::mt19937_64& rng, bool full_range,
                   std::size_t threads = 1) {
  using U = std::make_unsigned_t<T>;
  std::uniform_int_distribution<T> wide(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::uniform_int_distribution<T> narrow(-100, 100);
  matrix<T> a(m, k, 2, sentinel<T>()), b(k, n, 1, sentinel<T>()), c(m, n, 3, sentinel<T>());
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t p = 0; p < k; ++p) a(i, p) = full_range ? wide(rng) : narrow(rng);
  for (std::size_t p = 0; p < k; ++p)
    for (std::size_t j = 0; j < n; ++j) b(p, j) = full_range ? wide(rng) : narrow(rng);
  cpu::matmul(a.ptr(), a.ld, b.ptr(), b.ld, c.ptr(), c.ld, m, n, k, threads);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      U ref = 0;
      for (std::size_t p = 0; p < k; ++p) ref += static_cast<U>(a(i, p)) * static_cast<U>(b(p, j));
      if (c(i, j) != static_cast<T>(ref) && bad++ < 5) {
        INFO(m << "x" << n << "x" << k << " at (" << i << ", " << j << ")");
        CHECK(c(i, j) == static_cast<T>(ref));
      }
    }
    for (std::size_t j = n; j < c.ld; ++j) CHECK(c(i, j) == sentinel<T>());
  }
  CHECK(bad == 0);
}
}  // namespace

TEST_CASE("matmul: int32 and int64 are exact and wrap", "[matmul][integer]") {
  std::mt19937_64 rng(6);
  for (std::size_t m = 0; m <= 9; ++m)
    for (std::size_t n = 0; n <= 9; ++n)
      for (std::size_t k = 0; k <= 9; k += 3) {
        check_integer<std::int32_t>(m, n, k, rng, true);
        check_integer<std::int64_t>(m, n, k, rng, true);
      }
  check_integer<std::int32_t>(127, 65, 33, rng, true);
  check_integer<std::int32_t>(60, 1500, 40, rng, true);  // crosses the 1024-column blocks
  check_integer<std::int64_t>(33, 600, 65, rng, true);
  check_integer<std::int32_t>(64, 64, 64, rng, false);
  check_integer<std::int32_t>(127, 65, 33, rng, true, 2);

  // A product that overflows: INT_MAX * 2 + 1 * 3 wraps to 1.
  const std::int32_t a[2] = {std::numeric_limits<std::int32_t>::max(), 1};
  const std::int32_t b[2] = {2, 3};
  std::int32_t c = 0;
  cpu::matmul(a, 2, b, 1, &c, 1, 1, 1, 2);
  CHECK(c == 1);
}

namespace {
template <class T>
void fill_small(T* x, std::size_t size, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-4, 4);
  for (std::size_t e = 0; e < size; ++e) x[e] = static_cast<T>(std::is_integral_v<T> ? std::round(dist(rng)) : dist(rng));
}

// The static result against the general kernel: the same chains, so equal (up to the sign of a
// zero). Not a template on the shape, to keep the grid below cheap to compile.
template <class T>
void compare_static(const T* a, const T* b, const T* c, std::size_t m, std::size_t n, std::size_t k) {
  std::vector<T> g(m * n);
  cpu::matmul(a, k, b, n, g.data(), n, m, n, k);
  for (std::size_t e = 0; e < m * n; ++e) {
    INFO(m << "x" << n << "x" << k << " element " << e);
    CHECK(c[e] == g[e]);
  }
}

template <class T, std::size_t M, std::size_t N, std::size_t K>
void check_static(std::mt19937& rng) {
  T a[M * K], b[K * N], c[M * N];
  fill_small(a, M * K, rng);
  fill_small(b, K * N, rng);
  cpu::matmul_static<T, M, N, K>(a, b, c);
  compare_static(a, b, c, M, N, K);
}

// M in {1, 2, 5, 8}, N in 1..8 (N picks the code: one batch per row for 4 and 8, scalar
// statements otherwise), K in {1, 3, 4, 8}: I enumerates 4 * 8 * 4 shapes. (All 512 shapes
// cost minutes of compile time under the sanitizers.)
template <class T, std::size_t... I>
void check_static_grid(std::mt19937& rng, std::index_sequence<I...>) {
  constexpr std::size_t ms[] = {1, 2, 5, 8}, ks[] = {1, 3, 4, 8};
  (check_static<T, ms[I / 32], I / 4 % 8 + 1, ks[I % 4]>(rng), ...);
}
}  // namespace

TEST_CASE("matmul_static: shapes in 1..8, float", "[matmul][static]") {
  std::mt19937 rng(7);
  check_static_grid<float>(rng, std::make_index_sequence<128>{});
  check_static<float, 3, 3, 3>(rng);
  check_static<float, 4, 4, 4>(rng);
  check_static<float, 6, 6, 6>(rng);
  check_static<float, 7, 7, 7>(rng);
}

TEST_CASE("matmul_static: double and int32, and shapes that forward to matmul", "[matmul][static]") {
  std::mt19937 rng(8);
  check_static<double, 1, 1, 1>(rng);
  check_static<double, 3, 3, 3>(rng);
  check_static<double, 4, 4, 4>(rng);
  check_static<double, 8, 5, 2>(rng);
  check_static<std::int32_t, 4, 4, 4>(rng);
  check_static<std::int32_t, 2, 7, 3>(rng);
  check_static<std::int64_t, 5, 3, 8>(rng);
  check_static<float, 9, 4, 4>(rng);
  check_static<float, 4, 12, 3>(rng);
  check_static<float, 16, 16, 16>(rng);
  check_static<double, 3, 2, 20>(rng);

  // A chain of 4x4 products, against the double reference.
  float m[3][16], t[16], r[16];
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto& x : m) for (auto& e : x) e = dist(rng);
  cpu::matmul_static<float, 4, 4, 4>(m[0], m[1], t);
  cpu::matmul_static<float, 4, 4, 4>(t, m[2], r);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) {
      double want = 0;
      for (std::size_t p = 0; p < 4; ++p)
        for (std::size_t q = 0; q < 4; ++q) want += double(m[0][i * 4 + p]) * m[1][p * 4 + q] * m[2][q * 4 + j];
      CHECK(r[i * 4 + j] == Approx(want).margin(1e-5));
    }

  // K == 0 writes zeros.
  float z[6] = {1, 2, 3, 4, 5, 6};
  cpu::matmul_static<float, 2, 3, 0>(nullptr, nullptr, z);
  for (float e : z) CHECK(e == 0.f);
}

TEST_CASE("matmul: threads > 1 give the same bits as one thread", "[matmul][threads]") {
  std::mt19937 rng(9);
  // Shapes that split along M (many row tiles) and along N (few rows, many column panels).
  const std::size_t shapes[][3] = {{512, 512, 512}, {127, 65, 33}, {7, 2000, 50}, {1000, 40, 300},
                                   {3, 3, 3}, {100, 100, 1}, {4, 2000, 100}, {1000, 3, 300}, {50, 1100, 40}};
  for (const auto& s : shapes) {
    const auto a = random_matrix<float>(s[0], s[2], 1, rng);
    const auto b = random_matrix<float>(s[2], s[1], 2, rng);
    const auto one = run(a, b, 1);
    for (std::size_t threads : {2, 3, 4}) {
      INFO(s[0] << "x" << s[1] << "x" << s[2] << " with " << threads << " threads");
      CHECK(bitwise_equal(run(a, b, threads), one));
    }
    const auto ad = random_matrix<double>(s[0], s[2], 0, rng);
    const auto bd = random_matrix<double>(s[2], s[1], 0, rng);
    CHECK(bitwise_equal(run(ad, bd, 2), run(ad, bd, 1)));
  }
  check_float<float>(300, 200, 100, 1, 2, 3, rng, 2);
}
