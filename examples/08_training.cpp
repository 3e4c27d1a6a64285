// Training, the job tf.function exists for: a two-layer network learns to tell two interleaved
// spirals apart (a data set made here), with sf::adam. One sf::function is the whole training
// step: forward pass, gradients from a gradient tape, and the optimizer's updates as effects.
//
// Prints the loss and the accuracy every 250 epochs and writes every epoch's loss to
// training_loss.tsv (make demo turns it into training_loss.png with gnuplot; docs/ shows it).
// Then saves the weights and adam's state to a checkpoint (spirals_ckpt/ckpt-1.npz), zeroes the
// weights, and restores them.
//
// Compile cost: a training step is the largest graph a program usually has (the forward pass,
// four gradients and the optimizer's updates). Built with eager mode compiled out it takes about
// 70 s and 3.9 GB of g++ here; with it, the eager path doubles both. This program never turns
// eager mode on, so it says so (see README "Compile time"; define it before any staticflow header,
// and the same in every translation unit of a program).
#define STATICFLOW_EAGER_MODE 0

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

#include <xtensor/xfixed.hpp>
#include <xtensor/xtensor.hpp>

#include <staticflow/io/checkpoint.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

constexpr std::size_t points_per_class = 200, n = 2 * points_per_class, hidden = 32;

int main(int argc, char** argv) {
  // optional: epochs and learning rate (defaults 3000 and 0.01)
  const int epochs = argc > 1 ? std::atoi(argv[1]) : 3000;
  const float learning_rate = argc > 2 ? float(std::atof(argv[2])) : 0.01f;

  // --- the data: two spirals, x in [-1, 1]^2, label 0 or 1 (one-hot for the loss) ---
  std::mt19937 rng(2026);
  std::normal_distribution<float> noise(0.f, 0.03f);
  xt::xtensor_fixed<float, xt::xshape<n, 2>> x;
  xt::xtensor_fixed<float, xt::xshape<n, 2>> y_one_hot;
  xt::xtensor_fixed<std::int64_t, xt::xshape<n>> labels;
  for (std::size_t i = 0; i < points_per_class; ++i) {
    const float r = 0.1f + 0.9f * float(i) / points_per_class, angle = 3.5f * float(i) / points_per_class * 3.14159265f;
    for (std::size_t c = 0; c < 2; ++c) {
      const std::size_t k = 2 * i + c;
      const float sign = c == 0 ? 1.f : -1.f;
      x(k, 0) = sign * r * std::cos(angle) + noise(rng);
      x(k, 1) = sign * r * std::sin(angle) + noise(rng);
      labels(k) = static_cast<std::int64_t>(c);
      y_one_hot(k, 0) = c == 0 ? 1.f : 0.f;
      y_one_hot(k, 1) = c == 1 ? 1.f : 0.f;
    }
  }

  // --- the model: variables made outside the step, Glorot-uniform weights, zero biases ---
  auto glorot = [&](std::size_t fan_in, std::size_t fan_out, auto& w) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    const float limit = std::sqrt(6.f / float(fan_in + fan_out));
    for (auto& e : w) e = limit * u(rng);
  };
  xt::xtensor_fixed<float, xt::xshape<2, hidden>> w1_init;
  xt::xtensor_fixed<float, xt::xshape<hidden, 2>> w2_init;
  glorot(2, hidden, w1_init);
  glorot(hidden, 2, w2_init);
  sf::variable<float, 2, hidden> w1{w1_init};   // variables are made outside the step
  sf::variable<float, hidden> b1;               // (zeros)
  sf::variable<float, hidden, 2> w2{w2_init};
  sf::variable<float, 2> b2;

  auto logits_of = [&](auto inputs) { return sf::matmul(sf::tanh(sf::matmul(inputs, w1) + b1), w2) + b2; };
  // softmax cross-entropy, averaged over the batch
  auto loss_of = [&](auto inputs, auto targets) {
    return -sf::reduce_mean(sf::reduce_sum(targets * sf::log_softmax(logits_of(inputs)), sf::axes<1>{}));
  };

  sf::adam opt{learning_rate};
  auto train_step = sf::function([&](auto inputs, auto targets) {
    sf::gradient_tape tape;
    auto loss = loss_of(inputs, targets);
    opt.apply_gradients(tape.gradient(loss, w1, b1, w2, b2), w1, b1, w2, b2);
    return loss;  // with the weights before this step, as in TensorFlow
  });
  auto accuracy = sf::function([&](auto inputs, auto truth) {
    return sf::reduce_mean(sf::cast<float>(sf::argmax(logits_of(inputs), sf::axes<1>{}) == truth));
  });

  std::ofstream curve("training_loss.tsv");
  curve << "# epoch\tloss\n";
  float loss = 0.f;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    loss = train_step(x, y_one_hot);
    curve << epoch << '\t' << loss << '\n';
    if (epoch == 1 || epoch % 250 == 0)
      std::cout << "epoch " << epoch << ": loss " << loss << ", accuracy " << accuracy(x, labels) << "\n";
  }
  std::cout << "traced the step " << train_step.tracing_count() << " time(s); adam took " << opt.iterations.value()
            << " steps\n";
  std::cout << "wrote training_loss.tsv\n";

  // --- keep what was learned (tf.train.Checkpoint): save, lose the weights, restore ---
  sf::checkpoint ckpt;
  ckpt.track("w1", w1).track("b1", b1).track("w2", w2).track("b2", b2).track("optimizer", opt);
  const std::string saved = ckpt.save("spirals_ckpt/ckpt");  // an .npz file: np.load reads it
  const float trained = accuracy(x, labels);
  w1.assign(0.f), b1.assign(0.f), w2.assign(0.f), b2.assign(0.f);
  std::cout << "saved " << saved << "; accuracy with the weights zeroed " << accuracy(x, labels);
  ckpt.restore(sf::latest_checkpoint("spirals_ckpt/ckpt")).assert_consumed();
  const float restored = accuracy(x, labels);
  std::cout << ", restored " << restored << (restored == trained ? " (as trained" : " (NOT as trained")
            << ", adam's step count " << opt.iterations.value() << ")\n";
  return trained > 0.95f && restored == trained ? 0 : 1;
}
