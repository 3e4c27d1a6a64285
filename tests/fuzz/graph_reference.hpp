// tests/fuzz/graph_reference.hpp -- the scalar reference of the differential graph fuzzer
// (tests/fuzz/graph_fuzz.py writes programs against it; graph_harness.hpp compares).
//
// A reference value is a tensor of doubles (floats, bools) or 64-bit integers, in the shape NumPy's
// rules give, and for each element an error bound and a `known` flag:
//   - every op computes the ideal result of its dtype: the exact (double, or long double for
//     float64) value of the op on its inputs, rounded to float32 / float64 (integers wrap as two's
//     complement, division and remainder follow XLA as staticflow documents);
//   - `err` bounds how far staticflow may be from that ideal: the inputs' bounds carried through
//     the op (its value at the corners of the input intervals), plus the op's own allowance in
//     ULPs of the result (`ulps` below: 1 for correctly rounded arithmetic, where FMA contraction
//     or a different summation order may differ; more for the SIMD transcendental functions);
//   - `known` is false where the bound cannot decide the answer: a comparison or floor whose
//     inputs' intervals straddle the boundary, a division by an interval holding 0, an interval
//     leaving the function's domain. Those elements are not compared (a random input lands there
//     rarely; the harness counts what it checked).
// Non-finite values (NaN, +-inf) carry no error: they must match exactly (NaN against NaN).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuzz {

enum class kind { f32, f64, i32, i64, boolean };

inline bool is_float(kind k) { return k == kind::f32 || k == kind::f64; }
inline bool is_int(kind k) { return k == kind::i32 || k == kind::i64; }
inline const char* kind_name(kind k) {
  switch (k) {
    case kind::f32: return "float32";
    case kind::f64: return "float64";
    case kind::i32: return "int32";
    case kind::i64: return "int64";
    default: return "bool";
  }
}

struct value {
  kind k = kind::f32;
  std::vector<std::size_t> shape;
  std::vector<double> x;        // floats and bools
  std::vector<std::int64_t> n;  // integers, wrapped to the dtype
  std::vector<double> err;      // floats: the allowed distance from x
  std::vector<char> known;      // false: not decided by the bounds, not compared

  std::size_t size() const { return known.size(); }
  static value make(kind k, std::vector<std::size_t> shape) {
    value v;
    v.k = k;
    v.shape = std::move(shape);
    const std::size_t count = std::accumulate(v.shape.begin(), v.shape.end(), std::size_t{1}, std::multiplies<>{});
    if (is_int(k)) v.n.assign(count, 0);
    else v.x.assign(count, 0.0);
    v.err.assign(count, 0.0);
    v.known.assign(count, 1);
    return v;
  }
};

// ---- rounding to a dtype, ULPs, integer wrapping ----
inline double round_to(kind k, long double v) {
  return k == kind::f32 ? static_cast<double>(static_cast<float>(v)) : static_cast<double>(v);
}
/// The gap between |v| and the next representable value (below it at the largest finite one).
inline double ulp(kind k, double v) {
  v = std::fabs(v);
  if (k == kind::f32) {
    const float f = static_cast<float>(v);
    if (!std::isfinite(f)) return 0.0;
    const float up = std::nextafter(f, INFINITY);
    return static_cast<double>(std::isfinite(up) ? up - f : f - std::nextafter(f, 0.f));
  }
  if (!std::isfinite(v)) return 0.0;
  const double up = std::nextafter(v, INFINITY);
  return std::isfinite(up) ? up - v : v - std::nextafter(v, 0.0);
}
inline double epsilon(kind k) {
  return k == kind::f32 ? static_cast<double>(std::numeric_limits<float>::epsilon()) : std::numeric_limits<double>::epsilon();
}
inline double largest_finite(kind k) {
  return k == kind::f32 ? static_cast<double>(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
}
/// Whether a sum in dtype k whose finite terms' magnitudes add up to `finite_magnitude` may overflow
/// on the way, in some order of summation, whatever the exact total (a mean's sum of 33 values of
/// 2e37 in float32 is inf, as in TensorFlow, while the mean is 2e37; with a -inf term too, the
/// overflow to +inf makes NaN where the exact sum is -inf): its value is then unknown, unless a NaN
/// term makes it NaN in every order.
inline bool partial_sums_may_overflow(kind k, long double finite_magnitude, bool nan) {
  return !nan && finite_magnitude > static_cast<long double>(largest_finite(k));
}
inline double smallest_normal(kind k) {
  return k == kind::f32 ? static_cast<double>(std::numeric_limits<float>::min()) : std::numeric_limits<double>::min();
}
inline std::int64_t wrap(kind k, std::uint64_t bits) {
  if (k == kind::i32) return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits));
  return static_cast<std::int64_t>(bits);
}
inline std::int64_t int_min(kind k) {
  return k == kind::i32 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
}
inline std::int64_t int_max(kind k) {
  return k == kind::i32 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int64_t>::max();
}

// ---- broadcasting (NumPy's rule, aligned on the right) ----
inline std::vector<std::size_t> broadcast_shape(const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
  std::vector<std::size_t> r(std::max(a.size(), b.size()));
  for (std::size_t k = 0; k < r.size(); ++k) {
    const std::size_t da = k < a.size() ? a[a.size() - 1 - k] : 1, db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1) throw std::logic_error("fuzz reference: shapes do not broadcast");
    r[r.size() - 1 - k] = da == 1 ? db : da;
  }
  return r;
}
/// The flat offset in a tensor of shape `from` of the element at flat index `flat` of `to`.
inline std::size_t broadcast_offset(const std::vector<std::size_t>& from, const std::vector<std::size_t>& to, std::size_t flat) {
  std::size_t offset = 0, stride = 1;
  for (std::size_t k = 0; k < to.size(); ++k) {
    const std::size_t d = to.size() - 1 - k;
    const std::size_t coord = flat % to[d];
    flat /= to[d];
    if (k < from.size()) {
      const std::size_t fd = from.size() - 1 - k;
      if (from[fd] != 1) offset += coord * stride;
      stride *= from[fd];
    }
  }
  return offset;
}

// ---- the allowance of each op, in ULPs of its result (stated per op, docs/architecture.md) ----
namespace ulps {
inline constexpr double exact = 0;         // neg, abs, max, min, where, casts that widen
inline constexpr double arithmetic = 1;    // + - * / sqrt square: rounded once (FMA may skip one)
inline constexpr double exp_log = 4;       // exp, log (xsimd's polynomials)
inline constexpr double hyperbolic = 8;    // tanh, sigmoid, softplus, erf, sin, cos, atan
}  // namespace ulps

/// Several of a function's values at the corners of the input intervals: their largest distance
/// from `center`, or NaN when one of them has another class (finite, +inf, -inf, NaN).
inline int value_class(double v) { return std::isnan(v) ? 3 : std::isinf(v) ? (v > 0 ? 1 : 2) : 0; }

template <class F>
value unary_float(const value& a, kind out, F f, double allowance, bool continuous = true, bool rounded = false) {
  value r = value::make(out, a.shape);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const double x = a.x[i], e = a.err[i];
    const double exact = static_cast<double>(f(static_cast<long double>(x)));
    r.x[i] = round_to(out, exact);
    r.known[i] = a.known[i];
    if (!r.known[i]) continue;
    const int cls = value_class(r.x[i]);
    double spread = 0;
    if (e > 0) {
      for (double s : {-1.0, 1.0}) {
        const double y = static_cast<double>(f(static_cast<long double>(x + s * e)));
        if (value_class(round_to(out, y)) != cls || (!continuous && y != exact)) r.known[i] = 0;
        else if (cls == 0) spread = std::max(spread, std::fabs(y - exact));
      }
    }
    // exact input: a correctly rounded op is exact, and so is every function at a zero it has
    // exactly (tanh 0, sin 0, log 1, sigmoid -inf: each implementation returns 0 there)
    if (cls == 0 && !(e == 0 && (rounded || r.x[i] == 0)))
      r.err[i] = 2 * spread + allowance * ulp(out, r.x[i]) + (allowance > 1 ? 2 * smallest_normal(out) : 0.0);
  }
  return r;
}

/// `allowance` ULPs of the result, or none where both inputs are exact and the op is correctly
/// rounded (`rounded`: + - / sqrt; a * may be contracted into a following + as one FMA, which
/// skips its rounding: it keeps its ULP).
template <class F>
value binary_float(const value& a, const value& b, kind out, F f, double allowance, bool continuous = true, bool pole_at_zero = false,
                   bool rounded = false) {
  value r = value::make(out, broadcast_shape(a.shape, b.shape));
  for (std::size_t i = 0; i < r.size(); ++i) {
    const std::size_t ia = broadcast_offset(a.shape, r.shape, i), ib = broadcast_offset(b.shape, r.shape, i);
    const double x = a.x[ia], y = b.x[ib], ex = a.err[ia], ey = b.err[ib];
    const double exact = static_cast<double>(f(static_cast<long double>(x), static_cast<long double>(y)));
    r.x[i] = out == kind::boolean ? exact : round_to(out, exact);
    r.known[i] = a.known[ia] && b.known[ib];
    if (!r.known[i]) continue;
    if (pole_at_zero && ey > 0 && y - ey <= 0 && y + ey >= 0) {
      r.known[i] = 0;
      continue;
    }
    const int cls = value_class(r.x[i]);
    double spread = 0;
    if (ex > 0 || ey > 0) {
      for (double sx : {-1.0, 1.0})
        for (double sy : {-1.0, 1.0}) {
          const double z = static_cast<double>(f(static_cast<long double>(x + sx * ex), static_cast<long double>(y + sy * ey)));
          const double rounded = out == kind::boolean ? z : round_to(out, z);
          if (value_class(rounded) != cls || (!continuous && z != exact)) r.known[i] = 0;
          else if (cls == 0) spread = std::max(spread, std::fabs(z - exact));
        }
    }
    if (cls == 0 && out != kind::boolean && !(rounded && ex == 0 && ey == 0)) r.err[i] = spread + allowance * ulp(out, r.x[i]);
  }
  return r;
}

template <class F>
value binary_int(const value& a, const value& b, kind out, F f) {
  value r = value::make(out, broadcast_shape(a.shape, b.shape));
  for (std::size_t i = 0; i < r.size(); ++i) {
    const std::size_t ia = broadcast_offset(a.shape, r.shape, i), ib = broadcast_offset(b.shape, r.shape, i);
    r.known[i] = a.known[ia] && b.known[ib];
    const std::int64_t z = f(a.n[ia], b.n[ib]);
    if (out == kind::boolean) r.x[i] = static_cast<double>(z);
    else r.n[i] = wrap(out, static_cast<std::uint64_t>(z));
  }
  return r;
}

// ---- the ops the generator uses ----
inline value literal(kind k, double v) {
  value r = value::make(k, {});
  if (is_int(k)) r.n[0] = static_cast<std::int64_t>(v);
  else r.x[0] = round_to(k, v);
  return r;
}

inline value neg(const value& a) {
  if (is_int(a.k)) return binary_int(literal(a.k, 0), a, a.k, [](std::int64_t, std::int64_t y) { return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(y)); });
  return unary_float(a, a.k, [](long double x) { return -x; }, ulps::exact);
}
inline value abs(const value& a) {
  if (is_int(a.k)) return binary_int(literal(a.k, 0), a, a.k, [](std::int64_t, std::int64_t y) { return y < 0 ? static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(y)) : y; });
  return unary_float(a, a.k, [](long double x) { return std::fabs(x); }, ulps::exact);
}
inline value square(const value& a) {
  if (is_int(a.k)) return binary_int(a, a, a.k, [](std::int64_t x, std::int64_t y) { return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y)); });
  return unary_float(a, a.k, [](long double x) { return x * x; }, ulps::arithmetic);
}
#define FUZZ_REFERENCE_UNARY(name, expr, allowance)                                          \
  inline value name(const value& a) {                                                         \
    return unary_float(a, a.k, [](long double x) { return expr; }, allowance);                \
  }
FUZZ_REFERENCE_UNARY(exp, std::exp(x), ulps::exp_log)
FUZZ_REFERENCE_UNARY(log, std::log(x), ulps::exp_log)
FUZZ_REFERENCE_UNARY(tanh, std::tanh(x), ulps::hyperbolic)
FUZZ_REFERENCE_UNARY(sigmoid, 1 / (1 + std::exp(-x)), ulps::hyperbolic)
FUZZ_REFERENCE_UNARY(sin, std::sin(x), ulps::hyperbolic)
FUZZ_REFERENCE_UNARY(cos, std::cos(x), ulps::hyperbolic)
FUZZ_REFERENCE_UNARY(atan, std::atan(x), ulps::hyperbolic)
FUZZ_REFERENCE_UNARY(erf, std::erf(x), ulps::hyperbolic)
FUZZ_REFERENCE_UNARY(softplus, x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)), ulps::hyperbolic)
#undef FUZZ_REFERENCE_UNARY
inline value sqrt(const value& a) {
  return unary_float(a, a.k, [](long double x) { return std::sqrt(x); }, ulps::arithmetic, true, /*rounded=*/true);
}
inline value floor(const value& a) {
  return unary_float(a, a.k, [](long double x) { return std::floor(x); }, ulps::exact, /*continuous=*/false);
}

#define FUZZ_REFERENCE_ARITHMETIC(name, float_expr, int_expr, allowance, pole, rounded)                     \
  inline value name(const value& a, const value& b) {                                                        \
    if (is_int(a.k)) {                                                                                       \
      const kind k = a.k;                                                                                    \
      return binary_int(a, b, k, [k](std::int64_t x, std::int64_t y) -> std::int64_t {                       \
        const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);                  \
        (void)ux, (void)uy, (void)k;                                                                         \
        return int_expr;                                                                                     \
      });                                                                                                    \
    }                                                                                                        \
    return binary_float(a, b, a.k, [](long double x, long double y) { return float_expr; }, allowance, true, pole, rounded); \
  }
FUZZ_REFERENCE_ARITHMETIC(add, x + y, static_cast<std::int64_t>(ux + uy), ulps::arithmetic, false, true)
FUZZ_REFERENCE_ARITHMETIC(sub, x - y, static_cast<std::int64_t>(ux - uy), ulps::arithmetic, false, true)
FUZZ_REFERENCE_ARITHMETIC(mul, x * y, static_cast<std::int64_t>(ux * uy), ulps::arithmetic, false, false)
// XLA: x / 0 == -1, x % 0 == x, INT_MIN / -1 == INT_MIN, INT_MIN % -1 == 0; truncating
FUZZ_REFERENCE_ARITHMETIC(div, x / y, y == 0 ? -1 : (x == int_min(k) && y == -1) ? x : x / y, ulps::arithmetic, true, true)
FUZZ_REFERENCE_ARITHMETIC(mod, std::fmod(x, y), y == 0 ? x : (x == int_min(k) && y == -1) ? 0 : x % y, ulps::arithmetic, true, true)
FUZZ_REFERENCE_ARITHMETIC(maximum, (x > y || x != x) ? x : y, std::max(x, y), ulps::exact, false, true)
FUZZ_REFERENCE_ARITHMETIC(minimum, (x < y || x != x) ? x : y, std::min(x, y), ulps::exact, false, true)
#undef FUZZ_REFERENCE_ARITHMETIC

inline value bitwise(const value& a, const value& b, char op) {
  return binary_int(a, b, a.k, [op](std::int64_t x, std::int64_t y) { return op == '&' ? (x & y) : op == '|' ? (x | y) : (x ^ y); });
}

/// Comparisons: bool results, unknown where the input intervals do not decide them.
template <class Cmp>
value compare(const value& a, const value& b, Cmp cmp) {
  if (is_int(a.k)) return binary_int(a, b, kind::boolean, [cmp](std::int64_t x, std::int64_t y) -> std::int64_t { return cmp(x, y); });
  if (a.k == kind::boolean)
    return binary_float(a, b, kind::boolean, [cmp](long double x, long double y) -> long double { return cmp(x, y); }, 0, false);
  return binary_float(a, b, kind::boolean, [cmp](long double x, long double y) -> long double { return cmp(x, y); }, 0, false);
}
inline value less(const value& a, const value& b) { return compare(a, b, [](auto x, auto y) { return x < y; }); }
inline value less_equal(const value& a, const value& b) { return compare(a, b, [](auto x, auto y) { return x <= y; }); }
inline value greater(const value& a, const value& b) { return compare(a, b, [](auto x, auto y) { return x > y; }); }
inline value greater_equal(const value& a, const value& b) { return compare(a, b, [](auto x, auto y) { return x >= y; }); }
inline value equal(const value& a, const value& b) { return compare(a, b, [](auto x, auto y) { return x == y; }); }
inline value not_equal(const value& a, const value& b) { return compare(a, b, [](auto x, auto y) { return x != y; }); }
inline value logical_and(const value& a, const value& b) { return compare(a, b, [](auto x, auto y) { return x != 0 && y != 0; }); }
inline value logical_or(const value& a, const value& b) { return compare(a, b, [](auto x, auto y) { return x != 0 || y != 0; }); }
inline value logical_not(const value& a) { return compare(a, literal(kind::boolean, 0), [](auto x, auto) { return x == 0; }); }

inline value where(const value& c, const value& a, const value& b) {
  value r = value::make(a.k, broadcast_shape(c.shape, broadcast_shape(a.shape, b.shape)));
  for (std::size_t i = 0; i < r.size(); ++i) {
    const std::size_t ic = broadcast_offset(c.shape, r.shape, i);
    const value& pick = c.x[ic] != 0 ? a : b;
    const std::size_t ip = broadcast_offset(pick.shape, r.shape, i);
    r.known[i] = c.known[ic] && pick.known[ip];
    if (is_int(r.k)) r.n[i] = pick.n[ip];
    else r.x[i] = pick.x[ip], r.err[i] = pick.err[ip];
  }
  return r;
}

inline value cast(const value& a, kind to) {
  value r = value::make(to, a.shape);
  for (std::size_t i = 0; i < r.size(); ++i) {
    r.known[i] = a.known[i];
    if (is_int(to)) {  // from ints and bools only (the generator casts no float to an int)
      r.n[i] = is_int(a.k) ? wrap(to, static_cast<std::uint64_t>(a.n[i])) : static_cast<std::int64_t>(a.x[i]);
    } else {
      const long double v = is_int(a.k) ? static_cast<long double>(a.n[i]) : static_cast<long double>(a.x[i]);
      r.x[i] = round_to(to, v);
      if (is_float(a.k) && value_class(r.x[i]) != value_class(a.x[i])) r.known[i] = 0;  // overflow at the edge
      // exact where nothing is rounded: an exactly representable value with no bound (a bool or an
      // int as a float), or any interval widened from float32 to float64
      const bool exact = static_cast<long double>(r.x[i]) == v && (a.err[i] == 0 || (a.k == kind::f32 && to == kind::f64));
      r.err[i] = value_class(r.x[i]) != 0 ? 0.0 : exact ? a.err[i] : a.err[i] * (1 + epsilon(to)) + ulp(to, r.x[i]);
    }
  }
  return r;
}

// ---- reductions (one axis, or all with axis < 0) ----
enum class reduction { sum, mean, max, min, prod };

/// TF's identities over nothing: sum 0, prod 1, max -inf (lowest), min +inf (highest), mean NaN.
inline value reduce(const value& a, reduction op, int axis, bool keepdims) {
  const std::size_t rank = a.shape.size();
  std::vector<std::size_t> out_shape;
  std::size_t outer = 1, inner = 1, count = 1;  // a as [outer, count, inner]
  for (std::size_t d = 0; d < rank; ++d) {
    const bool reduced = axis < 0 || static_cast<std::size_t>(axis) == d;
    if (reduced) count *= a.shape[d];
    else if (axis >= 0 && d < static_cast<std::size_t>(axis)) outer *= a.shape[d];
    else inner *= a.shape[d];
    if (!reduced) out_shape.push_back(a.shape[d]);
    else if (keepdims) out_shape.push_back(1);
  }
  value r = value::make(a.k, out_shape);
  const kind k = a.k;
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t in = 0; in < inner; ++in) {
      const std::size_t ri = o * inner + in;
      bool known = true;
      if (is_int(k)) {
        std::uint64_t acc = op == reduction::prod ? 1 : 0;
        std::int64_t best = op == reduction::max ? int_min(k) : int_max(k);
        for (std::size_t c = 0; c < count; ++c) {
          const std::size_t i = (o * count + c) * inner + in;
          known = known && a.known[i];
          const std::int64_t v = a.n[i];
          if (op == reduction::sum) acc += static_cast<std::uint64_t>(v);
          else if (op == reduction::prod) acc *= static_cast<std::uint64_t>(v);
          else best = op == reduction::max ? std::max(best, v) : std::min(best, v);
        }
        r.n[ri] = op == reduction::sum || op == reduction::prod ? wrap(k, acc) : best;
      } else {
        long double sum = 0, magnitude = 0, finite_magnitude = 0;
        double err = 0;
        double best = op == reduction::max ? -INFINITY : INFINITY;
        bool nan = false;
        for (std::size_t c = 0; c < count; ++c) {
          const std::size_t i = (o * count + c) * inner + in;
          known = known && a.known[i];
          const double v = a.x[i];
          sum += v;
          magnitude += std::fabs(static_cast<long double>(v));
          if (std::isfinite(v)) finite_magnitude += std::fabs(static_cast<long double>(v));
          nan = nan || std::isnan(v);
          if (op == reduction::max || op == reduction::min) err = std::max(err, a.err[i]);
          else err += a.err[i];
          if (!std::isnan(v)) best = op == reduction::max ? std::max(best, v) : std::min(best, v);
        }
        if (op == reduction::max || op == reduction::min) {
          r.x[ri] = nan ? NAN : best;
          r.err[ri] = value_class(r.x[ri]) == 0 ? err : 0.0;
        } else {
          // any order of summation (blocks, lanes, threads) is within (count + 2) eps of the magnitudes
          const long double total = op == reduction::mean ? sum / static_cast<long double>(count) : sum;
          const double scale = op == reduction::mean ? 1.0 / static_cast<double>(std::max<std::size_t>(count, 1)) : 1.0;
          r.x[ri] = round_to(k, total);
          if (partial_sums_may_overflow(k, finite_magnitude, nan))
            known = false;
          else if (value_class(r.x[ri]) == 0)
            r.err[ri] = scale * (err + static_cast<double>(count + 2) * epsilon(k) * static_cast<double>(magnitude)) + 2 * ulp(k, r.x[ri]);
          else if (std::isfinite(static_cast<double>(magnitude)) && std::isfinite(sum) && count > 0)
            known = false;  // a finite sum rounded past the largest float: the order decides
          // (the mean of no element is 0 / 0, NaN, whatever the order: known)
        }
      }
      r.known[ri] = known;
    }
  return r;
}

/// matmul of two rank-2 values: each element a sum of count products (the bound of a sum).
inline value matmul(const value& a, const value& b) {
  const std::size_t m = a.shape[0], kk = a.shape[1], n = b.shape[1];
  if (b.shape[0] != kk) throw std::logic_error("fuzz reference: matmul inner dims differ");
  value r = value::make(a.k, {m, n});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      bool known = true;
      if (is_int(a.k)) {
        std::uint64_t acc = 0;
        for (std::size_t p = 0; p < kk; ++p) {
          known = known && a.known[i * kk + p] && b.known[p * n + j];
          acc += static_cast<std::uint64_t>(a.n[i * kk + p]) * static_cast<std::uint64_t>(b.n[p * n + j]);
        }
        r.n[i * n + j] = wrap(a.k, acc);
      } else {
        long double sum = 0, magnitude = 0, finite_magnitude = 0;
        double err = 0;
        bool nan = false;
        // A product of finite factors past the largest value by more than everything of the
        // other sign can take away overflows in every order, fused (fma) or not: partial sums
        // that hold it are past the largest value; those that do not cannot overflow the other
        // way when the other sign's terms add up to less than the largest value (the operands'
        // own error bounds, err, counted against both).
        long double positive = 0, negative = 0, largest_positive = 0, largest_negative = 0;
        bool infinite_positive = false, infinite_negative = false;
        for (std::size_t p = 0; p < kk; ++p) {
          const double x = a.x[i * kk + p], y = b.x[p * n + j], ex = a.err[i * kk + p], ey = b.err[p * n + j];
          known = known && a.known[i * kk + p] && b.known[p * n + j];
          const long double product = static_cast<long double>(x) * y;
          sum += product;
          magnitude += std::fabs(product);
          nan = nan || std::isnan(product);
          if (std::isfinite(x) && std::isfinite(y)) {
            finite_magnitude += std::fabs(product);
            if (product > 0) positive += product, largest_positive = std::max(largest_positive, product);
            else negative -= product, largest_negative = std::max(largest_negative, -product);
          } else if (!std::isnan(product)) {
            (product > 0 ? infinite_positive : infinite_negative) = true;
          }
          err += std::fabs(x) * ey + std::fabs(y) * ex + ex * ey;
        }
        r.x[i * n + j] = round_to(a.k, sum);
        const long double slack = 1 + static_cast<long double>(kk + 2) * epsilon(a.k), top = largest_finite(a.k);
        const auto overflows_to = [&](long double largest_term, long double other_sign, bool other_infinite) {
          return !nan && !other_infinite && other_sign * slack + err < top && largest_term - other_sign * slack - err > top * slack;
        };
        if (overflows_to(largest_positive, negative, infinite_negative))
          r.x[i * n + j] = INFINITY;
        else if (overflows_to(largest_negative, positive, infinite_positive))
          r.x[i * n + j] = -INFINITY;
        else if (partial_sums_may_overflow(a.k, finite_magnitude, nan))
          known = false;  // (a product just past the largest float is inf on its own, or not: fused)
        else if (value_class(r.x[i * n + j]) == 0)
          r.err[i * n + j] = err + static_cast<double>(kk + 2) * epsilon(a.k) * static_cast<double>(magnitude) + 2 * ulp(a.k, r.x[i * n + j]);
        else if (!std::isnan(sum) && std::isfinite(static_cast<double>(magnitude)))
          known = false;
      }
      r.known[i * n + j] = known;
    }
  return r;
}

inline value transpose(const value& a) {
  const std::size_t m = a.shape[0], n = a.shape[1];
  value r = value::make(a.k, {n, m});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      r.known[j * m + i] = a.known[i * n + j];
      r.err[j * m + i] = a.err[i * n + j];
      if (is_int(a.k)) r.n[j * m + i] = a.n[i * n + j];
      else r.x[j * m + i] = a.x[i * n + j];
    }
  return r;
}

/// `cond`: the branch the (scalar) predicate picks; unknown everywhere when it is unknown.
template <class A, class B>
value cond(const value& pred, A then_branch, B else_branch) {
  value r = pred.x[0] != 0 ? then_branch() : else_branch();
  if (!pred.known[0]) std::fill(r.known.begin(), r.known.end(), 0);
  return r;
}

/// `fori_loop` with a run-time trip count: the body applied `trips` times.
template <class Body>
value fori_loop(int trips, value v, Body body) {
  for (int i = 0; i < trips; ++i) v = body(v);
  return v;
}

}  // namespace fuzz
