// libFuzzer target: sf::tensor arguments of untrusted dtype, rank and shape through a polymorphic
// function's dispatch map, its signature checks and call_into (issue 22 item 3). Built by
// tests/fuzz/run_fuzz.cmake with clang's -fsanitize=fuzzer,address,undefined.
//
// The bytes describe two arguments and an output: for each a dtype (5 dtypes), a rank (0..9: 9 is
// above sf::tensor's limit of 8) and extents 0..3, then the values. Every call either returns the
// right values or throws sf::signature_error / sf::shape_error; a call that throws leaves the
// function's variable (an assign_add effect) and the call_into output exactly as they were.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
struct reader {
  const std::uint8_t* data;
  std::size_t size;
  std::uint8_t next() {
    if (size == 0) return 0;
    --size;
    return *data++;
  }
};

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "tensor_dispatch_fuzz: %s\n", what);
  std::abort();
}

/// A tensor of the dtype, rank and extents the bytes say (values small: no overflow in x * 2 + y);
/// false when sf::tensor refuses the rank (it must throw sf::signature_error, nothing else).
bool make_tensor(reader& r, sf::tensor& out) {
  const int dtype = r.next() % 5;
  const std::size_t rank = r.next() % 10;
  std::vector<std::size_t> shape(rank);
  for (auto& e : shape) e = r.next() % 4;
  try {
    switch (dtype) {
      case 0: out = sf::tensor::zeros<bool>(shape); break;
      case 1: out = sf::tensor::zeros<std::int32_t>(shape); break;
      case 2: out = sf::tensor::zeros<std::int64_t>(shape); break;
      case 3: out = sf::tensor::zeros<float>(shape); break;
      default: out = sf::tensor::zeros<double>(shape); break;
    }
  } catch (const sf::signature_error&) {
    if (rank <= sf::tensor::max_rank) fail("sf::tensor refused a rank it supports");
    return false;
  }
  if (rank > sf::tensor::max_rank) fail("sf::tensor took a rank above its limit");
  const std::size_t n = out.size();
  void* p = out.raw_data();
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = static_cast<std::int8_t>(r.next());
    switch (dtype) {
      case 0: static_cast<bool*>(p)[i] = v & 1; break;
      case 1: static_cast<std::int32_t*>(p)[i] = v; break;
      case 2: static_cast<std::int64_t*>(p)[i] = v; break;
      case 3: static_cast<float*>(p)[i] = static_cast<float>(v) / 4; break;
      default: static_cast<double*>(p)[i] = static_cast<double>(v) / 8; break;
    }
  }
  return true;
}

double element(const sf::tensor& t, std::size_t i) {
  return t.visit([&](const auto* p) { return static_cast<double>(p[i]); });
}

/// x's element at the flat index of the broadcast result (NumPy's rule, aligned on the right).
double broadcast_element(const sf::tensor& x, const std::vector<std::size_t>& out_shape, std::size_t flat) {
  std::size_t offset = 0, stride = 1;
  const auto xs = x.shape();
  for (std::size_t k = 0; k < out_shape.size(); ++k) {
    const std::size_t d = out_shape.size() - 1 - k;
    const std::size_t coord = flat % out_shape[d];
    flat /= out_shape[d];
    if (k < xs.size()) {
      const std::size_t xd = xs.size() - 1 - k;
      if (xs[xd] != 1) offset += coord * stride;
      stride *= xs[xd];
    }
  }
  return element(x, offset);
}

sf::variable<double> calls{0.0};
auto f = sf::function<sf::dtypes<float, std::int32_t>, sf::ranks<1, 2>>([](auto x, auto y) {
  calls.assign_add(1.0);
  return x * 2 + y;
});
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader r{data, size};
  sf::tensor x, y, out;
  if (!make_tensor(r, x) || !make_tensor(r, y) || !make_tensor(r, out)) return 0;
  const double before = calls.value();

  sf::tensor result;
  try {
    result = f(x, y);
  } catch (const sf::signature_error&) {
    if (calls.value() != before) fail("a call that threw signature_error changed the variable");
    return 0;
  } catch (const sf::shape_error&) {
    if (calls.value() != before) fail("a call that threw shape_error changed the variable");
    return 0;
  }
  if (calls.value() != before + 1) fail("a call that returned did not run its effect once");
  const auto declared = [](const sf::tensor& t) {
    return (t.dtype() == sf::dtype_id::float32 || t.dtype() == sf::dtype_id::int32) && t.rank() >= 1 && t.rank() <= 2;
  };
  if (!declared(x) || !declared(y)) fail("a call outside the declared variants returned");
  // values: x * 2 + y in the promoted dtype, broadcast
  const std::vector<std::size_t> shape(result.shape().begin(), result.shape().end());
  for (std::size_t i = 0; i < result.size(); ++i) {
    const double want = broadcast_element(x, shape, i) * 2 + broadcast_element(y, shape, i);
    if (element(result, i) != want) fail("a wrong value");
  }

  // call_into an output of fuzzed dtype and shape: right values or an error that leaves it alone
  const sf::tensor saved = out.clone();
  try {
    f.call_into(out, x, y);
  } catch (const sf::signature_error&) {
  } catch (const sf::shape_error&) {
  }
  const bool written = out.dtype() == result.dtype() && out.rank() == result.rank() && out.size() == result.size() &&
                       std::equal(out.shape().begin(), out.shape().end(), result.shape().begin());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double want = written ? element(result, i) : element(saved, i);
    if (element(out, i) != want) fail(written ? "call_into wrote wrong values" : "a call_into that threw wrote");
  }
  return 0;
}
