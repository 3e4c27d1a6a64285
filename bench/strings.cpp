// bench_strings -- string tensors (core/string.hpp, graph/strings.hpp, backend/cpu/strings.hpp)
// against a hand-written loop over std::string and, where it has the op, xtensor 0.24's lazy
// expressions over xt::xtensor<std::string, 1> (Eigen has no string arrays). One thread (a graph
// that makes strings runs on the calling thread).
//
//   Join/...        a + "-" + b over 100000 pairs of ASCII strings of 0-19 bytes, into a new
//                   xt::xtensor<std::string, 1> per call (staticflow returns one: f(a, b))
//   ToNumber/...    to_number<float>(s) * 2 over 100000 decimal strings, into a float buffer
//                   (call_into; xtensor has no parsing op)
//   ReduceJoin/...  reduce_join(x, 1, ",") of a [1000, 100] string tensor into 1000 strings
//                   (xtensor has no string reduction)
//
// Each result is checked after timing.
#include <benchmark/benchmark.h>

#include <charconv>
#include <cstddef>
#include <random>
#include <string>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

#include "bench_common.hpp"

namespace sf = staticflow;
using sf_bench::timed;
using strings1 = xt::xtensor<std::string, 1>;
using strings2 = xt::xtensor<std::string, 2>;

namespace {

constexpr std::size_t count = 100000, rows = 1000, columns = 100;

std::string random_text(std::mt19937& rng) {
  std::string s(rng() % 20, ' ');
  for (auto& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

struct data {
  strings1 a = strings1::from_shape({count}), b = strings1::from_shape({count}), numbers = strings1::from_shape({count});
  strings2 grid = strings2::from_shape({rows, columns});
  xt::xtensor<float, 1> parsed = xt::xtensor<float, 1>::from_shape({count});
  data() {
    std::mt19937 rng(5);
    for (std::size_t i = 0; i < count; ++i) {
      a(i) = random_text(rng);
      b(i) = random_text(rng);
      numbers(i) = std::to_string(static_cast<int>(rng() % 200000) - 100000) + "." + std::to_string(rng() % 100);
    }
    for (auto& s : grid) s = random_text(rng);
  }
  void check_join(benchmark::State& state, const strings1& out) const {
    for (std::size_t i = 0; i < count; i += 97)
      if (out(i) != a(i) + "-" + b(i)) return state.SkipWithError("wrong result");
  }
  void check_parsed(benchmark::State& state) const {
    for (std::size_t i = 0; i < count; i += 97)
      if (parsed(i) != 2.f * std::stof(numbers(i))) return state.SkipWithError("wrong result");
  }
  void check_rows(benchmark::State& state, const strings1& out) const {
    for (std::size_t r = 0; r < rows; r += 37) {
      std::string want;
      for (std::size_t c = 0; c < columns; ++c) want += (c ? "," : "") + grid(r, c);
      if (out(r) != want) return state.SkipWithError("wrong result");
    }
  }
};

void Join_Staticflow(benchmark::State& state) {
  data d;
  auto join = sf::function([](auto a, auto b) { return a + "-" + b; });
  strings1 out;
  timed(state, &out, [&] { out = join(d.a, d.b); });
  d.check_join(state, out);
}
void Join_HandLoop(benchmark::State& state) {
  data d;
  strings1 out;
  timed(state, &out, [&] {
    strings1 r = strings1::from_shape({count});
    for (std::size_t i = 0; i < count; ++i) {
      std::string& s = r(i);
      s.reserve(d.a(i).size() + 1 + d.b(i).size());
      s += d.a(i);
      s += '-';
      s += d.b(i);
    }
    out = std::move(r);
  });
  d.check_join(state, out);
}
void Join_Xtensor(benchmark::State& state) {
  data d;
  strings1 out;
  const std::string dash = "-";
  timed(state, &out, [&] { out = d.a + dash + d.b; });
  d.check_join(state, out);
}

void ToNumber_Staticflow(benchmark::State& state) {
  data d;
  auto parse = sf::function([](auto s) { return sf::strings::to_number<float>(s) * 2.f; });
  timed(state, d.parsed.data(), [&] { parse.call_into(d.parsed, d.numbers); });
  d.check_parsed(state);
}
void ToNumber_HandLoop(benchmark::State& state) {
  data d;
  timed(state, d.parsed.data(), [&] {
    for (std::size_t i = 0; i < count; ++i) {
      const std::string& s = d.numbers(i);
      float v = 0;
      if (std::from_chars(s.data(), s.data() + s.size(), v).ec != std::errc{}) throw std::invalid_argument(s);
      d.parsed(i) = 2.f * v;
    }
  });
  d.check_parsed(state);
}

void ReduceJoin_Staticflow(benchmark::State& state) {
  data d;
  auto rows_of = sf::function([](auto x) { return sf::strings::reduce_join(x, 1, ","); });
  strings1 out;
  timed(state, &out, [&] { out = rows_of(d.grid); });
  d.check_rows(state, out);
}
void ReduceJoin_HandLoop(benchmark::State& state) {
  data d;
  strings1 out;
  timed(state, &out, [&] {
    strings1 r = strings1::from_shape({rows});
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t c = 0; c < columns; ++c) {
        if (c) r(i) += ',';
        r(i) += d.grid(i, c);
      }
    out = std::move(r);
  });
  d.check_rows(state, out);
}

}  // namespace

BENCHMARK(Join_Staticflow)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Join_HandLoop)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(Join_Xtensor)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(ToNumber_Staticflow)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(ToNumber_HandLoop)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(ReduceJoin_Staticflow)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
BENCHMARK(ReduceJoin_HandLoop)->Unit(benchmark::kMillisecond)->Apply(sf_bench::add_min);
