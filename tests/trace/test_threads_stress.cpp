// Many threads at once on one function with an effect: mixed signatures (static, run-time rank 1,
// run-time rank through the dispatch map), sizes on both sides of the threaded-loop grain (so the
// pool's parallel loops run inside concurrent calls), and calls that throw. Every result is right,
// every signature is traced once, and a call that throws leaves the variable as it was: the
// variable ends at exactly the sum of the successful calls' increments. Also built with
// ThreadSanitizer (tsan_trace_threads_stress).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
struct thread_count {
  explicit thread_count(std::size_t n) { sf::set_num_threads(n); }
  ~thread_count() { sf::set_num_threads(1); }
};
}  // namespace

TEST_CASE("16 threads: mixed signatures, effects, threaded loops and calls that throw", "[threads]") {
  const thread_count pool(2);
  sf::variable<double> total{0.0};
  std::atomic<int> traces{0};
  auto accumulate = sf::function([&](auto x, auto y) {
    traces.fetch_add(1);
    total.assign_add(sf::reduce_sum(x * y));
    return x * 2.0 + y;
  });
  accumulate.set_log_callback([](std::string_view) {});

  constexpr std::size_t big = sf::cpu::parallel_grain + 33;  // a threaded loop and reduction
  std::atomic<int> wrong{0}, thrown{0};
  std::atomic<long long> expected{0};  // sum of the successful calls' increments (exact: integers)
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 40; ++i) {
        const double v = static_cast<double>((t + i) % 5 + 1);
        switch ((t * 7 + i) % 5) {
          case 0: {  // static shape
            const xt::xtensor_fixed<double, xt::xshape<3>> x{1.0, 2.0, 3.0}, y{v, v, v};
            const auto r = accumulate(x, y);
            if (r(2) != 6.0 + v) wrong.fetch_add(1);
            expected.fetch_add(static_cast<long long>(6 * v));
            break;
          }
          case 1: {  // run-time extent, threaded
            const xt::xtensor<double, 1> x = xt::ones<double>({big}), y = v * xt::ones<double>({big});
            const auto r = accumulate(x, y);
            if (r(big - 1) != 2.0 + v || r(0) != 2.0 + v) wrong.fetch_add(1);
            expected.fetch_add(static_cast<long long>(v) * static_cast<long long>(big));
            break;
          }
          case 2: {  // run-time rank (the dispatch map)
            const xt::xarray<double> x = xt::ones<double>({2, 3}), y = v * xt::ones<double>({2, 3});
            const auto r = accumulate(x, y);
            if (r(1, 2) != 2.0 + v) wrong.fetch_add(1);
            expected.fetch_add(static_cast<long long>(6 * v));
            break;
          }
          case 3: {  // shapes that do not broadcast: throws, and the variable is untouched
            const xt::xtensor<double, 1> x = xt::ones<double>({4}), y = xt::ones<double>({3});
            try {
              accumulate(x, y);
              wrong.fetch_add(1);
            } catch (const sf::shape_error&) {
              thrown.fetch_add(1);
            }
            break;
          }
          default: {  // broadcasting against a scalar, small
            const xt::xtensor<double, 1> x{1.0, 1.0, 1.0, 1.0, 1.0};
            const auto r = accumulate(x, v);
            if (r(4) != 2.0 + v) wrong.fetch_add(1);
            expected.fetch_add(static_cast<long long>(5 * v));
          }
        }
      }
    });
  go.store(true);
  for (auto& th : threads) th.join();

  CHECK(wrong.load() == 0);
  CHECK(thrown.load() == 16 * 40 / 5);
  CHECK(total.value() == static_cast<double>(expected.load()));
  CHECK(accumulate.tracing_count() == accumulate.cache_size());
  CHECK(traces.load() == static_cast<int>(accumulate.tracing_count()));
  // (double[3], double[3]); (double[None], double[None]), which the throwing calls share;
  // (double[None,None], double[None,None]) through the dispatch map; (double[None], double)
  CHECK(accumulate.cache_size() == 4);
}
