// Tests for effects/random_generator.hpp: sf::random_generator against tf.random.Generator (the
// reference numbers and states were printed by tensorflow 2.21 on this machine), draws as
// effects (program order, rollback, eager mode), dropout with a generator, and misuse.
#include <catch2/catch.hpp>

#include <cstdint>
#include <tuple>
#include <vector>

#include <staticflow/staticflow.hpp>

#include "../graph/tf_reference.hpp"

namespace sf = staticflow;
using tf_reference::as;
using tf_reference::flat;

namespace {
std::vector<std::int64_t> state_of(const sf::random_generator& g) { return flat(g.state().value()); }
}  // namespace

TEST_CASE("from_seed: TF's numbers, and the state moved 256 per value after each call", "[effects][random]") {
  auto gen = sf::random_generator::from_seed(1);
  CHECK(state_of(gen) == std::vector<std::int64_t>{1, 0, 0});
  auto uniform = sf::function([&] { return gen.uniform(sf::shape<5>{}); });
  CHECK(flat(uniform()) == as<float>({0.7874951362609863, 0.3906511068344116, 0.29263055324554443, 0.9921692609786987, 0.9581042528152466}));
  CHECK(state_of(gen) == std::vector<std::int64_t>{1281, 0, 0});
  CHECK(flat(uniform()) == as<float>({0.8704671859741211, 0.242792010307312, 0.6118762493133545, 0.9704556465148926, 0.7605282068252563}));
  CHECK(state_of(gen) == std::vector<std::int64_t>{2561, 0, 0});
  auto normal = sf::function([&] { return gen.normal(sf::shape<3>{}); });
  CHECK(flat(normal()) == as<float>({-0.7279053330421448, -1.6161478757858276, -1.49088716506958}));
  CHECK(state_of(gen) == std::vector<std::int64_t>{3329, 0, 0});
  auto ints = sf::function([&] { return std::tuple{gen.uniform<std::int32_t>(sf::shape<3>{}, 0, 10), gen.uniform_full_int(sf::shape<2>{})}; });
  const auto [i, full] = ints();
  CHECK(flat(i) == std::vector<std::int32_t>{3, 4, 6});
  CHECK(flat(full) == std::vector<std::int64_t>{8645169672042352723, 1057656798894713629});  // drawn after the ints: state 4097
  auto fresh = sf::random_generator::from_seed(1);
  auto truncated = sf::function([&] { return fresh.truncated_normal(sf::shape<5>{}); });
  CHECK(flat(truncated()) == as<float>({0.4384227395057678, -0.5343984365463257, -0.07710261642932892, 1.5658046007156372, 1.6272374391555786}));
  CHECK(state_of(fresh) == std::vector<std::int64_t>{1281, 0, 0});
  CHECK(uniform.tracing_count() == 1);
}

TEST_CASE("from_state: the words as they are; the counter carries into its high word", "[effects][random]") {
  auto gen = sf::random_generator::from_state({5, -1, 77});
  auto f = sf::function([&] { return gen.uniform<double>(sf::shape<4>{}); });
  CHECK(flat(f()) == as<double>({0.3762850577664365, 0.14762744770572822, 0.0575050816191085, 0.37731247787000477}));
  CHECK(state_of(gen) == std::vector<std::int64_t>{1029, -1, 77});
  auto carry = sf::random_generator::from_state({-1, 3, 77});
  auto one = sf::function([&] { return carry.uniform(sf::shape<1>{}); });
  one();
  CHECK(state_of(carry) == std::vector<std::int64_t>{255, 4, 77});
  // a draw whose blocks cross the counter's low word: -2, -1, then 0 with the carry in the high word
  auto across = sf::random_generator::from_state({-2, 3, 77});
  auto twelve = sf::function([&] { return across.uniform(sf::shape<12>{}); });
  CHECK(flat(twelve()) == as<float>({0.6078974008560181, 0.476279616355896, 0.7145090103149414, 0.52406907081604, 0.12832319736480713,
                                     0.4505499601364136, 0.09800565242767334, 0.8657436370849609, 0.6074827909469604, 0.9274358749389648,
                                     0.6379636526107788, 0.8760781288146973}));
  CHECK(state_of(across) == std::vector<std::int64_t>{3070, 4, 77});
}

TEST_CASE("a negative seed fills the high words with -1, as TF cuts Python's integer; an empty draw moves nothing",
          "[effects][random]") {
  auto gen = sf::random_generator::from_seed(-5);
  CHECK(state_of(gen) == std::vector<std::int64_t>{-5, -1, -1});
  auto f = sf::function([&](auto x) { return gen.uniform(sf::shape_of(x)); });
  CHECK(flat(f(xt::xtensor<float, 1>(xt::zeros<float>({std::size_t{3}})))) ==
        as<float>({0.6168365478515625, 0.8012124300003052, 0.7202738523483276}));
  CHECK(state_of(gen) == std::vector<std::int64_t>{763, 0, -1});
  CHECK(f(xt::xtensor<float, 1>::from_shape({0})).size() == 0);
  CHECK(state_of(gen) == std::vector<std::int64_t>{763, 0, -1});
  gen.reset_from_seed(-1);
  CHECK(state_of(gen) == std::vector<std::int64_t>{-1, -1, -1});
  // integer bounds are checked before the draw records its effect
  auto ints = sf::function([&] { return gen.uniform<std::int32_t>(sf::shape<2>{}, 4, 4); });
  CHECK_THROWS_WITH(ints(), "staticflow: random_generator::uniform: need minval < maxval (got 4 and 4)");
  auto wide = sf::function([&] { return gen.uniform<std::int32_t>(sf::shape<2>{}, 0, 5000000000); });
  CHECK_THROWS_WITH(wide(), "staticflow: random_generator::uniform: minval 0 and maxval 5000000000 must fit int32");
  CHECK(state_of(gen) == std::vector<std::int64_t>{-1, -1, -1});
}

TEST_CASE("two draws in one function see each other, in program order", "[effects][random]") {
  auto gen = sf::random_generator::from_seed(1);
  auto f = sf::function([&](auto x) { return std::tuple{x + gen.uniform(sf::shape<5>{}), gen.uniform(sf::shape_of(x))}; });
  const xt::xtensor<float, 1> zeros = xt::zeros<float>({std::size_t{5}});
  const auto [first, second] = f(zeros);
  CHECK(flat(first) == as<float>({0.7874951362609863, 0.3906511068344116, 0.29263055324554443, 0.9921692609786987, 0.9581042528152466}));
  CHECK(flat(second) == as<float>({0.8704671859741211, 0.242792010307312, 0.6118762493133545, 0.9704556465148926, 0.7605282068252563}));
  CHECK(state_of(gen) == std::vector<std::int64_t>{2561, 0, 0});
  // eager mode: the same numbers from the same state
  gen.reset_from_seed(1);
  sf::run_functions_eagerly(true);
  const auto [eager_first, eager_second] = f(zeros);
  sf::run_functions_eagerly(false);
  CHECK((eager_first == first));
  CHECK((eager_second == second));
  CHECK(state_of(gen) == std::vector<std::int64_t>{2561, 0, 0});
}

TEST_CASE("a call that throws leaves the generator's state as it was", "[effects][random]") {
  auto gen = sf::random_generator::from_seed(3);
  auto f = sf::function([&](auto ids) { return sf::gather(gen.normal(sf::shape<4>{}), ids); });
  CHECK_THROWS_WITH(f(xt::xtensor<std::int32_t, 1>{0, 9}), "staticflow: gather: indices[1] = 9 is not in [0, 4)");
  CHECK(state_of(gen) == std::vector<std::int64_t>{3, 0, 0});
  f(xt::xtensor<std::int32_t, 1>{0, 1});
  CHECK(state_of(gen) == std::vector<std::int64_t>{3 + 4 * 256, 0, 0});
}

TEST_CASE("dropout with a generator: a new mask per call; misuse is a clear error", "[effects][random]") {
  auto gen = sf::random_generator::from_seed(42);
  auto f = sf::function([&](auto x) { return sf::dropout(x, 0.5, gen); });
  const xt::xtensor<float, 1> x = xt::ones<float>({std::size_t{256}});
  const auto a = f(x), b = f(x);
  CHECK((a != b));
  for (float v : a) CHECK((v == 0.f || v == 2.f));
  CHECK(state_of(gen) == std::vector<std::int64_t>{42 + 2 * 256 * 256, 0, 0});
  auto keep = sf::function([&](auto x) { return sf::dropout(x, 0.0, gen); });  // rate 0: x, and no draw (TF's)
  CHECK((keep(x) == x));
  CHECK(state_of(gen) == std::vector<std::int64_t>{42 + 2 * 256 * 256, 0, 0});
  auto bad = sf::function([&](auto x) { return sf::dropout(x, -0.1, gen); });
  CHECK_THROWS_WITH(bad(x), "staticflow: dropout: rate must be in [0, 1) (got -0.1)");
  CHECK(state_of(gen) == std::vector<std::int64_t>{42 + 2 * 256 * 256, 0, 0});
  CHECK_THROWS_AS(gen.uniform(sf::shape<2>{}), sf::trace_error);  // outside a traced function
  CHECK_THROWS_WITH(gen.uniform(sf::shape<2>{}), "staticflow: sf::random_generator: a draw is only possible inside a traced function");
}

TEST_CASE("from_non_deterministic_state differs per generator; reset_from_seed in a function is an effect", "[effects][random]") {
  auto a = sf::random_generator::from_non_deterministic_state();
  auto b = sf::random_generator::from_non_deterministic_state();
  CHECK(state_of(a) != state_of(b));
  auto gen = sf::random_generator::from_seed(5);
  auto f = sf::function([&] {
    gen.reset_from_seed(1);
    return gen.uniform(sf::shape<5>{});
  });
  const auto tf_first = as<float>({0.7874951362609863, 0.3906511068344116, 0.29263055324554443, 0.9921692609786987, 0.9581042528152466});
  CHECK(flat(f()) == tf_first);
  CHECK(state_of(gen) == std::vector<std::int64_t>{1281, 0, 0});
  CHECK(flat(f()) == tf_first);  // reset on every call
}
