// tests/graph/einsum_reference.hpp -- numpy.einsum written out as loops (reference_einsum) and
// check_equation, which runs sf::einsum on random extents against it: shared by test_einsum.cpp
// and test_einsum_forms.cpp (two translation units, each under the compile budget).
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>

namespace einsum_reference {
namespace sf = staticflow;
/// numpy.einsum written out: the sum, over every value of every label, of the operands' product,
/// into the output's element (an operand's extent 1 broadcasts, as numpy's).
xt::xarray<double> reference_einsum(const std::string& equation, const std::vector<xt::xarray<double>>& operands) {
  std::vector<std::string> in;
  std::string out;
  const std::size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    in.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::map<char, std::size_t> extent;
  for (std::size_t k = 0; k < in.size(); ++k)
    for (std::size_t i = 0; i < in[k].size(); ++i) {
      const std::size_t e = operands[k].shape(i);
      auto [it, fresh] = extent.emplace(in[k][i], e);
      if (!fresh && it->second == 1) it->second = e;
    }
  if (arrow != std::string::npos) {
    out = equation.substr(arrow + 2);
  } else {
    for (const auto& [label, e] : extent) {
      std::size_t seen = 0;
      for (const auto& s : in) seen += static_cast<std::size_t>(std::count(s.begin(), s.end(), label));
      if (seen == 1) out += label;
    }
  }
  std::vector<std::size_t> out_shape;
  for (char c : out) out_shape.push_back(extent[c]);
  xt::xarray<double> result = xt::zeros<double>(out_shape);
  std::vector<char> labels;
  for (const auto& [label, e] : extent) labels.push_back(label);
  std::map<char, std::size_t> at;
  for (char c : labels) at[c] = 0;
  for (char c : labels)
    if (extent[c] == 0) return result;
  for (;;) {
    double term = 1;
    for (std::size_t k = 0; k < in.size(); ++k) {
      std::vector<std::size_t> index;
      for (std::size_t i = 0; i < in[k].size(); ++i) index.push_back(operands[k].shape(i) == 1 ? 0 : at[in[k][i]]);
      term *= operands[k].element(index.begin(), index.end());
    }
    std::vector<std::size_t> index;
    for (char c : out) index.push_back(at[c]);
    result.element(index.begin(), index.end()) += term;
    std::size_t d = labels.size();  // odometer over the labels
    while (d > 0 && ++at[labels[d - 1]] == extent[labels[d - 1]]) at[labels[--d]] = 0;
    if (d == 0) break;
  }
  return result;
}

std::mt19937& rng() {
  static std::mt19937 g(2026'11'27);
  return g;
}

template <std::size_t R>
xt::xtensor<double, R> random_tensor(const std::array<std::size_t, R>& shape) {
  xt::xtensor<double, R> x = xt::zeros<double>(shape);
  std::uniform_int_distribution<int> u(-4, 4);
  for (auto& v : x) v = u(rng());
  return x;
}

/// Checks sf::einsum<Equation> on operands of the given ranks, over random extents 0..4 per
/// label (the same extent wherever a label appears).
template <sf::einsum_string Equation, std::size_t... R>
void check_equation(const std::string& equation) {
  auto f = sf::function([](const auto&... x) { return sf::einsum<Equation>(x...); });
  std::uniform_int_distribution<std::size_t> extent_of(0, 4);
  for (int round = 0; round < 12; ++round) {
    std::map<char, std::size_t> extent;
    for (char c : equation)
      if (std::isalpha(static_cast<unsigned char>(c)) && !extent.count(c)) extent[c] = round < 2 ? std::size_t(round) : extent_of(rng());
    std::size_t k = 0, label = 0;
    const std::string lhs = equation.substr(0, equation.find("->"));
    auto operand = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
      std::array<std::size_t, N> shape{};
      while (lhs[label] == ',') ++label;
      for (std::size_t i = 0; i < N; ++i) shape[i] = extent[lhs[label++]];
      ++k;
      return random_tensor<N>(shape);
    };
    const auto operands = std::tuple{operand(std::integral_constant<std::size_t, R>{})...};
    const xt::xarray<double> got = std::apply(f, operands);  // (a scalar result: a 0-d array)
    const auto expected = std::apply([&](const auto&... x) { return reference_einsum(equation, {xt::xarray<double>(x)...}); }, operands);
    INFO(equation << " round " << round);
    REQUIRE(got.dimension() == expected.dimension());
    CHECK(std::equal(got.shape().begin(), got.shape().end(), expected.shape().begin()));
    CHECK((got == expected));
  }
}
}  // namespace einsum_reference
