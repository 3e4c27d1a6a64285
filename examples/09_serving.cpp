// Serving what 08_training.cpp learned: the spirals classifier restored from the checkpoint that
// example saved, and called as a server calls a SavedModel's signature, with named tensors whose
// dtypes and shapes arrive at run time (sf::tensor): a request that does not fit the input
// signature is refused with sf::signature_error before anything runs.
//
// Run it after example_08_training (make demo runs the examples in order), in the same directory.
#define STATICFLOW_EAGER_MODE 0

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>

#include <staticflow/io/module.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

constexpr std::size_t hidden = 32;  // as in 08_training.cpp

int main() {
  // --- the model's variables (their values come from the checkpoint) and its serving function ---
  sf::variable<float, 2, hidden> w1;
  sf::variable<float, hidden> b1;
  sf::variable<float, hidden, 2> w2;
  sf::variable<float, 2> b2;
  auto classify = sf::function<sf::spec<float, sf::dyn, 2>>(
      [&](auto points) {
        auto logits = sf::matmul(sf::tanh(sf::matmul(points, w1) + b1), w2) + b2;
        return std::tuple{sf::argmax(logits, sf::axes<1>{}), sf::softmax(logits, sf::axes<1>{})};
      },
      sf::arg_names("points"));

  sf::module model;
  model.track("w1", w1).track("b1", b1).track("w2", w2).track("b2", b2);
  model.add_signature("serving_default", classify, sf::output_names("class", "probabilities"));

  const std::string checkpoint = sf::latest_checkpoint("spirals_ckpt/ckpt");
  if (checkpoint.empty()) {
    std::cerr << "no spirals_ckpt/ckpt-N.npz here: run example_08_training first\n";
    return 1;
  }
  const auto status = model.checkpoint().restore(checkpoint);  // the optimizer's state is not needed
  std::cout << "restored " << checkpoint << " (" << status.unused.size() << " optimizer values left unused)\n\n";
  std::cout << model.signatures() << "\n";

  // --- requests, as a server gets them: names and run-time tensors ---
  auto serve = [&](const std::string& what, const sf::tensor& points) {
    try {
      const auto response = model.call("serving_default", {{"points", points}});
      const auto classes = response.at("class").to_xarray<std::int64_t>();
      const auto probabilities = response.at("probabilities").to_xarray<float>();
      std::cout << what << ": " << classes.size() << " answer(s):";
      for (std::size_t i = 0; i < classes.size(); ++i)
        std::cout << " class " << classes(i) << " (p " << probabilities(i, static_cast<std::size_t>(classes(i))) << ")";
      std::cout << "\n";
    } catch (const sf::signature_error& e) {
      std::cout << what << ": refused: " << e.what() << "\n";
    }
  };
  // the 100th point of each spiral in 08_training.cpp (radius 0.55, angle 1.75 pi), noise left out
  serve("two points", xt::xarray<float>{{0.3889f, -0.3889f}, {-0.3889f, 0.3889f}});
  serve("an empty batch", sf::tensor::zeros<float>({0, 2}));
  serve("float64 points", xt::xarray<double>{{0.1, 0.2}});
  serve("three coordinates", xt::xarray<float>{{0.1f, 0.2f, 0.3f}});
  return 0;
}
