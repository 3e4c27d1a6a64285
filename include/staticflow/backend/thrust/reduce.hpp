// staticflow/backend/thrust/reduce.hpp -- reductions on the device. The input subgraph is fused:
// values are computed by a device expression at each input position, never stored.
//
//  * every axis reduced (one result) under CUDA: CUB's device-wide reduction over a counting
//    iterator (a tree: accurate and at memory speed), finished into the output on the device;
//  * the input is read at flat positions where the reduced axes are the last ones and every
//    tensor it reads has its size (or one element): no coordinates computed per element; under
//    CUDA several such results are one CUB segmented reduction (a block per result);
//  * where the reduced axes are the first ones (column sums), the same flat reading in chunks of
//    rows, a work item per (chunk, result) and adjacent items on adjacent elements, then each
//    result's chunks in order (every system);
//  * otherwise thrust::reduce_by_key over the input visited result-major (the key of a position
//    is its result index), so each result's elements are one contiguous run of keys. Floating-
//    point reductions of more than `block` elements per result go in two steps, blocks of
//    `block` elements then the blocks' partials, so that no accumulator sums a long run (host
//    device systems reduce a run sequentially per thread: a million floats in one accumulator
//    lose about 2e-4 of the sum; in blocks, about 1e-7);
//  * host device systems (OMP, TBB, CPP) instead run one parallel loop over (result, block of
//    `block` elements) pairs, each combined sequentially, then one over results combining their
//    blocks in order: Thrust's reduce_by_key is sequential there;
//  * argmax / argmin: the same with (value, index) pairs, keeping the first best.
//
// Floating-point sums combine in Thrust's order, not the CPU backend's blocked order: equal to
// within rounding (integers, max, min, any, all and arg-reductions are exact).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/reduce.h>

#include "staticflow/backend/thrust/arena.hpp"
#include "staticflow/backend/thrust/expr.hpp"
#include "staticflow/backend/thrust/system.hpp"
#if STATICFLOW_THRUST_CUDA
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#endif
#include "staticflow/core/config.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow::thrust_backend {
namespace detail {

/// Input position t (result-major: result index o = t / inner, then the reduced position r =
/// t % inner) -> input coordinates. `kept` and `reduced` list the input axes of each kind.
template <std::size_t R>
struct reduction_walk {
  std::size_t inner;                 // elements reduced into each result
  std::size_t kept_n, reduced_n;     // how many axes of each kind
  std::size_t kept[R > 0 ? R : 1], reduced[R > 0 ? R : 1];  // input axis numbers
  std::size_t ext[R > 0 ? R : 1];    // input extents
  STATICFLOW_HD nd_index<R> coordinates(std::size_t t) const {
    nd_index<R> i{};
    std::size_t o = inner ? t / inner : 0, r = inner ? t % inner : 0;
    for (std::size_t k = reduced_n; k-- > 0;) {
      const std::size_t ax = reduced[k];
      i.c[ax] = r % ext[ax];
      r /= ext[ax];
    }
    for (std::size_t k = kept_n; k-- > 0;) {
      const std::size_t ax = kept[k];
      i.c[ax] = o % ext[ax];
      o /= ext[ax];
    }
    return i;
  }
};

template <std::size_t R>
reduction_walk<R> make_walk(const extents<R>& in, const std::array<bool, R>& mask) {
  reduction_walk<R> w{};
  w.inner = 1;
  for (std::size_t d = 0; d < R; ++d) {
    w.ext[d] = in[d];
    if (mask[d]) w.reduced[w.reduced_n++] = d, w.inner *= in[d];
    else w.kept[w.kept_n++] = d;
  }
  return w;
}

/// The input value at result-major position t, in the reduction's compute dtype.
template <class C, class E, std::size_t R>
struct reduce_input {
  E e;
  reduction_walk<R> w;
  STATICFLOW_HD C operator()(std::size_t t) const { return static_cast<C>(e.at(w.coordinates(t))); }
};
/// The same, read at the flat index t: where the reduced axes are the input's last ones (result-
/// major order is then row-major order) and every tensor the input reads has the input's size or
/// one element, position t is element t, with no division by the extents per element.
template <class C, class E, bool Blocks>
struct flat_reduce_input {
  E e;  // (Blocks: some tensor is read as a block, expr.hpp)
  STATICFLOW_HD C operator()(std::size_t t) const { return static_cast<C>(e.at(flat_index_of<Blocks>{t})); }
};
/// Whether every reduced axis comes after every kept one.
template <std::size_t R>
bool reduces_a_suffix(const std::array<bool, R>& mask) {
  for (std::size_t d = 1; d < R; ++d)
    if (mask[d - 1] && !mask[d]) return false;
  return true;
}
/// Whether every reduced axis comes before every kept one (column sums, a bias's gradient).
template <std::size_t R>
bool reduces_a_prefix(const std::array<bool, R>& mask) {
  for (std::size_t d = 1; d < R; ++d)
    if (!mask[d - 1] && mask[d]) return false;
  return true;
}
template <std::size_t R>
struct key_of {
  std::size_t inner;
  STATICFLOW_HD std::size_t operator()(std::size_t t) const { return t / inner; }
};
/// The key of position t in the first step of a two-step reduction: its result's blocks, then
/// its block among them.
struct block_key {
  std::size_t inner, blocks, block;
  STATICFLOW_HD std::size_t operator()(std::size_t t) const { return (t / inner) * blocks + (t % inner) / block; }
};
inline constexpr std::size_t block = 4096;

template <class Op, class C>
struct combine {
  STATICFLOW_HD C operator()(C a, C b) const { return Op::template combine<C>(a, b); }
};
template <class Op, class C>
struct finish {
  std::size_t count;
  STATICFLOW_HD C operator()(C total) const { return Op::template finish<C>(total, count); }
};

/// Host device systems: block b of result b / blocks, combined sequentially into partial[b].
template <class Op, class C, class In>
struct block_partial {
  In input;
  std::size_t inner, blocks;
  C* partial;
  STATICFLOW_HD void operator()(std::size_t b) const {
    const std::size_t o = b / blocks, k = b % blocks;
    const std::size_t first = o * inner + k * block;
    const std::size_t last = o * inner + ((k + 1) * block < inner ? (k + 1) * block : inner);
    C acc = Op::template identity<C>();
    for (std::size_t t = first; t < last; ++t) acc = Op::template combine<C>(acc, input(t));
    partial[b] = acc;
  }
};
/// ... then each result's blocks in order, finished.
template <class Op, class C, class T>
struct combine_blocks {
  const C* partial;
  std::size_t blocks;
  T* out;
  finish<Op, C> fin;
  STATICFLOW_HD void operator()(std::size_t o) const {
    C acc = Op::template identity<C>();
    for (std::size_t k = 0; k < blocks; ++k) acc = Op::template combine<C>(acc, partial[o * blocks + k]);
    out[o] = static_cast<T>(fin(acc));
  }
};

/// A reduction over the input's leading axes read flat (result o's elements are o, o + results,
/// o + 2 results, ...): item t = (chunk t / results, result o = t % results) combines its chunk of
/// rows sequentially into partial[t]. Adjacent items read adjacent elements (coalesced loads on a
/// GPU), and there are enough chunks to fill the device. reduce_by_key, visiting the input
/// result-major, ran at 3 % of memcpy bandwidth on an H100.
template <class Op, class C, class In>
struct column_partial {
  In input;
  std::size_t results, rows, rows_per_chunk;
  C* partial;
  STATICFLOW_HD void operator()(std::size_t t) const {
    const std::size_t o = t % results, first = (t / results) * rows_per_chunk;
    const std::size_t last = first + rows_per_chunk < rows ? first + rows_per_chunk : rows;
    C acc = Op::template identity<C>();
    for (std::size_t r = first; r < last; ++r) acc = Op::template combine<C>(acc, input(r * results + o));
    partial[t] = acc;
  }
};
/// ... then each result's chunks in order, finished (deterministic: no atomics).
template <class Op, class C, class T>
struct combine_column_chunks {
  const C* partial;
  std::size_t results, chunks;
  T* out;
  finish<Op, C> fin;
  STATICFLOW_HD void operator()(std::size_t o) const {
    C acc = Op::template identity<C>();
    for (std::size_t k = 0; k < chunks; ++k) acc = Op::template combine<C>(acc, partial[k * results + o]);
    out[o] = static_cast<T>(fin(acc));
  }
};
/// Rows per chunk of a column reduction: at most `block` rows per accumulator (accuracy), at
/// least 16 (each chunk writes a partial), and on a GPU enough chunks for about 2^18 work items
/// (132 SMs x 2048 threads on an H100).
inline std::size_t column_chunk_rows(std::size_t rows, std::size_t results) {
  const std::size_t target_items = STATICFLOW_THRUST_CUDA ? std::size_t{1} << 18 : 0;
  std::size_t chunks = (target_items + results - 1) / results;
  const std::size_t most = (rows + 15) / 16;
  if (chunks > most) chunks = most;
  if (chunks < (rows + block - 1) / block) chunks = (rows + block - 1) / block;
  if (chunks == 0) chunks = 1;
  return (rows + chunks - 1) / chunks;
}
template <class Op, class C, class In, class T>
void column_reduce(const In& in, std::size_t results, std::size_t rows, const finish<Op, C>& fin, T* out) {
  const std::size_t per_chunk = column_chunk_rows(rows, results);
  const std::size_t chunks = (rows + per_chunk - 1) / per_chunk;
  C* partial = static_cast<C*>(device_arena::local().allocate(sizeof(C) * results * chunks));
  const auto count = ::thrust::counting_iterator<std::size_t>(0);
  ::thrust::for_each_n(async_policy(), count, results * chunks, column_partial<Op, C, In>{in, results, rows, per_chunk, partial});
  ::thrust::for_each_n(async_policy(), count, results, combine_column_chunks<Op, C, T>{partial, results, chunks, out, fin});
}

/// A candidate of an arg-reduction: its value and its index along the axis.
template <class C>
struct indexed {
  C value;
  std::int64_t index;
};
template <class C, class E, std::size_t R>
struct arg_input {
  E e;
  reduction_walk<R> w;
  std::size_t axis;
  STATICFLOW_HD indexed<C> operator()(std::size_t t) const {
    const auto i = w.coordinates(t);
    return {static_cast<C>(e.at(i)), static_cast<std::int64_t>(i.c[axis])};
  }
};
/// The better of two candidates, the first (lowest index) on ties: associative, so any order of
/// combination gives the CPU backend's "first best" answer.
template <class Op, class C>
struct arg_combine {
  STATICFLOW_HD indexed<C> operator()(const indexed<C>& a, const indexed<C>& b) const {
    if (Op::better(b.value, a.value)) return b;
    if (Op::better(a.value, b.value)) return a;
    return a.index <= b.index ? a : b;
  }
};
template <class C>
struct index_of {
  STATICFLOW_HD std::int64_t operator()(const indexed<C>& x) const { return x.index; }
};

/// The first position of segment i (a reduction over the last axes: result i's `k` elements).
struct segment_start {
  std::size_t k;
  STATICFLOW_HD std::size_t operator()(std::size_t i) const { return i * k; }
};
#if STATICFLOW_THRUST_CUDA
/// A reduction over the input's last axes read flat, one result per segment of `inner` elements:
/// CUB's segmented reduction (a block per segment, coalesced reads), finished into out, on the
/// stream. reduce_by_key computed a key per element and ran 32x slower than a warp per row.
template <class Op, class C, class In, class T>
void segmented_reduce(const In& in, std::size_t results, std::size_t inner, const finish<Op, C>& fin, T* out) {
  const auto count = ::thrust::counting_iterator<std::size_t>(0);
  const auto values = ::thrust::make_transform_iterator(count, in);
  const auto begins = ::thrust::make_transform_iterator(count, segment_start{inner});
  const auto ends = ::thrust::make_transform_iterator(::thrust::counting_iterator<std::size_t>(1), segment_start{inner});
  const auto outputs = ::thrust::make_transform_output_iterator(out, fin);
  std::size_t bytes = 0;
  const auto run = [&](void* temp) {
    return cub::DeviceSegmentedReduce::Reduce(temp, bytes, values, outputs, static_cast<std::int64_t>(results), begins, ends,
                                              combine<Op, C>{}, Op::template identity<C>(), stream());
  };
  check_cuda(run(nullptr), "cub::DeviceSegmentedReduce::Reduce");
  check_cuda(run(device_arena::local().allocate(bytes > 0 ? bytes : 1)), "cub::DeviceSegmentedReduce::Reduce");
}
/// A full reduction of `count` input positions into out[0], finished on the device: CUB's tree
/// reduction on the stream. thrust::transform_reduce returned the total to the host and a fill
/// stored it back (a synchronization per reduction: 58 us against Thrust's 30 us at 2^20 floats).
template <class Op, class C, class In, class T>
void device_total(const In& in, std::size_t count, const finish<Op, C>& fin, T* out) {
  const auto values = ::thrust::make_transform_iterator(::thrust::counting_iterator<std::size_t>(0), in);
  const auto output = ::thrust::make_transform_output_iterator(out, fin);
  std::size_t bytes = 0;
  const auto run = [&](void* temp) {
    return cub::DeviceReduce::Reduce(temp, bytes, values, output, static_cast<std::int64_t>(count), combine<Op, C>{},
                                     Op::template identity<C>(), stream());
  };
  check_cuda(run(nullptr), "cub::DeviceReduce::Reduce");
  check_cuda(run(device_arena::local().allocate(bytes > 0 ? bytes : 1)), "cub::DeviceReduce::Reduce");
}
#endif

}  // namespace detail

template <class Op, class A, class Axes, bool Keep, class Views, std::size_t RO, class T>
void materialize(const graph::reduce<Op, A, Axes, Keep>& n, const Views& views, const extents<RO>& out_ext, T* out) {
  constexpr std::size_t R = A::shape_type::rank;
  using C = typename graph::reduce<Op, A, Axes, Keep>::compute_type;
  const auto in_ext = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const auto w = detail::make_walk<R>(in_ext, n.mask());
  const std::size_t results = staticflow::detail::product(out_ext);
  if (results == 0) return;
  const std::size_t in_size = staticflow::detail::product(in_ext);
  const detail::read_plan<R> rp{in_ext, in_size, false};
  using E = decltype(detail::make_expr(n.a, views, rp));
  const detail::reduce_input<C, E, R> input{detail::make_expr(n.a, views, rp), w};
  const detail::finish<Op, C> fin{w.inner};
  if (w.inner == 0) {  // empty reductions give the identity (finished)
    ::thrust::fill_n(async_policy(), out, results, static_cast<T>(fin(Op::template identity<C>())));
    return;
  }
  // The flat reading (no coordinates per element): 6x faster on an H100 for a sum of a product
  const bool flat = detail::reduces_a_suffix<R>(n.mask()) && detail::fits_flat<A>(views, in_ext);
  const detail::read_plan<R> flat_rp{in_ext, in_size, true};
  using FE = decltype(detail::make_expr(n.a, views, flat_rp));
  // f(the input read flat): a CUDA build compiles a plain reading beside the block-reading one
  const auto with_flat_input = [&](const auto& f) {
    if (detail::separate_plain_kernels && !detail::reads_blocks<A>(views, in_size))
      f(detail::flat_reduce_input<C, FE, !detail::separate_plain_kernels>{detail::make_expr(n.a, views, flat_rp)});
    else
      f(detail::flat_reduce_input<C, FE, true>{detail::make_expr(n.a, views, flat_rp)});
  };
#if STATICFLOW_THRUST_CUDA
  if (results == 1) {
    if (flat) with_flat_input([&](const auto& in) { detail::device_total<Op, C>(in, w.inner, fin, out); });
    else detail::device_total<Op, C>(input, w.inner, fin, out);
    return;
  }
  if (flat) {
    with_flat_input([&](const auto& in) { detail::segmented_reduce<Op, C>(in, results, w.inner, fin, out); });
    return;
  }
#endif
  // column reductions (the reduced axes first) read flat, in chunks of rows, on every system
  if (!flat && detail::reduces_a_prefix<R>(n.mask()) && detail::fits_flat<A>(views, in_ext)) {
    with_flat_input([&](const auto& in) { detail::column_reduce<Op, C>(in, results, w.inner, fin, out); });
    return;
  }
  const auto count = ::thrust::counting_iterator<std::size_t>(0);
  if constexpr (!STATICFLOW_THRUST_CUDA) {
    // host device systems: one parallel loop over (result, block) pairs, then one over results
    // (Thrust's reduce_by_key runs sequentially there)
    const std::size_t blocks = (w.inner + detail::block - 1) / detail::block;
    C* partial = static_cast<C*>(device_arena::local().allocate(sizeof(C) * results * blocks));
    const auto partials_of = [&](const auto& in) {
      ::thrust::for_each_n(async_policy(), count, results * blocks,
                           detail::block_partial<Op, C, std::remove_cvref_t<decltype(in)>>{in, w.inner, blocks, partial});
    };
    if (flat) with_flat_input(partials_of);
    else partials_of(input);
    ::thrust::for_each_n(async_policy(), count, results, detail::combine_blocks<Op, C, T>{partial, blocks, out, fin});
    return;
  }
  const auto values = ::thrust::make_transform_iterator(count, input);
  if (floating_dtype<C> && w.inner > detail::block) {
    const std::size_t blocks = (w.inner + detail::block - 1) / detail::block;
    C* partial = static_cast<C*>(device_arena::local().allocate(sizeof(C) * results * blocks));
    const auto keys = ::thrust::make_transform_iterator(count, detail::block_key{w.inner, blocks, detail::block});
    ::thrust::reduce_by_key(async_policy(), keys, keys + results * w.inner, values, ::thrust::make_discard_iterator(),
                            partial, ::thrust::equal_to<std::size_t>(), detail::combine<Op, C>{});
    const auto keys2 = ::thrust::make_transform_iterator(count, detail::key_of<R>{blocks});
    ::thrust::reduce_by_key(async_policy(), keys2, keys2 + results * blocks, partial, ::thrust::make_discard_iterator(),
                            ::thrust::make_transform_output_iterator(out, fin), ::thrust::equal_to<std::size_t>(),
                            detail::combine<Op, C>{});
    return;
  }
  const auto keys = ::thrust::make_transform_iterator(count, detail::key_of<R>{w.inner});
  ::thrust::reduce_by_key(async_policy(), keys, keys + results * w.inner, values, ::thrust::make_discard_iterator(),
                          ::thrust::make_transform_output_iterator(out, fin), ::thrust::equal_to<std::size_t>(),
                          detail::combine<Op, C>{});
}

template <class Op, class A, class Axis, class Views, std::size_t RO>
void materialize(const graph::arg_reduce<Op, A, Axis>& n, const Views& views, const extents<RO>& out_ext,
                 std::int64_t* out) {
  constexpr std::size_t R = A::shape_type::rank;
  using C = typename graph::arg_reduce<Op, A, Axis>::compute_type;
  const auto in_ext = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const std::size_t axis = n.axis(R);
  std::array<bool, R> mask{};
  mask[axis] = true;
  const auto w = detail::make_walk<R>(in_ext, mask);
  if (in_ext[axis] == 0)  // no answer (TF: InvalidArgumentError), as on the CPU backend
    throw shape_error(std::string(Op::name) + ": axis " + std::to_string(axis) + " is empty in shape " +
                      staticflow::detail::extents_string(in_ext));
  const std::size_t results = staticflow::detail::product(out_ext);
  if (results == 0) return;
  const detail::read_plan<R> rp{in_ext, staticflow::detail::product(in_ext), false};
  using E = decltype(detail::make_expr(n.a, views, rp));
  const detail::arg_input<C, E, R> input{detail::make_expr(n.a, views, rp), w, axis};
  const auto values = ::thrust::make_transform_iterator(::thrust::counting_iterator<std::size_t>(0), input);
  const auto keys = ::thrust::make_transform_iterator(::thrust::counting_iterator<std::size_t>(0), detail::key_of<R>{w.inner});
  ::thrust::reduce_by_key(async_policy(), keys, keys + results * w.inner, values, ::thrust::make_discard_iterator(),
                          ::thrust::make_transform_output_iterator(out, detail::index_of<C>{}),
                          ::thrust::equal_to<std::size_t>(), detail::arg_combine<Op, C>{});
}

}  // namespace staticflow::thrust_backend
