// A performance promise tested as a fact: after the first (tracing) call, a call with a fully
// static signature allocates nothing on the heap. This file replaces the global operator new
// with a counting one, so it has its own main (no Catch2 main library).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <new>

#include <staticflow/staticflow.hpp>

namespace {
std::atomic<long> allocations{0};
}

void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
// Catch allocates with the nothrow forms: they must come from the same allocator as the deletes.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
// GCC pairs the inlined operator new of Catch's singletons with these free calls and reports
// -Wmismatched-new-delete, but both come from the replacements here (malloc / free).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace sf = staticflow;

TEST_CASE("a static-signature call allocates nothing after the trace", "[alloc]") {
  auto f = sf::function([](auto x, auto y) { return sf::tanh(x * x + y) * 0.5f; });
  xt::xtensor_fixed<float, xt::xshape<4, 8>> x, y, out;
  x.fill(0.25f);
  y.fill(-1.f);
  f(x, y);  // traces: the cache allocates here

  const long before = allocations.load();
  auto r = f(x, y);  // returns an xtensor_fixed by value: on the stack
  f.call_into(out, x, y);
  float s = 0.f;
  for (int i = 0; i < 1000; ++i) {
    f.call_into(out, x, y);
    s += out(1, 2);
  }
  CHECK(allocations.load() - before == 0);

  auto scalar = sf::function([](auto a, auto b) { return a * b + 1.f; });
  scalar(1.f, 2.f);
  const long before_scalar = allocations.load();
  float acc = 0.f;
  for (int i = 0; i < 100; ++i) acc += scalar(static_cast<float>(i), 2.f);
  CHECK(allocations.load() == before_scalar);
  CHECK(r(0, 0) == out(0, 0));
  CHECK(out(3, 7) == Approx(std::tanh(0.0625f - 1.f) * 0.5f).epsilon(1e-6));  // (the vector tanh: within 5.2 ulp)
  CHECK(s != 0.f);
  CHECK(acc == 10000.f);

  // a run-time-shape call allocates its result (and only that) unless it goes through call_into
  auto v = xt::xtensor<float, 1>::from_shape({64});
  auto w = xt::xtensor<float, 1>::from_shape({64});
  v.fill(1.f);
  f.call_into(w, v, v);  // trace for the dynamic signature
  const long before_dyn = allocations.load();
  for (int i = 0; i < 100; ++i) f.call_into(w, v, v);
  CHECK(allocations.load() == before_dyn);
}

TEST_CASE("a while_loop over scalars and a cond allocate nothing after the trace", "[alloc][control]") {
  // issue 3: loop state of static shape lives on the stack
  auto collatz = sf::function([](auto n) {
    auto [steps, m] = sf::while_loop([](auto, auto m) { return m != 1; },
                                     [](auto s, auto m) { return std::tuple{s + 1, sf::where(m % 2 == 0, m / 2, 3 * m + 1)}; },
                                     0, n);
    return steps;
  });
  auto pick = sf::function([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0.f, [&] { return x * 2.f; }, [&] { return -x; });
  });
  xt::xtensor_fixed<float, xt::xshape<8>> x, out;
  x.fill(0.5f);
  CHECK(collatz(27) == 111);  // traces
  pick.call_into(out, x);
  const long before = allocations.load();
  long total = 0;
  for (int n = 1; n < 200; ++n) total += collatz(n);
  for (int i = 0; i < 100; ++i) pick.call_into(out, x);
  CHECK(allocations.load() - before == 0);
  CHECK(total > 0);
  CHECK(out(3) == 1.f);
}

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
