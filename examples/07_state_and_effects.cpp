// Seeds 001 and 002, state and effects: tf.Variable updated in a loop (sf::for_range, and the body
// of an sf::while_loop), closures over tensors and variables, tf.print on every call against
// Python's print at trace time, a tf.function calling another, and
// tf.config.run_functions_eagerly for debugging.
#include <iostream>
#include <vector>

#include <xtensor/xio.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

int main() {
  // v = tf.Variable(1); for i in tf.range(x): v.assign_add(i)
  sf::variable<int> v{1};
  auto f = sf::function([&](auto x) { sf::for_range(x, [&](auto i) { v.assign_add(i); }); });
  f(3);
  std::cout << "v after f(3) = " << v.value() << "\n";  // 4

  // a while loop whose body assigns and prints: the effects run on every iteration of every call
  sf::variable<int> total{0};
  auto count_up = sf::function([&](auto n) {
    return sf::while_loop([&](auto k) { return k < n; },
                          [&](auto k) {
                            total.assign_add(k);
                            sf::print(sf::output_stream(std::cout), "iteration", k, "total", total);
                            return k + 1;
                          },
                          0);
  });
  const int counted = count_up(3);
  std::cout << "count_up(3) = " << counted << ", total = " << total.value() << "\n";  // 3, 3

  // a closure over a tensor and a variable: f() = x ** 2 + y
  xt::xtensor_fixed<int, xt::xshape<2>> x = {-2, -3};
  sf::variable<int, 2> y{{3, -2}};
  auto closure = sf::function([&] { return sf::square(sf::capture(x)) + y; });
  std::cout << "x ** 2 + y = " << closure() << "\n";  // {7, 7}

  // tf.print runs on every call; std::cout in the lambda (Python's print) only while tracing
  auto traced_print = sf::function([](auto t) {
    std::cout << "Tracing with " << t << "\n";
    sf::print(sf::output_stream(std::cout), "tf.print:", t);
    return t * 2;
  });
  traced_print(xt::xtensor<int, 1>{1, 2});
  traced_print(xt::xtensor<int, 1>{3, 4});

  // l.append(i + 1) during tracing happens once, not per call
  std::vector<int> l;
  auto appending = sf::function([&](auto t) {
    l.push_back(1);
    return t + 1;
  });
  appending(xt::xtensor<int, 1>{1, 2, 3});
  appending(xt::xtensor<int, 1>{4, 5, 6});
  std::cout << "list length after two calls = " << l.size() << "\n";  // 1

  // nested functions: dense_layer calls add, whose graph is inlined
  auto add = sf::function([](auto a, auto b) { return a + b; });
  auto dense_layer = sf::function([&](auto xs, auto w, auto b) { return add(sf::matmul(xs, w), b); });
  xt::xtensor<float, 2> ones32 = xt::ones<float>({3, 2}), ones22 = xt::ones<float>({2, 2});
  xt::xtensor<float, 1> ones2 = xt::ones<float>({2});
  std::cout << "dense_layer(ones(3,2), ones(2,2), ones(2)) =\n" << dense_layer(ones32, ones22, ones2) << "\n";  // all 3

  // run_functions_eagerly: the lambda runs on every call, and sees values (std::cout shows them)
  {
    sf::run_functions_eagerly_scope eager;
    traced_print(xt::xtensor<int, 1>{5, 6});
  }
  return 0;
}
