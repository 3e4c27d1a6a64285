// bench/compile_time_gen.py's chain as a template, for the autodiff tests: node i combines the
// running value with one argument (a, b, c, d in turn) by +, - or *, and every 10th node is tanh
// or exp (of a quarter, so that the values stay in range). chain<Length>(t, a, b, c, d) applies
// Length nodes to t.
#pragma once

#include <cstddef>

#include <staticflow/staticflow.hpp>

namespace generated_chain {

template <std::size_t Length, std::size_t Left = Length, class T, class A, class B, class C, class D>
constexpr auto chain(const T& t, const A& a, const B& b, const C& c, const D& d) {
  namespace sf = staticflow;
  if constexpr (Left == 0) {
    return t;
  } else {
    constexpr std::size_t i = Length - Left;  // the node's index in the chain
    const auto arg = [&]() -> decltype(auto) {
      if constexpr ((i + 1) % 4 == 0) return a;
      else if constexpr ((i + 1) % 4 == 1) return b;
      else if constexpr ((i + 1) % 4 == 2) return c;
      else return d;
    };
    if constexpr (i % 10 == 9) {
      if constexpr ((i / 10) % 2 == 0) return chain<Length, Left - 1>(sf::tanh(t), a, b, c, d);
      else return chain<Length, Left - 1>(sf::exp(t * 0.25), a, b, c, d);
    } else if constexpr (i % 3 == 0) {
      return chain<Length, Left - 1>(t + arg(), a, b, c, d);
    } else if constexpr (i % 3 == 1) {
      return chain<Length, Left - 1>(t - arg(), a, b, c, d);
    } else {
      return chain<Length, Left - 1>(t * arg(), a, b, c, d);
    }
  }
}

}  // namespace generated_chain
