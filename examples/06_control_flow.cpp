// Seeds 000 and 001, AutoGraph's part: Python `if`, `while` and `for` over tensors become
// sf::cond, sf::while_loop and sf::fori_loop (with sf::tensor_array for results of unknown
// count). Both branches are traced; only the taken one runs.
#include <cstdint>
#include <iostream>

#include <xtensor/xio.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

int main() {
  // if tf.reduce_sum(x) > 0: return tf.abs(x) else: return tf.square(x)
  auto conditional_function = sf::function([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0, [&] { return sf::abs(x); }, [&] { return sf::square(x); });
  });
  xt::xtensor_fixed<int, xt::xshape<3>> pos = {1, 2, -1}, neg = {-1, -2, 1};
  std::cout << "conditional_function([1, 2, -1]) = " << conditional_function(pos) << "\n";   // {1, 2, 1}
  std::cout << "conditional_function([-1, -2, 1]) = " << conditional_function(neg) << "\n";  // {1, 4, 1}

  // if tf.reduce_sum(x) > 0: return x * x else: return -x // 2
  auto f = sf::function([](auto x) {
    return sf::cond(sf::reduce_sum(x) > 0, [&] { return x * x; }, [&] { return sf::floordiv(-x, 2); });
  });
  std::cout << "f(-2) = " << f(-2) << "\n";  // 1

  // a data-dependent trip count: the Collatz steps of n
  auto collatz = sf::function([](auto n) {
    auto [steps, m] = sf::while_loop([](auto, auto k) { return k != 1; },
                                     [](auto s, auto k) { return std::tuple{s + 1, sf::where(k % 2 == 0, k / 2, 3 * k + 1)}; },
                                     0, n);
    return steps;
  });
  std::cout << "collatz(27) = " << collatz(27) << " steps\n";  // 111

  // ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
  // for i in range(len(x)): ta = ta.write(i, x[i] + 1)
  auto plus_one = sf::function([](auto x) {
    auto ta = sf::fori_loop(0, sf::size(x), [&](auto i, auto acc) { return acc.write(i, x[i] + 1); },
                            sf::tensor_array<int>{});
    return ta.stack();
  });
  xt::xtensor_fixed<int, xt::xshape<3>> x = {1, 2, 3};
  std::cout << "plus_one([1, 2, 3]) = " << plus_one(x) << "\n";  // {2, 3, 4}

  // lax.scan: running sums
  auto cumsum = sf::function([](auto xs) {
    return sf::scan([](auto carry, auto v) { return std::tuple{carry + v, carry + v}; }, 0.f, xs);
  });
  xt::xtensor<float, 1> xs = {1, 2, 3, 4};
  auto [total, running] = cumsum(xs);
  std::cout << "scan sums of [1, 2, 3, 4]: total " << total << ", running " << running << "\n";

  std::cout << "\nThe traced graph of conditional_function:\n"
            << conditional_function.get_concrete_function(pos).graph_string();
}
