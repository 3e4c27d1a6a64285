// sf::module: named signatures called with named run-time tensors (SavedModel's signatures), the
// saved_model_cli listing, the checks before a call runs, and variables restored from a checkpoint.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <unistd.h>

#include <staticflow/io/module.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
template <class F>
std::string signature_error_of(F&& f) {
  try {
    f();
  } catch (const sf::signature_error& e) {
    return e.what();
  }
  return "(no sf::signature_error)";
}
}  // namespace

TEST_CASE("module: signatures, called with named run-time tensors", "[module]") {
  sf::variable<float, 2> w{{2.f, -1.f}};
  auto score = sf::function<sf::spec<float, sf::dyn, 2>, sf::spec<float>>(
      [&](auto x, auto bias) { return std::tuple{sf::reduce_sum(x * w, sf::axes<1>{}) + bias, sf::argmax(x, sf::axes<1>{})}; },
      sf::arg_names("x", "bias"));
  auto twice = sf::function<sf::spec<std::int32_t, 3>>([](auto v) { return v * 2; });
  sf::module m;
  m.track("w", w);
  m.add_signature("serving_default", score, sf::output_names("score", "argmax")).add_signature("twice", twice);
  CHECK(score.tracing_count() == 1);  // traced when added

  CHECK(m.signature_keys() == std::vector<std::string>{"serving_default", "twice"});
  CHECK(m.signatures() ==
        "signature_def['serving_default']:\n"
        "  The given SavedModel SignatureDef contains the following input(s):\n"
        "    inputs['x'] tensor_info:\n"
        "        dtype: DT_FLOAT\n"
        "        shape: (-1, 2)\n"
        "        name: serving_default_x:0\n"
        "    inputs['bias'] tensor_info:\n"
        "        dtype: DT_FLOAT\n"
        "        shape: ()\n"
        "        name: serving_default_bias:0\n"
        "  The given SavedModel SignatureDef contains the following output(s):\n"
        "    outputs['score'] tensor_info:\n"
        "        dtype: DT_FLOAT\n"
        "        shape: (-1)\n"
        "        name: StatefulPartitionedCall:0\n"
        "    outputs['argmax'] tensor_info:\n"
        "        dtype: DT_INT64\n"
        "        shape: (-1)\n"
        "        name: StatefulPartitionedCall:1\n"
        "  Method name is: tensorflow/serving/predict\n"
        "\n"
        "signature_def['twice']:\n"
        "  The given SavedModel SignatureDef contains the following input(s):\n"
        "    inputs['arg0'] tensor_info:\n"
        "        dtype: DT_INT32\n"
        "        shape: (3)\n"
        "        name: twice_arg0:0\n"
        "  The given SavedModel SignatureDef contains the following output(s):\n"
        "    outputs['output_0'] tensor_info:\n"
        "        dtype: DT_INT32\n"
        "        shape: (3)\n"
        "        name: StatefulPartitionedCall:0\n"
        "  Method name is: tensorflow/serving/predict\n");
  CHECK(m.signature("serving_default").inputs[0].shape == std::vector<std::int64_t>{-1, 2});
  CHECK(m.signature("serving_default").outputs[1].dtype == sf::dtype_id::int64);

  const sf::tensor x = xt::xarray<float>{{1, 2}, {3, 1}, {-1, 5}};
  auto out = m.call("serving_default", {{"x", x}, {"bias", sf::tensor(0.5f)}});
  REQUIRE(out.size() == 2);
  CHECK(out.at("score").dtype() == sf::dtype_id::float32);
  CHECK((out.at("score").to_xarray<float>() == xt::xarray<float>{0.5f, 5.5f, -6.5f}));
  CHECK((out.at("argmax").to_xarray<std::int64_t>() == xt::xarray<std::int64_t>{1, 0, 1}));
  CHECK((m.call("twice", {{"arg0", sf::tensor(xt::xarray<std::int32_t>{1, -2, 3})}}).at("output_0").to_xarray<std::int32_t>() ==
        xt::xarray<std::int32_t>{2, -4, 6}));

  SECTION("batches of 0 and 1 rows are ordinary requests") {
    auto empty = m.call("serving_default", {{"x", sf::tensor::zeros<float>({0, 2})}, {"bias", sf::tensor(1.f)}});
    CHECK(empty.at("score").shape().size() == 1);
    CHECK(empty.at("score").shape()[0] == 0);
    auto one = m.call("serving_default", {{"x", sf::tensor(xt::xarray<float>{{1, 1}})}, {"bias", sf::tensor(0.f)}});
    CHECK((one.at("score").to_xarray<float>() == xt::xarray<float>{1.f}));
  }
  SECTION("requests that do not fit throw sf::signature_error before anything runs") {
    CHECK(signature_error_of([&] { m.call("serving_default", {{"x", x}}); }) ==
          "staticflow: serving_default: the input 'bias' is missing (the signature takes 'x', 'bias')");
    CHECK(signature_error_of([&] { m.call("serving_default", {{"x", x}, {"bias", sf::tensor(0.f)}, {"y", x}}); }) ==
          "staticflow: serving_default: no input is named 'y' (the signature takes 'x', 'bias')");
    CHECK(signature_error_of([&] {
            m.call("serving_default", {{"x", sf::tensor(xt::xarray<double>{{1, 2}})}, {"bias", sf::tensor(0.f)}});
          }) == "staticflow: serving_default: argument 0 (x) has dtype float64, expected float32 (got float64[1,2], the "
                "input signature has float32[None,2])");
    CHECK(signature_error_of([&] {
            m.call("serving_default", {{"x", sf::tensor(xt::xarray<float>{{1, 2, 3}})}, {"bias", sf::tensor(0.f)}});
          }).starts_with("staticflow: serving_default: argument 0 (x) has shape"));
    CHECK(signature_error_of([&] { m.call("predict", {}); }) ==
          "staticflow: module: no signature is named 'predict' (it has 'serving_default', 'twice')");
    CHECK(signature_error_of([&] { m.add_signature("twice", twice); }) ==
          "staticflow: module: a signature named 'twice' exists already");
    CHECK(signature_error_of([&] { m.add_signature("pair", score, sf::output_names("only_one")); }) ==
          "staticflow: module: add_signature('pair'): 1 output names for 2 outputs");
  }
  SECTION("the module's variables come from a checkpoint") {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("staticflow_module_" + std::to_string(::getpid()) + ".npz")).string();
    m.checkpoint().write(path);
    w.assign(xt::xtensor_fixed<float, xt::xshape<2>>{0.f, 0.f});
    CHECK((m.call("serving_default", {{"x", x}, {"bias", sf::tensor(0.f)}}).at("score").to_xarray<float>() ==
          xt::xarray<float>{0.f, 0.f, 0.f}));
    m.checkpoint().restore(path);
    CHECK((m.call("serving_default", {{"x", x}, {"bias", sf::tensor(0.f)}}).at("score").to_xarray<float>() ==
          xt::xarray<float>{0.f, 5.f, -7.f}));
    std::filesystem::remove(path);
  }
}
