// onnxruntime runs what sf::onnx::export_model writes, and gets staticflow's results: this program
// exports functions covering every lowering of io/onnx.hpp (elementwise ops on floats and
// integers, reductions, matmul, conv2d, depthwise_conv2d and conv2d_transpose with their options, pooling, cumsum, cumprod, range / linspace / eye, gather, boolean_mask / where, unique, moments and layer normalization,
// reverse / slices / tile / pad / roll / repeat (also by a tensor of counts) / split, argsort / sort / top_k / take_along_axis, gather_nd / scatters, segment sums and their gradient, diag_part / set_diag / diag / trace, shape ops, softmax, x[i], cond / switch_case, while_loop /
// fori_loop / scan, value_and_grads through convolutions, windows and poolings, max_pool's jvp) with their inputs and staticflow's outputs as .npy files, then runs
// onnx_runtime.py, which runs each model in onnxruntime and compares.
// Usage: onnx_runtime PYTHON SCRIPT DIR. Exits 77 (skipped) without onnxruntime.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <sys/wait.h>
#include <tuple>

#include <xtensor/xarray.hpp>
#include <xtensor/xnpy.hpp>
#include <xtensor/xrandom.hpp>

#include <staticflow/io/onnx.hpp>

namespace sf = staticflow;

namespace {
std::string dir;

template <class V>
void save(const std::string& path, const V& v) {
  if constexpr (std::is_arithmetic_v<V>) xt::dump_npy(path, xt::xarray<V>(v));
  else xt::dump_npy(path, xt::xarray<typename V::value_type>(v));
}

/// Exports f's one concrete function as <name>.onnx; `run(set, inputs...)` saves an input set and
/// staticflow's results for it.
template <class F>
auto exported(const std::string& name, F& f, const std::vector<sf::onnx::named_variable>& vars = {}) {
  sf::onnx::export_model(f.get_concrete_function(), vars, dir + "/" + name + ".onnx");
  return [&f, name](const std::string& set, const auto&... inputs) {
    const std::string prefix = dir + "/" + name + "." + set;
    std::size_t k = 0;
    ((save(prefix + ".in" + std::to_string(k++) + ".npy", inputs)), ...);
    const auto results = f(inputs...);
    k = 0;
    if constexpr (requires { std::tuple_size<std::remove_cvref_t<decltype(results)>>::value; })
      std::apply([&](const auto&... r) { ((save(prefix + ".out" + std::to_string(k++) + ".npy", r)), ...); }, results);
    else
      save(prefix + ".out0.npy", results);
  };
}

template <class T>
xt::xarray<T> nonzero(std::vector<std::size_t> shape, std::mt19937& rng) {  // divisors: |x| in [0.5, 4]
  std::uniform_real_distribution<double> mag(0.5, 4.0);
  xt::xarray<T> a = xt::xarray<T>::from_shape(shape);
  for (auto& x : a) x = static_cast<T>((rng() & 1 ? 1 : -1) * mag(rng));
  return a;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: onnx_runtime PYTHON SCRIPT DIR\n";
    return 2;
  }
  dir = argv[3];
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::mt19937 rng(7);
  xt::random::seed(7);

  // A classifier whose weights are variables (initializers named as given), dyn batch.
  sf::variable<float, 4, 8> w1{xt::eval(xt::random::randn<float>({4, 8}))};
  sf::variable<float, 8> b1{xt::eval(xt::random::randn<float>({8}))};
  sf::variable<float, 8, 3> w2{xt::eval(xt::random::randn<float>({8, 3}))};
  auto mlp = sf::function<sf::spec<float, sf::dyn, 4>>([&](auto x) {
    auto logits = sf::matmul(sf::relu(sf::matmul(x, w1.read()) + b1.read()), w2.read());
    return std::tuple{sf::softmax(logits), sf::argmax(logits, sf::axes<1>{}), sf::log_softmax(logits, sf::axes<0>{})};
  });
  auto run_mlp = exported("mlp", mlp, {{"dense/w", w1}, {"dense/b", b1}, {"out/w", w2}});
  run_mlp("batch5", xt::xarray<float>(xt::random::randn<float>({5, 4})));
  run_mlp("batch1", xt::xarray<float>(xt::random::randn<float>({1, 4})));

  auto floats = sf::function<sf::spec<float, sf::dyn>, sf::spec<float, sf::dyn>>([](auto a, auto b) {
    return std::tuple{-a, sf::abs(a), sf::square(a), sf::sqrt(sf::abs(a)), sf::exp(a), sf::log(sf::abs(a) + 1.f),
                      sf::tanh(a), sf::sigmoid(a), sf::relu(a), sf::pow(sf::abs(a), b), sf::maximum(a, b),
                      sf::minimum(a, b), sf::where(a > b, a, b * 2.f), sf::floordiv(a, b), sf::floormod(a, b),
                      a % b, a / b - 1.5f, sf::cast<std::int32_t>(a * 3.f), sf::cast<double>(a) * 0.25};
  });
  auto run_floats = exported("elementwise_float", floats);
  run_floats("n13", nonzero<float>({13}, rng), nonzero<float>({13}, rng));

  // the math functions and activations (graph/math.hpp, graph/activations.hpp, graph/creation.hpp)
  auto math = sf::function<sf::spec<float, sf::dyn>, sf::spec<float, sf::dyn>>([](auto a, auto b) {
    const auto u = sf::tanh(a) * 0.9f;  // in (-1, 1)
    return std::tuple{sf::sin(a), sf::cos(a), sf::tan(a * 0.3f), sf::asin(u), sf::acos(u), sf::atan(a), sf::sinh(a),
                      sf::cosh(a), sf::asinh(a), sf::acosh(sf::abs(a) + 1.f), sf::atanh(u), sf::floor(a * 2.f),
                      sf::ceil(a * 2.f), sf::round(a * 2.f), sf::sign(a), sf::reciprocal(a), sf::rsqrt(sf::abs(a)),
                      sf::log1p(sf::abs(a)), sf::expm1(a), sf::log2(sf::abs(a)), sf::exp2(a), sf::erf(a), sf::erfc(a),
                      sf::softplus(a * 30.f), sf::is_nan(sf::log(a)), sf::is_inf(a / (b - b)), sf::is_finite(sf::log(a)),
                      sf::atan2(a, b), sf::logical_xor(a > 0, b > 0), sf::elu(a), sf::selu(a), sf::gelu(a),
                      sf::gelu(a, sf::tanh_approximation), sf::leaky_relu(a), sf::relu6(a * 3.f), sf::silu(a),
                      sf::hard_sigmoid(a * 3.f), sf::softsign(a), sf::clip_by_value(a, -0.5f, 0.5f),
                      sf::squared_difference(a, b), sf::zeros_like(a) + sf::full_like(b, 2) * sf::ones_like(a)};
  });
  auto run_math = exported("math", math);
  run_math("n29", nonzero<float>({29}, rng), nonzero<float>({29}, rng));
  auto int_math = sf::function<sf::spec<std::int32_t, sf::dyn>>([](auto a) {
    return std::tuple{sf::floor(a), sf::round(a), sf::sign(a), sf::reciprocal(a)};
  });
  auto run_int_math = exported("math_int", int_math);
  run_int_math("n7", xt::xarray<std::int32_t>{-7, -1, 1, 2, 3, 5, 9});

  // conv2d (graph/conv.hpp): NHWC x HWIO around ONNX's NCHW Conv, VALID and SAME (auto_pad
  // SAME_UPPER), strides; run-time image extents
  auto conv = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 3>, sf::spec<float, 3, 2, 3, 4>>([](auto x, auto f) {
    return std::tuple{sf::conv2d(x, f), sf::relu(sf::conv2d(x, f, sf::padding::same, sf::strides<2>)),
                      sf::conv2d(x, f, sf::padding::same, sf::strides<3, 2>)};
  });
  auto run_conv = exported("conv", conv);
  run_conv("image2x9x8", xt::xarray<float>(xt::random::randn<float>({2, 9, 8, 3})),
           xt::xarray<float>(xt::random::randn<float>({3, 2, 3, 4})));

  // the convolutions' options (graph/conv_options.hpp): dilations, explicit pads, groups (a filter
  // of 2 in_channels on 4 channels), depthwise_conv2d as Conv with group = channels
  auto conv_options = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 4>, sf::spec<float, 3, 2, 2, 6>,
                                   sf::spec<float, 2, 2, 4, 2>>([](auto x, auto f, auto d) {
    return std::tuple{sf::conv2d(x, f, sf::dilations<2>, sf::padding::same),
                      sf::conv2d(x, f, sf::padding::explicit_<1, 0, 2, 1>, sf::strides<2>, sf::dilations<1, 2>),
                      sf::depthwise_conv2d(x, d, sf::dilations<2, 1>),
                      sf::depthwise_conv2d(x, d, sf::padding::same, sf::strides<2>)};
  });
  auto run_conv_options = exported("conv_options", conv_options);
  run_conv_options("image2x9x8", xt::xarray<float>(xt::random::randn<float>({2, 9, 8, 4})),
                   xt::xarray<float>(xt::random::randn<float>({3, 2, 2, 6})), xt::xarray<float>(xt::random::randn<float>({2, 2, 4, 2})));

  // conv3d as a Conv of three spatial axes: SAME strided, explicit padding with dilations, groups
  // (2 in_channels on 4 channels); conv2d over two batch axes (a Reshape to one and back)
  auto conv3d = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, sf::dyn, 4>, sf::spec<float, 2, 3, 2, 2, 6>,
                             sf::spec<float, 2, 3, 5, 6, 4>, sf::spec<float, 3, 3, 4, 5>>([](auto x, auto f, auto b, auto k) {
    return std::tuple{sf::conv3d(x, f, sf::padding::same, sf::strides<2, 1, 2>),
                      sf::conv3d(x, f, sf::padding::explicit_<1, 0, 0, 2, 1, 1>, sf::dilations<2, 1, 2>),
                      sf::conv3d(x, f, sf::padding::same, sf::dilations<1, 2, 1>), sf::conv2d(b, k, sf::padding::same)};
  });
  auto run_conv3d = exported("conv3d", conv3d);
  run_conv3d("volume2x5x7x6", xt::xarray<float>(xt::random::randn<float>({2, 5, 7, 6, 4})),
             xt::xarray<float>(xt::random::randn<float>({2, 3, 2, 2, 6})), xt::xarray<float>(xt::random::randn<float>({2, 3, 5, 6, 4})),
             xt::xarray<float>(xt::random::randn<float>({3, 3, 4, 5})));

  // conv2d_transpose (conv2d's image gradient) as ConvTranspose: SAME stride 2, VALID stride 2
  // with and without a remainder (output_padding), and explicit padding with dilations
  auto conv_transpose = sf::function<sf::spec<float, 1, 4, 4, 6>, sf::spec<float, 3, 3, 3, 6>, sf::spec<float, 1, 2, 5, 6>>(
      [](auto y, auto f, auto z) {
        return std::tuple{sf::conv2d_transpose(y, f, sf::shape<1, 8, 8, 3>{}, sf::padding::same, sf::strides<2>),
                          sf::conv2d_transpose(y, f, sf::shape<1, 9, 9, 3>{}, sf::strides<2>),
                          sf::conv2d_transpose(y, f, sf::shape<1, 10, 10, 3>{}, sf::strides<2>),
                          sf::conv2d_transpose(z, f, sf::shape<1, 5, 6, 3>{}, sf::padding::explicit_<1, 0, 2, 1>, sf::dilations<2>)};
      });
  auto run_conv_transpose = exported("conv_transpose", conv_transpose);
  run_conv_transpose("y1x4x4", xt::xarray<float>(xt::random::randn<float>({1, 4, 4, 6})),
                     xt::xarray<float>(xt::random::randn<float>({3, 3, 3, 6})), xt::xarray<float>(xt::random::randn<float>({1, 2, 5, 6})));

  // max_pool / avg_pool (graph/pool.hpp): 1-D and 2-D around ONNX's MaxPool / AveragePool,
  // VALID and SAME (SAME's padding not counted in the mean), strides; run-time extents
  auto pool = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 3>, sf::spec<float, sf::dyn, sf::dyn, 2>>(
      [](auto x, auto s) {
        return std::tuple{sf::max_pool2d(x, sf::ksize<2>), sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same),
                          sf::avg_pool2d(x, sf::ksize<3, 2>, sf::strides<1, 2>, sf::padding::same),
                          sf::avg_pool2d(x, sf::ksize<2>, sf::strides<1>), sf::max_pool1d(s, sf::ksize<3>, sf::padding::same),
                          sf::avg_pool1d(s, sf::ksize<2>, sf::strides<1>, sf::padding::same)};
      });
  auto run_pool = exported("pool", pool);
  // cumsum: ONNX's CumSum with its exclusive / reverse attributes, float and int
  auto cumulative = sf::function<sf::spec<float, sf::dyn, 5>, sf::spec<std::int32_t, sf::dyn>>([](auto x, auto k) {
    return std::tuple{sf::cumsum(x), sf::cumsum(x, sf::axes<1>{}, sf::exclusive), sf::cumsum(x, -1, sf::reversed),
                      sf::cumsum(x, sf::axes<0>{}, sf::exclusive, sf::reversed), sf::cumsum(k, sf::axes<0>{}, sf::reversed)};
  });
  // cumprod: ONNX has none; a mask of the positions each output multiplies, Where and ReduceProd
  auto products = sf::function<sf::spec<float, sf::dyn, 4>, sf::spec<std::int32_t, sf::dyn>>([](auto x, auto k) {
    return std::tuple{sf::cumprod(x), sf::cumprod(x, sf::axes<0>{}, sf::exclusive), sf::cumprod(x, -1, sf::reversed),
                      sf::cumprod(x, sf::axes<0>{}, sf::exclusive, sf::reversed), sf::cumprod(k, sf::axes<0>{}, sf::reversed)};
  });
  exported("cumprod", products)("x3x4", xt::xarray<float>(xt::random::randn<float>({3, 4})), xt::xarray<std::int32_t>{2, -3, 1, 4, -1});
  exported("cumsum", cumulative)("x3x5", xt::xarray<float>(xt::random::randn<float>({3, 5})),
                                 xt::xarray<std::int32_t>{4, -1, 7, 2});
  // plain int axes (numbers the trace keeps): ReduceSum / ReduceMax along the traced axis, and
  // Unsqueeze / Squeeze at it
  auto int_axes = sf::function<sf::spec<float, sf::dyn, 4>>([](auto x) {
    return std::tuple{sf::reduce_sum(x, 1), sf::reduce_max(x, -2, sf::keepdims), sf::expand_dims(x, 1),
                      sf::squeeze(sf::expand_dims(x * 2.f, -1), 2)};
  });
  exported("int_axes", int_axes)("x3x4", xt::xarray<float>(xt::random::randn<float>({3, 4})));
  // range / linspace / eye: Constants of the values known at export, broadcast against the inputs
  auto created = sf::function<sf::spec<float, sf::dyn, 4>, sf::spec<std::int32_t, sf::dyn>>([](auto x, auto k) {
    using namespace sf::literals;
    return std::tuple{x * sf::range<float>(4_c), sf::linspace(-1.f, 1.f, 4) + x, sf::eye(4_c) * sf::reduce_sum(x),
                      k + sf::range(3, 0, -1)};
  });
  exported("creation", created)("x2x4", xt::xarray<float>(xt::random::randn<float>({2, 4})), xt::xarray<std::int32_t>{5});
  // gather: ONNX's Gather along axis 0 and 1, indices of rank 1 and 2
  auto gathers = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<std::int64_t, sf::dyn, 2>>([](auto t, auto ids) {
    return std::tuple{sf::gather(t, ids), sf::gather(t, ids, sf::axes<1>{}) * 2.f};
  });
  exported("gather", gathers)("t5x3", xt::xarray<float>(xt::random::randn<float>({5, 3})),
                              xt::xarray<std::int64_t>{{2, 0}, {1, 2}, {0, 0}});
  // boolean_mask: Compress (a mask of rank 2 merges the masked axes first); where(condition):
  // NonZero transposed; the kept values feed a reduction
  auto masks = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<bool, sf::dyn>>([](auto t, auto keep) {
    auto positive = sf::boolean_mask(t, t > 0.f);
    return std::tuple{sf::boolean_mask(t, keep), sf::boolean_mask(t * 2.f, keep, sf::axes<1>{}), positive,
                      sf::reduce_sum(positive), sf::where(t > 0.5f)};
  });
  exported("masks", masks)("t3x3", xt::xarray<float>(xt::random::randn<float>({3, 3})), xt::xarray<bool>{true, false, true});
  // unique: ONNX's Unique (sorted = 0) and ScatterElements for the codes, Compress for y
  auto uniques = sf::function<sf::spec<std::int32_t, sf::dyn>, sf::spec<float, sf::dyn>, sf::spec<double, 5>, sf::spec<bool, 4>>(
      [](auto k, auto v, auto w, auto b) {
        return std::tuple_cat(sf::unique(k), sf::unique<std::int64_t>(v), sf::unique(w), sf::unique(b));
      });
  exported("unique", uniques)("k9v7", xt::xarray<std::int32_t>{4, -1, 4, 4, 7, -1, 0, 7, 2},
                              xt::xarray<float>{0.5f, 2.f, 0.5f, -3.f, 2.f, -1.f, 0.f}, xt::xarray<double>{1., 1., 3., 1., 3.},
                              xt::xarray<bool>{false, false, true, false});
  // moments, norms and layer normalization: composites exported as their parts
  auto statistics = sf::function<sf::spec<float, sf::dyn, 4>, sf::spec<float, 4>, sf::spec<float, 4>>([](auto x, auto g, auto b) {
    const auto [mean, variance] = sf::moments(x, sf::axes<0>{});
    return std::tuple{mean, variance, sf::layer_normalization(x, g, b), sf::norm<sf::norm_order::one>(x, sf::axes<0, 1>{}),
                      sf::reduce_std(x, sf::axes<1>{})};
  });
  exported("statistics", statistics)("x3x4", xt::xarray<float>(xt::random::randn<float>({3, 4})),
                                     xt::xarray<float>(xt::random::randn<float>({4})), xt::xarray<float>(xt::random::randn<float>({4})));
  // reverse, strided slices, tile, pad, roll, repeat, split: Slice, Tile, Pad (SYMMETRIC: reversed Slices, Concat), Concat, Reshape
  auto moved = sf::function<sf::spec<float, sf::dyn, 4>>([](auto x) {
    const auto halves = sf::split<2>(x, sf::axes<1>{});
    return std::tuple{sf::reverse(x, sf::axes<0, 1>{}), x(sf::span(sf::none, sf::none, -2), sf::span(1, -1)), sf::tile(x, {2, 1}),
                      sf::pad(x, {{1, 0}, {2, 1}}, 0.5f), sf::pad(x, {{1, 1}, {0, 2}}, sf::pad_mode::reflect),
                      sf::roll(x, {-1, 5}, sf::axes<0, 1>{}), sf::repeat(x, 3, sf::axes<0>{}), halves[1] - halves[0],
                      std::get<1>(sf::split(x, sf::sizes<1, -1, 2>{}, sf::axes<1>{})),
                      std::get<2>(sf::split(x, sf::sizes<1, -1, 2>{}, sf::axes<1>{})), std::get<0>(sf::split(x, sf::sizes<2, -1>{})),
                      std::get<0>(sf::split(x, sf::sizes<-1, 1>{}, sf::axes<1>{})), std::get<1>(sf::split(x, sf::sizes<-1, 1>{}, sf::axes<1>{})),
                      sf::pad(x, {{2, 3}, {0, 4}}, sf::pad_mode::symmetric), sf::pad(x, sf::paddings<0, 0, 1, 0>{}, sf::pad_mode::symmetric)};
  });
  exported("data_movement", moved)("x3x4", xt::xarray<float>(xt::random::randn<float>({3, 4})));
  // repeat by a tensor of counts: CumSum of the counts, each position's row counted, Gather
  auto repeated = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int64_t>>(
      [](auto x, auto counts, auto each) {
        return std::tuple{sf::repeat(x, counts, sf::axes<0>{}), sf::repeat(x, each, sf::axes<1>{}), sf::repeat(x, each)};
      });
  exported("repeat_counts", repeated)("x4x3", xt::xarray<float>(xt::random::randn<float>({4, 3})), xt::xarray<std::int32_t>{2, 0, 1, 3},
                                      xt::xarray<std::int64_t>(2));
  // argsort, sort, top_k, take_along_axis: TopK (ties: the lower index first, as staticflow) and GatherElements
  auto sorted = sf::function<sf::spec<float, sf::dyn, 5>, sf::spec<std::int64_t, sf::dyn, 2>>([](auto x, auto p) {
    const auto [values, indices] = sf::top_k(x, 3);
    return std::tuple{sf::argsort(x), sf::sort(x, sf::axes<0>{}, sf::descending), values, indices,
                      sf::take_along_axis(x, p, sf::axes<1>{})};
  });
  exported("sorting", sorted)("x3x5", xt::xarray<float>{{0.5f, -1.f, 2.f, 0.5f, 3.f}, {4.f, 4.f, -2.f, 1.f, 0.f}, {1.f, 2.f, 3.f, 4.f, 5.f}},
                              xt::xarray<std::int64_t>{{4, 0}, {1, 1}, {2, 3}});
  // gather_nd and the scatters: GatherND and ScatterND (reduction none / add; sub adds the negated updates)
  auto scatters = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<std::int32_t, sf::dyn, 2>, sf::spec<std::int64_t, sf::dyn, 1>,
                               sf::spec<float, sf::dyn, 3>>([](auto x, auto cells, auto rows, auto u) {
    return std::tuple{sf::gather_nd(x, cells), sf::gather_nd(x, rows), sf::tensor_scatter_nd_update(x, rows, u),
                      sf::tensor_scatter_nd_add(x, rows, u * 3.f), sf::tensor_scatter_nd_sub(x, cells, sf::gather_nd(x, cells) * 2.f),
                      sf::scatter_nd(cells, sf::gather_nd(x, cells), sf::shape<4, 3>{})};
  });
  exported("scatter", scatters)("x4x3", xt::xarray<float>(xt::random::randn<float>({4, 3})),
                                xt::xarray<std::int32_t>{{3, 2}, {0, 0}, {1, 2}, {3, 2}}, xt::xarray<std::int64_t>(xt::xtensor<std::int64_t, 2>{{2}, {0}}),
                                xt::xarray<float>(xt::random::randn<float>({2, 3})));
  // segment sums: ScatterND adding data into zeros at the ids (unsorted_segment_sum's negative ids
  // dropped; segment_sum without num_segments counts ids[-1] + 1 rows), ids of rank 1 and 2
  auto segments = sf::function<sf::spec<float, sf::dyn, 3>, sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int64_t, sf::dyn>,
                               sf::spec<float, 2, 3, 2>, sf::spec<std::int64_t, 2, 3>>([](auto x, auto ids, auto sorted_ids, auto cube, auto grid) {
    return std::tuple{sf::unsorted_segment_sum(x, ids, 4), sf::segment_sum(x, sorted_ids, 5), sf::segment_sum(x, sorted_ids),
                      sf::unsorted_segment_sum(cube, grid, sf::static_value<3>{}),
                      sf::unsorted_segment_sum(sf::cast<std::int32_t>(x * 4.f), ids, 4)};
  });
  exported("segment", segments)("x6x3", xt::xarray<float>(xt::random::randn<float>({6, 3})),
                                xt::xarray<std::int32_t>{3, -1, 0, 3, 1, -2}, xt::xarray<std::int64_t>{0, 0, 1, 3, 3, 3},
                                xt::xarray<float>(xt::random::randn<float>({2, 3, 2})), xt::xarray<std::int64_t>{{2, 0, -1}, {2, 2, 1}});
  // ... and their gradients: Gather of the adjoint's rows at the ids (zeros at a negative id)
  auto segment_gradient = sf::function<sf::spec<float, sf::dyn, 2>, sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int64_t, sf::dyn>>(
      sf::value_and_grad_fn<0>([](auto x, auto ids, auto sorted_ids) {
        return sf::reduce_sum(sf::square(sf::unsorted_segment_sum(x, ids, 3))) +
               sf::reduce_sum(sf::tanh(sf::segment_sum(x, sorted_ids)));
      }));
  exported("segment_gradient", segment_gradient)("x5x2", xt::xarray<float>(xt::random::randn<float>({5, 2})),
                                                  xt::xarray<std::int32_t>{2, -1, 0, 2, 1}, xt::xarray<std::int64_t>{0, 1, 1, 3, 3});
  // the diagonal ops: a mask of row == column built from the extents, Where, ReduceSum, Pad
  auto diagonals = sf::function<sf::spec<float, sf::dyn, 3, 4>, sf::spec<float, 4, 3>, sf::spec<std::int32_t, sf::dyn, sf::dyn>,
                                sf::spec<bool, 2, 2>>([](auto wide, auto tall, auto square, auto flags) {
    return std::tuple{sf::linalg::diag_part(wide), sf::linalg::diag_part(tall), sf::linalg::trace(square),
                      sf::linalg::set_diag(wide, sf::linalg::diag_part(wide) * -2.f), sf::linalg::set_diag(tall, sf::linalg::diag_part(tall) + 1.f),
                      sf::linalg::diag(sf::reduce_sum(wide, sf::axes<-1>{})), sf::linalg::set_diag(square, sf::linalg::diag_part(square) * 3),
                      sf::linalg::diag_part(flags), sf::linalg::set_diag(flags, !sf::linalg::diag_part(flags)),
                      sf::einsum<"ii->i">(square), sf::einsum<"ii">(square)};
  });
  exported("diagonal", diagonals)("b2", xt::xarray<float>(xt::random::randn<float>({2, 3, 4})), xt::xarray<float>(xt::random::randn<float>({4, 3})),
                                  xt::xarray<std::int32_t>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, xt::xarray<bool>{{true, false}, {true, true}});
  run_pool("image2x7x8", xt::xarray<float>(xt::random::randn<float>({2, 7, 8, 3})),
           xt::xarray<float>(xt::random::randn<float>({3, 10, 2})));

  auto ints = sf::function<sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int32_t, sf::dyn>>([](auto a, auto b) {
    return std::tuple{a + b, a - b, a * b, a / b, a % b, sf::floordiv(a, b), sf::floormod(a, b), sf::relu(a),
                      sf::abs(a), sf::maximum(a, b), a == b, a != b, sf::logical_and(a > 0, b < 0),
                      sf::logical_or(a >= 2, !(a <= b)), sf::cast<float>(a) * 0.5f, a + 2, sf::pow(a, 2)};
  });
  auto run_ints = exported("elementwise_int", ints);
  run_ints("n17", xt::xarray<std::int32_t>{-7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 9, 11},
           xt::xarray<std::int32_t>{2, -3, 4, -2, 3, 5, -5, 7, 1, -1, 3, -4, 2, 6, -3, -9, 4});

  auto reductions = sf::function<sf::spec<float, sf::dyn, 4>>([](auto x) {
    return std::tuple{sf::reduce_sum(x), sf::reduce_sum(x, sf::axes<1>{}, sf::keepdims), sf::reduce_mean(x, sf::axes<0>{}),
                      sf::reduce_max(x, sf::axes<1>{}), sf::reduce_min(x, sf::axes<0, 1>{}),
                      sf::reduce_prod(x, sf::axes<1>{}), sf::reduce_any(x > 1.f, sf::axes<1>{}),
                      sf::reduce_all(x > -1.f, sf::axes<0>{}), sf::argmin(x, sf::axes<0>{}),
                      sf::reduce_logsumexp(x, sf::axes<1>{}), sf::l2_normalize(x, sf::axes<1>{})};
  });
  auto run_reductions = exported("reductions", reductions);
  run_reductions("rows6", xt::xarray<float>(xt::random::randn<float>({6, 4})));

  auto shapes = sf::function<sf::spec<float, sf::dyn, 3, 4>, sf::spec<std::int32_t, sf::dyn>, sf::spec<std::int32_t>>(
      [](auto x, auto labels, auto i) {
        return std::tuple{sf::transpose(x, sf::axes<0, 2, 1>{}), sf::reshape<sf::shape<sf::dyn, 12>>(x),
                          sf::expand_dims(x, sf::axes<1>{}), sf::squeeze(sf::expand_dims(x, sf::axes<-1>{}), sf::axes<3>{}),
                          sf::slice(x, sf::axes<2>{}, 1, 2), sf::concat<1>(x, x * 2.f),
                          sf::broadcast_to<sf::shape<2, 3, 4>>(sf::reduce_sum(x, sf::axes<0>{})),
                          sf::one_hot<5>(labels), x[i], sf::shape_of(x), sf::size(labels), sf::dim<0>(x)};
      });
  auto run_shapes = exported("shape_ops", shapes);
  run_shapes("a", xt::xarray<float>(xt::random::randn<float>({2, 3, 4})), xt::xarray<std::int32_t>{0, 4, 2, 7, -1},
             std::int32_t{1});

  auto branches = sf::function<sf::spec<float, sf::dyn>, sf::spec<std::int32_t>>([](auto x, auto k) {
    auto c = sf::cond(sf::reduce_sum(x) > 0.f, [&] { return std::tuple{x * 2.f, sf::reduce_max(x)}; },
                      [&] { return std::tuple{-x, sf::reduce_min(x) + 1.f}; });
    auto s = sf::switch_case(k, [&] { return x + 1.f; }, [&] { return sf::exp(x); }, [&] { return x * x; });
    return std::tuple{std::get<0>(c), std::get<1>(c), s};
  });
  auto run_branches = exported("cond", branches);
  run_branches("positive_k0", xt::xarray<float>{1.f, 2.f, -0.5f}, std::int32_t{0});
  run_branches("negative_k1", xt::xarray<float>{-1.f, 2.f, -3.5f, 0.25f}, std::int32_t{1});
  run_branches("positive_k7", xt::xarray<float>{4.f}, std::int32_t{7});

  auto loops = sf::function<sf::spec<float, sf::dyn>, sf::spec<std::int32_t>>([](auto x, auto n) {
    auto [steps, halved] = sf::while_loop([](auto, auto v) { return sf::reduce_max(sf::abs(v)) > 1.f; },
                                          [](auto s, auto v) { return std::tuple{s + 1, v * 0.5f}; }, 0, x);
    auto powered = sf::fori_loop(0, n, [](auto i, auto v) { return v * 2.f + sf::cast<float>(i); }, x);
    auto [total, running] = sf::scan([](auto c, auto e) { return std::tuple{c + e, c * e}; }, 0.0f, x);
    return std::tuple{steps, halved, powered, total, running};
  });
  auto run_loops = exported("loops", loops);
  run_loops("n3", xt::xarray<float>{3.f, -9.f, 0.5f}, std::int32_t{3});
  run_loops("n0", xt::xarray<float>{0.25f, 0.5f}, std::int32_t{0});

  // A gradient function is a graph like any other: a value_and_grad exports too (the backward
  // pass's broadcasts, reductions and transposed matmuls included).
  auto gradient = sf::function<sf::spec<float, 3, 2>, sf::spec<float, 2>, sf::spec<float, sf::dyn, 3>,
                               sf::spec<float, sf::dyn, 2>>(sf::value_and_grad_fn<0, 1>([](auto w, auto b, auto x, auto y) {
    return sf::reduce_mean(sf::square(sf::tanh(sf::matmul(x, w) + b) - y));
  }));
  auto run_gradient = exported("value_and_grad", gradient);
  run_gradient("batch7", xt::xarray<float>(xt::random::randn<float>({3, 2})), xt::xarray<float>{0.5f, -0.25f},
               xt::xarray<float>(xt::random::randn<float>({7, 3})), xt::xarray<float>(xt::random::randn<float>({7, 2})));

  // ... and a convolution layer's: conv2d's image gradient (ConvTranspose) and filter gradient
  // (a Conv with image and gradient as input and weight), SAME strided and explicit dilated
  auto conv_gradient = sf::function<sf::spec<float, 2, 7, 6, 3>, sf::spec<float, 3, 2, 3, 4>>(
      sf::value_and_grad_fn<0, 1>([](auto x, auto f) {
        return sf::reduce_mean(sf::tanh(sf::conv2d(x, f, sf::padding::same, sf::strides<2>))) +
               sf::reduce_mean(sf::square(sf::conv2d(x, f, sf::padding::explicit_<1, 0, 0, 2>, sf::dilations<2, 1>)));
      }));
  auto run_conv_gradient = exported("conv_value_and_grad", conv_gradient);
  run_conv_gradient("image2x7x6", xt::xarray<float>(xt::random::randn<float>({2, 7, 6, 3})),
                    xt::xarray<float>(xt::random::randn<float>({3, 2, 3, 4})));

  // ... a grouped one's (2 groups: the turned-around Conv pairs every channel with every output,
  // a GatherElements keeps each output's group) ...
  auto grouped_gradient = sf::function<sf::spec<float, 2, 7, 6, 4>, sf::spec<float, 3, 2, 2, 6>>(
      sf::value_and_grad_fn<0, 1>([](auto x, auto f) {
        return sf::reduce_mean(sf::tanh(sf::conv2d(x, f, sf::padding::same, sf::strides<2>))) +
               sf::reduce_mean(sf::square(sf::conv2d(x, f, sf::dilations<2, 1>)));
      }));
  exported("grouped_conv_value_and_grad", grouped_gradient)("image2x7x6", xt::xarray<float>(xt::random::randn<float>({2, 7, 6, 4})),
                                                           xt::xarray<float>(xt::random::randn<float>({3, 2, 2, 6})));
  // ... and a conv3d layer's (3-D ConvTranspose and the turned-around Conv; groups), SAME strided
  // and explicit dilated
  auto conv3d_gradient = sf::function<sf::spec<float, 1, 5, 6, 5, 4>, sf::spec<float, 2, 3, 2, 2, 6>>(
      sf::value_and_grad_fn<0, 1>([](auto x, auto f) {
        return sf::reduce_mean(sf::tanh(sf::conv3d(x, f, sf::padding::same, sf::strides<2, 1, 2>))) +
               sf::reduce_mean(sf::square(sf::conv3d(x, f, sf::padding::explicit_<1, 0, 0, 2, 1, 1>, sf::dilations<1, 2, 1>)));
      }));
  exported("conv3d_value_and_grad", conv3d_gradient)("volume1x5x6x5", xt::xarray<float>(xt::random::randn<float>({1, 5, 6, 5, 4})),
                                                     xt::xarray<float>(xt::random::randn<float>({2, 3, 2, 2, 6})));

  // ... and the window ops' gradients: SliceGrad (Pad), ConcatGrad (Slice) and x[i]'s (ScatterND;
  // a run-time, negative index), run-time batch extents
  auto window_gradient = sf::function<sf::spec<float, sf::dyn, 5>, sf::spec<float, sf::dyn, 2>, sf::spec<std::int32_t>>(
      sf::value_and_grad_fn<0, 1>([](auto a, auto b, auto i) {
        const auto joined = sf::concat<1>(sf::tanh(a), b * b, sf::slice(a, sf::axes<1>{}, 1, 3));
        return sf::reduce_sum(sf::square(joined) * 0.5f) + sf::reduce_sum(sf::sin(sf::slice(a, sf::axes<0>{}, 1, 2))) +
               sf::reduce_sum(sf::exp(a[i])) + sf::reduce_sum(sf::square(b[i])) * 3.f;
      }));
  auto run_window_gradient = exported("window_value_and_grad", window_gradient);
  run_window_gradient("rows4", xt::xarray<float>(xt::random::randn<float>({4, 5})), xt::xarray<float>(xt::random::randn<float>({4, 2})),
                      std::int32_t{-1});
  run_window_gradient("rows3", xt::xarray<float>(xt::random::randn<float>({3, 5})), xt::xarray<float>(xt::random::randn<float>({3, 2})),
                      std::int32_t{1});

  // ... and the poolings' gradients: MaxPoolGrad as MaxPool's Indices and a ScatterElements that
  // adds (overlapping windows share maxima; run-time extents), AvgPoolGrad as a ConvTranspose of
  // ones over the gradient divided by each window's count (SAME's padding not counted; static)
  auto pool_gradient = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 2>, sf::spec<float, 2, 7, 6, 3>,
                                    sf::spec<float, sf::dyn, 9, 2>>(sf::value_and_grad_fn<0, 1, 2>([](auto x, auto y, auto s) {
    return sf::reduce_sum(sf::square(sf::max_pool2d(x, sf::ksize<2>, sf::strides<1>))) +
           sf::reduce_sum(sf::tanh(sf::max_pool2d(x, sf::ksize<3>, sf::strides<2>, sf::padding::same))) +
           sf::reduce_sum(sf::square(sf::avg_pool2d(y, sf::ksize<3, 2>, sf::strides<2, 1>, sf::padding::same))) +
           sf::reduce_sum(sf::tanh(sf::avg_pool2d(y, sf::ksize<2>))) +
           sf::reduce_sum(sf::square(sf::max_pool1d(s, sf::ksize<3>, sf::strides<2>, sf::padding::same))) +
           sf::reduce_sum(sf::exp(sf::avg_pool1d(s, sf::ksize<2>, sf::strides<1>, sf::padding::same)));
  }));
  auto run_pool_gradient = exported("pool_value_and_grad", pool_gradient);
  const xt::xarray<float> tied = xt::round(xt::random::randn<float>({2, 5, 6, 2}));  // ties: the first maximum
  run_pool_gradient("tied2x5x6", tied, xt::xarray<float>(xt::random::randn<float>({2, 7, 6, 3})),
                    xt::xarray<float>(xt::random::randn<float>({3, 9, 2})));
  run_pool_gradient("image1x4x7", xt::xarray<float>(xt::random::randn<float>({1, 4, 7, 2})),
                    xt::xarray<float>(xt::random::randn<float>({2, 7, 6, 3})), xt::xarray<float>(xt::round(xt::random::randn<float>({1, 9, 2}))));

  // ... and max_pool's second derivative (MaxPoolGradGrad: a Gather at MaxPool's Indices), in a jvp
  auto pool_jvp = sf::function<sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 2>, sf::spec<float, sf::dyn, sf::dyn, sf::dyn, 2>>(
      sf::jvp_fn<0>([](auto x) { return sf::tanh(sf::max_pool2d(x, sf::ksize<2>, sf::strides<1>)); }));
  exported("max_pool_jvp", pool_jvp)("tied2x5x6", tied, xt::xarray<float>(xt::random::randn<float>({2, 5, 6, 2})));

  const std::string command = std::string("\"") + argv[1] + "\" \"" + argv[2] + "\" \"" + dir + "\"";
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) return 1;
  return WEXITSTATUS(status);
}
