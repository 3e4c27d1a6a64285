// Thread safety of the dispatch map: 8 threads call one function with mixed shapes, ranks and
// containers at once; every variant is traced exactly once and every result is right.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

TEST_CASE("8 threads, mixed shapes: each variant traced once", "[dispatch][threads]") {
  std::mutex mutex;
  std::map<std::string, int> traces;  // variant spec -> times traced
  auto f = sf::function<sf::ranks<0, 1, 2, 3>, sf::specialize<sf::shape<4>, sf::shape<2, 2>>>(
      [&](auto x) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          ++traces[sf::short_spec_string(sf::spec_of_node_t<decltype(x)>{})];
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // widen the race window
        return x * 3.f - 1.f;
      },
      sf::function_name("threads"));
  f.set_log_callback([](std::string_view) {});  // the first calls trace a lot: expected here

  std::atomic<int> failures{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 200; ++i) {
        const int k = (t + i) % 7;
        const float v = static_cast<float>(t + i);
        const float want = v * 3.f - 1.f;
        bool ok = true;
        switch (k) {
          case 0: ok = f(xt::xarray<float>(v))() == want; break;                               // rank 0
          case 1: ok = f(xt::xarray<float>{v, v, v})(2) == want; break;                         // (None,)
          case 2: ok = f(xt::xarray<float>{v, v, v, v})(3) == want; break;                      // (4,)
          case 3: ok = f(xt::xarray<float>{{v, v}, {v, v}})(1, 1) == want; break;               // (2, 2)
          case 4: ok = f(xt::xarray<float>{{v, v, v}})(0, 2) == want; break;                    // (None, None)
          case 5: ok = f(xt::xtensor<float, 1>{v, v, v, v})(0) == want; break;                  // (4,) again
          default: {                                                                          // rank 3
            xt::xarray<float> cube = xt::zeros<float>({2, 1, 2});
            cube.fill(v);
            ok = f(cube)(1, 0, 1) == want;
          }
        }
        if (!ok) failures.fetch_add(1);
      }
    });
  go.store(true);
  for (auto& th : threads) th.join();

  CHECK(failures.load() == 0);
  CHECK(traces == std::map<std::string, int>{{"float32[]", 1},
                                             {"float32[None]", 1},
                                             {"float32[4]", 1},
                                             {"float32[2,2]", 1},
                                             {"float32[None,None]", 1},
                                             {"float32[None,None,None]", 1}});
  CHECK(f.tracing_count() == 6);
  CHECK(f.cache_size() == 6);
}
