// Tests for backend/cpu/effect_graph.hpp: an effect's graphs, planned together, evaluated into the
// buffers its target gives. A graph that is one slot's value whole (a matmul's, a reduction's: an
// optimizer's gradients) is computed straight into its buffer, asked for with
// effect_graphs::fresh_buffer while the other slots are still to run; a target that declines, a
// slot that another graph already takes, and a broadcast that does broadcast go through the slot
// and a copy, as every graph did before.
#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
namespace g = sf::graph;

namespace {
using fresh_t = sf::detail::effect_graphs::fresh_buffer_t;

struct matrix {
  std::array<std::size_t, 2> ext;
  std::vector<float> data;
  matrix(std::size_t rows, std::size_t cols, float first) : ext{rows, cols}, data(rows * cols) {
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = first + float(i % 7) - 2.f * float(i % 3);
  }
  sf::detail::erased_view view() const { return {data.data(), ext.data()}; }
};

// a · b (small integers: every path gives the exact sums)
std::vector<float> product(const matrix& a, const matrix& b) {
  std::vector<float> c(a.ext[0] * b.ext[1], 0.f);
  for (std::size_t i = 0; i < a.ext[0]; ++i)
    for (std::size_t j = 0; j < b.ext[1]; ++j)
      for (std::size_t p = 0; p < a.ext[1]; ++p) c[i * b.ext[1] + j] += a.data[i * a.ext[1] + p] * b.data[p * b.ext[1] + j];
  return c;
}

// Gives graph k's buffer, counting how it was asked for; declines fresh buffers when told to.
struct recording_target {
  std::array<std::vector<float>, 3> out{};
  std::array<int, 3> fresh{}, plain{};
  bool decline_fresh = false;

  template <std::size_t K, class Ext, class Check>
  float* operator()(std::integral_constant<std::size_t, K>, const Ext& ext, const Check&) {
    std::size_t size = 1;
    for (const auto e : ext) size *= e;
    if constexpr (std::is_same<Check, fresh_t>::value) {
      ++fresh[K];
      if (decline_fresh) return nullptr;
    } else {
      ++plain[K];
    }
    out[K].assign(size, -1.f);
    return out[K].data();
  }
};

// effect run over (a, b) with a new target (declining fresh buffers when told to)
template <class Effect>
recording_target run_with(const Effect& effect, const matrix& a, const matrix& b, bool decline_fresh = false) {
  const sf::detail::erased_view args[] = {a.view(), b.view()};
  recording_target target;
  target.decline_fresh = decline_fresh;
  effect.run(args, target);
  return target;
}

using A = g::argument<0, float, sf::shape<sf::dyn, sf::dyn>>;
using B = g::argument<1, float, sf::shape<sf::dyn, 4>>;
}  // namespace

TEST_CASE("effect_graph: a graph that is a product's value is computed straight into its buffer", "[effect_graph]") {
  const auto prod = sf::matmul(A{}, B{});
  const auto twice = A{} * 2.f;  // elementwise: evaluated into its buffer after the slots
  const sf::cpu::effect_graph<decltype(prod), decltype(twice)> effect(prod, twice);
  const matrix a(3, 5, 1.f), b(5, 4, -1.f);
  const auto target = run_with(effect, a, b);
  CHECK(target.fresh[0] == 1);
  CHECK(target.plain[0] == 0);
  CHECK(target.out[0] == product(a, b));
  CHECK(target.fresh[1] == 0);
  CHECK(target.plain[1] == 1);
  std::vector<float> doubled = a.data;
  for (auto& e : doubled) e *= 2.f;
  CHECK(target.out[1] == doubled);

  // a target that cannot give a fresh buffer: the product goes through its slot and a copy
  const auto declining = run_with(effect, a, b, true);
  CHECK(declining.fresh[0] == 1);
  CHECK(declining.plain[0] == 1);
  CHECK(declining.out[0] == product(a, b));

  // size 0: an empty product is an ordinary one
  const auto none = run_with(effect, matrix(0, 5, 0.f), b);
  CHECK(none.fresh[0] == 1);
  CHECK(none.out[0].empty());
  CHECK(none.out[1].empty());
}

TEST_CASE("effect_graph: a broadcast that only refines the shape is the product's value; one that broadcasts is not",
          "[effect_graph]") {
  // the gradient of a [3, 4] variable from an input of run-time extents: broadcast<[3, 4]> of a
  // [dyn, 4] product, which has 3 rows whenever the forward product ran
  const auto grad = g::broadcast<sf::shape<3, 4>, decltype(sf::matmul(A{}, B{}))>(sf::matmul(A{}, B{}));
  const sf::cpu::effect_graph<decltype(grad)> effect(grad);
  const matrix b(5, 4, 2.f);

  const matrix a(3, 5, 1.f);
  const auto target = run_with(effect, a, b);
  CHECK(target.fresh[0] == 1);
  CHECK(target.plain[0] == 0);
  CHECK(target.out[0] == product(a, b));

  // one row: the broadcast repeats it, into the buffer asked for after the slots
  const matrix row(1, 5, 1.f);
  const auto repeated = run_with(effect, row, b);
  CHECK(repeated.fresh[0] == 0);
  CHECK(repeated.plain[0] == 1);
  const auto one = product(row, b);
  std::vector<float> three;
  for (int i = 0; i < 3; ++i) three.insert(three.end(), one.begin(), one.end());
  CHECK(repeated.out[0] == three);
}

TEST_CASE("effect_graph: a slot two graphs read whole goes straight into the first one's buffer", "[effect_graph]") {
  const auto prod = sf::matmul(A{}, B{});
  const auto total = sf::reduce_sum(B{});  // a second slot, read whole too
  const sf::cpu::effect_graph<decltype(prod), decltype(total), decltype(prod)> effect(prod, total, prod);
  const matrix a(2, 3, 1.f), b(3, 4, 1.f);
  const auto target = run_with(effect, a, b);
  CHECK(target.fresh == std::array<int, 3>{1, 1, 0});
  CHECK(target.plain == std::array<int, 3>{0, 0, 1});
  CHECK(target.out[0] == product(a, b));
  CHECK(target.out[2] == product(a, b));
  float sum = 0;
  for (const float e : b.data) sum += e;
  CHECK(target.out[1] == std::vector<float>{sum});

  // a slot whose extents throw after an earlier graph's buffer was given: the error comes out
  // (what was written there is the target's: a variable commits its next buffer at the end only)
  const sf::cpu::effect_graph<decltype(total), decltype(prod)> total_first(total, prod);
  const matrix wrong(4, 4, 1.f);  // inner dimensions 3 and 4
  const sf::detail::erased_view bad_args[] = {a.view(), wrong.view()};
  recording_target failing;
  CHECK_THROWS_AS(total_first.run(bad_args, failing), sf::shape_error);
  CHECK(failing.fresh == std::array<int, 3>{1, 0, 0});
  CHECK(failing.plain == std::array<int, 3>{0, 0, 0});
}
