// sf::onnx::to_model / export_model: what the ONNX graph holds (inputs with symbolic dims,
// variables as named initializers with their values, one node per distinct subexpression, If and
// Loop subgraphs), that ONNX's own checker accepts it, and the errors raised before anything is
// written. Running the models in onnxruntime is io.onnx_runtime (onnx_runtime.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <onnx/checker.h>

#include <staticflow/io/onnx.hpp>

namespace sf = staticflow;

namespace {
std::vector<std::string> op_types(const onnx::GraphProto& g) {
  std::vector<std::string> ops;
  for (const auto& n : g.node()) ops.push_back(n.op_type());
  return ops;
}
std::size_t count(const std::vector<std::string>& ops, const std::string& op) {
  return static_cast<std::size_t>(std::count(ops.begin(), ops.end(), op));
}
template <class F>
std::string export_error_of(F&& f) {
  try {
    f();
  } catch (const sf::onnx::export_error& e) {
    return e.what();
  }
  return "(no sf::onnx::export_error)";
}
}  // namespace

TEST_CASE("onnx: inputs, named initializers, outputs, and ONNX's checker", "[onnx]") {
  sf::variable<float, 3, 2> w{{{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}}};
  sf::variable<float, 2> b{{0.5f, -0.5f}};
  auto f = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<std::int32_t>>([&](auto x, auto k) {
    auto h = sf::matmul(x, w.read()) + b.read() + b.read();  // b read twice: one initializer
    return std::tuple{sf::softmax(h), sf::argmax(h, sf::axes<1>{}), k * 2};
  });
  const onnx::ModelProto m = sf::onnx::to_model(f.get_concrete_function(), {{"dense/w", w}},
                                                {.input_names = {"features"}, .output_names = {"p", "class", "k2"}});
  CHECK(m.ir_version() == 8);
  REQUIRE(m.opset_import_size() == 1);
  CHECK(m.opset_import(0).version() == 17);
  const auto& g = m.graph();

  REQUIRE(g.input_size() == 2);
  CHECK(g.input(0).name() == "features");
  const auto& dims = g.input(0).type().tensor_type().shape().dim();
  REQUIRE(dims.size() == 2);
  CHECK(dims[0].dim_param() == "features_d0");
  CHECK(dims[1].dim_value() == 3);
  CHECK(g.input(0).type().tensor_type().elem_type() == onnx::TensorProto::FLOAT);
  CHECK(g.input(1).name() == "arg1");
  CHECK(g.input(1).type().tensor_type().elem_type() == onnx::TensorProto::INT32);
  CHECK(g.input(1).type().tensor_type().shape().dim_size() == 0);

  REQUIRE(g.initializer_size() == 2);
  CHECK(g.initializer(0).name() == "dense/w");
  CHECK(std::vector<std::int64_t>(g.initializer(0).dims().begin(), g.initializer(0).dims().end()) ==
        std::vector<std::int64_t>{3, 2});
  std::vector<float> values(6);
  REQUIRE(g.initializer(0).raw_data().size() == 6 * sizeof(float));
  std::memcpy(values.data(), g.initializer(0).raw_data().data(), 6 * sizeof(float));
  CHECK(values == std::vector<float>{1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  CHECK(g.initializer(1).name().rfind("read_variable_", 0) == 0);  // not named: the listing's label

  REQUIRE(g.output_size() == 3);
  CHECK(g.output(0).name() == "p");
  CHECK(g.output(1).name() == "class");
  CHECK(g.output(1).type().tensor_type().elem_type() == onnx::TensorProto::INT64);
  CHECK(g.output(2).type().tensor_type().elem_type() == onnx::TensorProto::INT32);

  const auto ops = op_types(g);
  CHECK(count(ops, "MatMul") == 1);
  CHECK(count(ops, "Add") == 2);
  CHECK(count(ops, "Softmax") == 1);
  CHECK(count(ops, "ArgMax") == 1);
  CHECK(count(ops, "Mul") == 1);
  CHECK_NOTHROW(onnx::checker::check_model(m));

  // the values are those at export time: a trained model exports its trained weights
  w.assign(xt::xtensor_fixed<float, xt::xshape<3, 2>>{{7.f, 8.f}, {9.f, 10.f}, {11.f, 12.f}});
  const auto later = sf::onnx::to_model(f.get_concrete_function(), {{"dense/w", w}});
  std::memcpy(values.data(), later.graph().initializer(0).raw_data().data(), 6 * sizeof(float));
  CHECK(values == std::vector<float>{7.f, 8.f, 9.f, 10.f, 11.f, 12.f});
  CHECK(later.graph().input(0).name() == "arg0");
  CHECK(later.graph().output(2).name() == "output_2");
}

TEST_CASE("onnx: identical subexpressions are written once", "[onnx]") {
  auto f = sf::function<sf::spec<float, 4>>([](auto x) { return sf::exp(x * 2.f) + sf::exp(x * 2.f) * sf::exp(x * 2.f); });
  const auto ops = op_types(sf::onnx::to_model(f.get_concrete_function()).graph());
  CHECK(count(ops, "Exp") == 1);
  CHECK(count(ops, "Mul") == 2);
  CHECK(count(ops, "Add") == 1);
}

TEST_CASE("onnx: cond is an If with two subgraphs, while_loop a Loop, and the checker accepts both", "[onnx]") {
  auto f = sf::function<sf::spec<float, sf::dyn>>([](auto x) {
    auto y = sf::cond(sf::reduce_sum(x) > 0.f, [&] { return x * 2.f; }, [&] { return -x; });
    auto [n, z] = sf::while_loop([](auto i, auto) { return i < 3; }, [](auto i, auto v) { return std::tuple{i + 1, v + 1.f}; },
                                 0, y);
    return std::tuple{z, n};
  });
  const onnx::ModelProto m = sf::onnx::to_model(f.get_concrete_function());
  const auto ops = op_types(m.graph());
  REQUIRE(count(ops, "If") == 1);
  REQUIRE(count(ops, "Loop") == 1);
  for (const auto& node : m.graph().node()) {
    if (node.op_type() == "If") {
      REQUIRE(node.attribute_size() == 2);
      CHECK(op_types(node.attribute(0).g()) == std::vector<std::string>{"Constant", "Mul", "Identity"});
      CHECK(op_types(node.attribute(1).g()) == std::vector<std::string>{"Neg", "Identity"});
    }
    if (node.op_type() == "Loop") {
      CHECK(node.input(0).empty());  // no maximum_iterations: no trip count
      CHECK(node.attribute(0).g().input_size() == 4);   // iteration, condition, i, v
      CHECK(node.attribute(0).g().output_size() == 3);  // condition, i, v
    }
  }
  CHECK_NOTHROW(onnx::checker::check_model(m));
}

TEST_CASE("onnx: what has no ONNX form is an export_error, and no file is written", "[onnx]") {
  const std::string path = (std::filesystem::temp_directory_path() / "staticflow_test_onnx_effects.onnx").string();
  std::filesystem::remove(path);
  sf::variable<float, 2> v{{1.f, 2.f}};
  auto step = sf::function<sf::spec<float, 2>>([&](auto x) {
    v.assign_add(x);
    return v.read() * 2.f;
  });
  CHECK(export_error_of([&] { sf::onnx::export_model(step.get_concrete_function(), {{"v", v}}, path); }) ==
        "staticflow: onnx export: the function has effects (variable assignments, prints, for_range loops); an ONNX "
        "graph computes outputs only: export a function that returns what it computes");
  CHECK(!std::filesystem::exists(path));
  CHECK(v.value()(0) == 1.f);

  auto f = sf::function<sf::spec<float, 2>>([](auto x) { return x + 1.f; });
  CHECK(export_error_of([&] { sf::onnx::to_model(f.get_concrete_function(), {}, {.input_names = {"a", "b"}}); }) ==
        "staticflow: onnx export: 2 input names for 1 tensor arguments");
  CHECK(export_error_of([&] { sf::onnx::to_model(f.get_concrete_function(), {}, {.output_names = {"y", "z"}}); }) ==
        "staticflow: onnx export: 2 output names for 1 outputs");
  CHECK(export_error_of([&] { sf::onnx::export_model(f.get_concrete_function(), {}, "/nonexistent-dir/m.onnx"); }) ==
        "staticflow: onnx export: cannot write '/nonexistent-dir/m.onnx'");

  auto grow = sf::function<sf::spec<std::int32_t>>([](auto n) {
    return sf::fori_loop(0, n, [](auto i, auto ta) { return ta.write(i, sf::cast<float>(i)); }, sf::tensor_array<float>{})
        .stack();
  });
  CHECK(export_error_of([&] { sf::onnx::to_model(grow.get_concrete_function()); }) ==
        "staticflow: onnx export: a tensor array with dynamic_size (one that grows) has no ONNX form; give it its size "
        "(tensor_array<T>::with_size(n))");

  auto depthwise = sf::function<sf::spec<float, 1, 4, 4, sf::dyn>, sf::spec<float, 2, 2, sf::dyn, 1>>(
      [](auto x, auto d) { return sf::depthwise_conv2d(x, d); });
  CHECK(export_error_of([&] { sf::onnx::to_model(depthwise.get_concrete_function()); }) ==
        "staticflow: onnx export: depthwise_conv2d with a run-time (or zero) channel count has no ONNX form (Conv's group is static); give the image a static channel count");

  auto upsample = sf::function<sf::spec<float, 1, 4, 4, 6>, sf::spec<float, sf::dyn, 3, 3, 6>>(
      [](auto y, auto k) { return sf::conv2d_transpose(y, k, sf::shape<1, 8, 8, 3>{}, sf::padding::same, sf::strides<2>); });
  CHECK(export_error_of([&] { sf::onnx::to_model(upsample.get_concrete_function()); }) ==
        "staticflow: onnx export: conv2d_transpose (conv2d's image gradient) needs a static image height and width and static filter extents: ConvTranspose's pads are static");

  auto run_time_height_gradient = sf::function<sf::spec<float, 1, sf::dyn, 6, 4>, sf::spec<float, 3, 3, 2, 4>>(
      sf::value_and_grad_fn<1>([](auto x, auto k) { return sf::reduce_sum(sf::conv2d(x, k)); }));
  CHECK(export_error_of([&] { sf::onnx::to_model(run_time_height_gradient.get_concrete_function()); }) ==
        "staticflow: onnx export: conv2d's filter gradient needs static, non-empty image and filter extents (and, with groups, static in_channels and out_channels)");

  auto dyn_channels_gradient = sf::function<sf::spec<float, 1, 6, 6, sf::dyn>, sf::spec<float, 3, 3, sf::dyn, 4>>(
      sf::value_and_grad_fn<1>([](auto x, auto k) { return sf::reduce_sum(sf::conv2d(x, k)); }));
  CHECK(export_error_of([&] { sf::onnx::to_model(dyn_channels_gradient.get_concrete_function()); }) ==
        "staticflow: onnx export: conv2d's gradients need static channel counts (the image's and the filter's in_channels): ONNX's group is static");

  auto dilated_same = sf::function<sf::spec<float, 1, 6, 6, 3>, sf::spec<float, sf::dyn, 3, 3, 4>>(
      [](auto x, auto k) { return sf::conv2d(x, k, sf::padding::same, sf::dilations<2>); });
  CHECK(export_error_of([&] { sf::onnx::to_model(dilated_same.get_concrete_function()); }) ==
        "staticflow: onnx export: a convolution with SAME padding and dilations is written with explicit pads (onnxruntime's Conv takes no dilations with auto_pad SAME): it needs static filter extents, and with strides a static image height and width");

  auto run_time_width_pool_gradient = sf::function<sf::spec<float, 1, 4, sf::dyn, 2>>(
      sf::grad_fn<0>([](auto x) { return sf::reduce_sum(sf::avg_pool2d(x, sf::ksize<2>)); }));
  CHECK(export_error_of([&] { sf::onnx::to_model(run_time_width_pool_gradient.get_concrete_function()); }) ==
        "staticflow: onnx export: avg_pool's gradient is a ConvTranspose with a filter of ones: it needs a static image "
        "height, width and (non-zero) channel count, as ConvTranspose's pads and group are static");

  auto batch_axes = sf::function<sf::spec<float, 2, sf::dyn, 6, 6, 3>, sf::spec<float, 3, 3, 3, 4>>(
      [](auto x, auto k) { return sf::conv2d(x, k); });
  CHECK(export_error_of([&] { sf::onnx::to_model(batch_axes.get_concrete_function()); }) ==
        "staticflow: onnx export: conv2d over more than one batch axis needs a static image shape (ONNX's Conv takes one: the batch axes are reshaped into one and back)");
}
