// bench/serving.cpp -- what a served request costs: the spirals classifier of
// examples/09_serving.cpp (2 -> 32 tanh -> 2, argmax and softmax) called
//
//   module_call         model.call("serving_default", {{"points", t}})  (names, std::map, sf::tensor in and out)
//   function_tensor     classify(t) on an sf::tensor                    (run-time dtype/shape dispatch)
//   function_xtensor    classify(x) on an xt::xtensor<float, 2>          (the traced graph, no dispatch)
//   hand_eigen          the same forward pass written with Eigen (row-major maps, tanh, softmax, argmax)
//
// at batch 1 (latency: the overhead is what is measured) and 256 (throughput).
#include "bench_common.hpp"

#include <cstdint>
#include <map>
#include <string>

#include <Eigen/Dense>

#include <staticflow/io/module.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
constexpr std::size_t hidden = 32;

struct model_state {
  sf::variable<float, 2, hidden> w1{xt::xtensor<float, 2>(xt::ones<float>({2, 32}) * 0.1f)};
  sf::variable<float, hidden> b1;
  sf::variable<float, hidden, 2> w2{xt::xtensor<float, 2>(xt::ones<float>({32, 2}) * 0.1f)};
  sf::variable<float, 2> b2;
};

model_state& weights() {
  static model_state s;
  return s;
}

auto& classify() {
  static model_state& state = weights();  // variables are made outside the traced function
  static auto f = sf::function<sf::spec<float, sf::dyn, 2>>(
      [](auto points) {
        auto& m = state;
        auto logits = sf::matmul(sf::tanh(sf::matmul(points, m.w1) + m.b1), m.w2) + m.b2;
        return std::tuple{sf::argmax(logits, sf::axes<1>{}), sf::softmax(logits, sf::axes<1>{})};
      },
      sf::arg_names("points"));
  return f;
}

sf::module& model() {
  static auto m = [] {
    auto p = std::make_unique<sf::module>();
    p->add_signature("serving_default", classify(), sf::output_names("class", "probabilities"));
    return p;
  }();
  return *m;
}

xt::xtensor<float, 2> points(std::size_t batch) {
  xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({batch, 2});
  for (std::size_t i = 0; i < x.size(); ++i) x.flat(i) = float(i % 7) * 0.1f - 0.3f;
  return x;
}

void BM_module_call(benchmark::State& st) {
  const sf::tensor t = points(static_cast<std::size_t>(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(model().call("serving_default", {{"points", t}}));
  st.SetItemsProcessed(st.iterations() * st.range(0));
}

void BM_function_tensor(benchmark::State& st) {
  const sf::tensor t = points(static_cast<std::size_t>(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(classify()(t));
  st.SetItemsProcessed(st.iterations() * st.range(0));
}

void BM_function_xtensor(benchmark::State& st) {
  const auto x = points(static_cast<std::size_t>(st.range(0)));
  for (auto _ : st) benchmark::DoNotOptimize(classify()(x));
  st.SetItemsProcessed(st.iterations() * st.range(0));
}

void BM_hand_eigen(benchmark::State& st) {
  using rows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto x = points(static_cast<std::size_t>(st.range(0)));
  auto& m = weights();
  const Eigen::Map<const rows> w1(m.w1.value().data(), 2, hidden), w2(m.w2.value().data(), hidden, 2);
  const Eigen::Map<const Eigen::RowVectorXf> b1(m.b1.value().data(), hidden), b2(m.b2.value().data(), 2);
  for (auto _ : st) {
    const Eigen::Map<const rows> in(x.data(), static_cast<Eigen::Index>(x.shape()[0]), 2);
    const rows h = ((in * w1).rowwise() + b1).array().tanh().matrix();
    const rows logits = (h * w2).rowwise() + b2;
    std::vector<std::int64_t> classes(static_cast<std::size_t>(logits.rows()));
    rows probabilities(logits.rows(), 2);
    for (Eigen::Index r = 0; r < logits.rows(); ++r) {
      Eigen::Index best = 0;
      logits.row(r).maxCoeff(&best);
      classes[static_cast<std::size_t>(r)] = best;
      const auto e = (logits.row(r).array() - logits.row(r).maxCoeff()).exp();
      probabilities.row(r) = e / e.sum();
    }
    benchmark::DoNotOptimize(classes.data());
    benchmark::DoNotOptimize(probabilities.data());
  }
  st.SetItemsProcessed(st.iterations() * st.range(0));
}
}  // namespace

BENCHMARK(BM_module_call)->Name("serve/module_call")->Arg(1)->Arg(256)->Apply(sf_bench::add_min);
BENCHMARK(BM_function_tensor)->Name("serve/function_tensor")->Arg(1)->Arg(256)->Apply(sf_bench::add_min);
BENCHMARK(BM_function_xtensor)->Name("serve/function_xtensor")->Arg(1)->Arg(256)->Apply(sf_bench::add_min);
BENCHMARK(BM_hand_eigen)->Name("serve/hand_eigen")->Arg(1)->Arg(256)->Apply(sf_bench::add_min);
