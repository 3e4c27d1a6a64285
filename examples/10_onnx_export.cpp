// Handing what 08_training.cpp learned to another runtime: the spirals classifier, restored from
// that example's checkpoint, exported as an ONNX model (the traced graph, the trained weights as
// named initializers, a symbolic batch dimension). onnx_serve.py runs it in onnxruntime, from
// Python, with no staticflow in sight, and gets the same answers.
//
// Needs libonnx-dev / libprotobuf-dev (make deps) and links staticflow::onnx. Run it after
// example_08_training (make demo runs the examples in order), in the same directory.
#define STATICFLOW_EAGER_MODE 0

#include <cstddef>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include <staticflow/io/checkpoint.hpp>
#include <staticflow/io/onnx.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

constexpr std::size_t hidden = 32;  // as in 08_training.cpp

int main() {
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

  const std::string checkpoint = sf::latest_checkpoint("spirals_ckpt/ckpt");
  if (checkpoint.empty()) {
    std::cerr << "no checkpoint in spirals_ckpt/: run example_08_training first, in this directory\n";
    return 1;
  }
  sf::checkpoint ckpt;
  ckpt.track("w1", w1).track("b1", b1).track("w2", w2).track("b2", b2);
  ckpt.restore(checkpoint);

  // --- export: the values the variables hold now become the model's initializers ---
  sf::onnx::export_model(classify, {{"w1", w1}, {"b1", b1}, {"w2", w2}, {"b2", b2}}, "spirals.onnx",
                         {.output_names = {"class", "probabilities"}});
  const onnx::ModelProto model = sf::onnx::to_model(classify, {{"w1", w1}, {"b1", b1}, {"w2", w2}, {"b2", b2}},
                                                    {.output_names = {"class", "probabilities"}});
  std::map<std::string, int> ops;
  for (const auto& node : model.graph().node()) ++ops[node.op_type()];
  std::cout << "wrote spirals.onnx (opset " << sf::onnx::opset_version << "): input "
            << model.graph().input(0).name() << " [" << model.graph().input(0).type().tensor_type().shape().dim(0).dim_param()
            << ", 2], " << model.graph().initializer_size() << " initializers, nodes:";
  for (const auto& [op, n] : ops) std::cout << " " << op << " x" << n;
  std::cout << "\n";

  // --- what staticflow answers, for onnx_serve.py to compare with ---
  const xt::xarray<float> points{{0.3889f, -0.3889f}, {-0.3889f, 0.3889f}};
  const auto [cls, probabilities] = classify(points);
  std::ofstream expected("spirals_expected.txt");
  for (std::size_t i = 0; i < cls.size(); ++i) {
    expected << cls(i) << " " << probabilities(i, 0) << " " << probabilities(i, 1) << "\n";
    std::cout << "staticflow: point " << i << ": class " << cls(i) << " (p " << probabilities(i, cls(i)) << ")\n";
  }
  return 0;
}
