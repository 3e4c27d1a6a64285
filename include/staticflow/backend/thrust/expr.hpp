// staticflow/backend/thrust/expr.hpp -- a lowered elementwise graph as a device expression: a
// trivially copyable tree of plain structs (raw device pointers, strides, constants) whose
// `at(index)` is __host__ __device__ and computes one element with the ops' scalar semantics
// (`Op::apply`, graph/scalar_ops.hpp), exactly as the CPU backend's scalar path does.
//
// An index is either flat (element j of a result that every tensor read has the size of, or
// broadcasts as one element) or a coordinate per result axis (general broadcasting: each tensor
// has a stride per result axis, 0 where it broadcasts). No Hana, no xtensor, no std::tuple here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow::thrust_backend {

/// A C++ scalar argument: its value travels in the kernel's parameters.
template <class T>
struct host_scalar {
  T value;
};
/// Its extents (found by argument-dependent lookup from staticflow::detail::extents_of_views).
template <class T>
extents<0> view_extents(const host_scalar<T>&) {
  return {};
}

namespace detail {

struct flat_index {
  std::size_t j;
};
/// A flat index where some tensors are read as blocks (d_tensor). Its own type, so that the
/// kernels of a CUDA build whose tensors all read at j or at 0 are the plain ones: a kernel that
/// could read blocks ran 15 % slower on an H100 even where none did (the fused chain 0.436 ->
/// 0.499 ms). Host systems read through block_index only (one kernel; a predicted branch per read).
struct block_index {
  std::size_t j;
};
template <bool Blocks>
using flat_index_of = std::conditional_t<Blocks, block_index, flat_index>;
template <std::size_t R>
struct nd_index {
  std::size_t c[R > 0 ? R : 1];
};

/// A constant (a literal, or a C++ scalar argument).
template <class T>
struct d_value {
  T v;
  template <class I> STATICFLOW_HD T at(const I&) const { return v; }
};

/// A tensor in device memory, read at a flat index or at result coordinates (a stride per result
/// axis, 0 where it broadcasts). At a flat index j: element j * step (step 1: the result's layout;
/// 0: one element), or, for a tensor that covers a block of consecutive result axes and broadcasts
/// along the others (a bias [c] against [n, c]: j % c; a column [n, 1]: j / c), element
/// (j / div) % mod, in 32-bit arithmetic (such reads are planned only for results of fewer than
/// 2^32 elements; a 64-bit division costs several times as much on a GPU).
/// (A block keeps its mod in `step` (>= 2) and its div in stride[0], which a flat reading does
/// not use otherwise: the struct keeps its size.)
template <class T, std::size_t R>
struct d_tensor {
  const T* p;
  std::size_t step;
  std::size_t stride[R > 0 ? R : 1];
  STATICFLOW_HD T at(const flat_index& i) const { return p[i.j * step]; }
  STATICFLOW_HD T at(const block_index& i) const {
    if (step < 2) return p[i.j * step];
    const std::uint32_t j = static_cast<std::uint32_t>(i.j), div = static_cast<std::uint32_t>(stride[0]);
    return p[(div == 1 ? j : j / div) % static_cast<std::uint32_t>(step)];
  }
  template <std::size_t Q>
  STATICFLOW_HD T at(const nd_index<Q>& i) const {
    static_assert(Q == R);
    std::size_t off = 0;
    for (std::size_t d = 0; d < R; ++d) off += i.c[d] * stride[d];
    return p[off];
  }
};

template <class Op, class C, class A>
struct d_unary {
  A a;
  template <class I> STATICFLOW_HD auto at(const I& i) const { return Op::apply(static_cast<C>(a.at(i))); }
};
template <class Op, class C, class A, class B>
struct d_binary {
  A a;
  B b;
  template <class I> STATICFLOW_HD auto at(const I& i) const {
    return Op::apply(static_cast<C>(a.at(i)), static_cast<C>(b.at(i)));
  }
};
template <class V, class Cond, class A, class B>
struct d_select {
  Cond c;
  A a;
  B b;
  template <class I> STATICFLOW_HD V at(const I& i) const {
    return c.at(i) ? static_cast<V>(a.at(i)) : static_cast<V>(b.at(i));
  }
};
template <class T, class Node, class A>
struct d_cast {
  A a;
  template <class I> STATICFLOW_HD T at(const I& i) const { return Node::apply(a.at(i)); }
};

/// How the tensors of one kernel are read: their strides follow the result's extents.
template <std::size_t R>
struct read_plan {
  extents<R> out;
  std::size_t out_size;
  bool flat;
};
template <class V>
bool plain_flat_view(const V& v, std::size_t out_size) {
  return v.size() == out_size || v.size() == 1;
}

/// Where a tensor of extents `ve` (right-aligned with the result's) is read at flat indices of a
/// result of extents `out` as a block: its axes other than 1 are consecutive result axes [a, b)
/// that it covers whole, so element j of the result reads its element (j / div) % mod, div the
/// product of the result's extents after b, mod its size. {0, 0} when it is not such a block.
struct flat_block {
  std::size_t div, mod;
};
template <std::size_t VR, std::size_t R>
flat_block block_reading(const extents<VR>& ve, const extents<R>& out) {
  static_assert(VR <= R);
  std::size_t first = R, last = 0;  // the tensor's axes other than 1, in result axes
  for (std::size_t k = 0; k < VR; ++k)
    if (ve[k] != 1) first = std::min(first, R - VR + k), last = R - VR + k + 1;
  if (first >= last) return {0, 0};
  std::size_t div = 1, mod = 1;
  for (std::size_t d = first; d < last; ++d) {
    if (ve[d - (R - VR)] != out[d]) return {0, 0};  // a 1 inside the block: not consecutive
    mod *= out[d];
  }
  for (std::size_t d = last; d < R; ++d) div *= out[d];
  return {div, mod};
}
/// Whether a view of this size and extents reads at flat indices of the result.
template <std::size_t VR, std::size_t R>
bool reads_flat(std::size_t size, const extents<VR>& ve, const extents<R>& out, std::size_t out_size) {
  if (size == out_size || size == 1) return true;
  return out_size <= 0xffffffffu && block_reading(ve, out).mod != 0;
}

template <class T, std::size_t VR, std::size_t R>
d_tensor<T, R> make_tensor(const tensor_view<T, VR>& v, const read_plan<R>& rp) {
  static_assert(VR <= R, "staticflow: internal: a tensor of higher rank than the result it feeds");
  d_tensor<T, R> t{v.data, 0, {}};
  const std::size_t size = v.size();
  t.step = (size == 1 && rp.out_size != 1) ? 0 : 1;
  if (rp.flat && size != rp.out_size && size != 1) {
    const flat_block b = block_reading(v.ext, rp.out);
    t.step = b.mod;  // >= 2: a block of one element reads as one element
    t.stride[0] = b.div;
    return t;
  }
  std::size_t stride = 1;
  for (std::size_t k = 0; k < VR; ++k) {  // the view's axes, from the right
    const std::size_t extent = v.ext[VR - 1 - k];
    t.stride[R - 1 - k] = extent == 1 ? 0 : stride;
    stride *= extent;
  }
  for (std::size_t k = VR; k < R; ++k) t.stride[R - 1 - k] = 0;
  return t;
}

template <class T, std::size_t R>
d_value<T> make_tensor(const host_scalar<T>& s, const read_plan<R>&) {
  return {s.value};
}

/// The device expression of a lowered elementwise graph over `views` (device tensor views and
/// host scalars, indexed like the arguments and slots).
template <class Views, std::size_t R, std::size_t I, class T, class S>
auto make_expr(const graph::argument<I, T, S>&, const Views& views, const read_plan<R>& rp) {
  return make_tensor(staticflow::detail::get<I>(views), rp);
}
template <class Views, std::size_t R, class T>
d_value<T> make_expr(const graph::literal<T>& n, const Views&, const read_plan<R>&) {
  return {n.value};
}
template <class Views, std::size_t R, class Op, class A>
auto make_expr(const graph::unary<Op, A>& n, const Views& v, const read_plan<R>& rp) {
  using E = decltype(make_expr(n.a, v, rp));
  return d_unary<Op, typename graph::unary<Op, A>::compute_type, E>{make_expr(n.a, v, rp)};
}
template <class Views, std::size_t R, class Op, class A, class B>
auto make_expr(const graph::binary<Op, A, B>& n, const Views& v, const read_plan<R>& rp) {
  using EA = decltype(make_expr(n.a, v, rp));
  using EB = decltype(make_expr(n.b, v, rp));
  return d_binary<Op, typename graph::binary<Op, A, B>::compute_type, EA, EB>{make_expr(n.a, v, rp), make_expr(n.b, v, rp)};
}
template <class Views, std::size_t R, class Cond, class A, class B>
auto make_expr(const graph::select<Cond, A, B>& n, const Views& v, const read_plan<R>& rp) {
  using EC = decltype(make_expr(n.c, v, rp));
  using EA = decltype(make_expr(n.a, v, rp));
  using EB = decltype(make_expr(n.b, v, rp));
  return d_select<typename graph::select<Cond, A, B>::value_type, EC, EA, EB>{make_expr(n.c, v, rp), make_expr(n.a, v, rp),
                                                                              make_expr(n.b, v, rp)};
}
template <class Views, std::size_t R, class T, class A>
auto make_expr(const graph::cast<T, A>& n, const Views& v, const read_plan<R>& rp) {
  using E = decltype(make_expr(n.a, v, rp));
  return d_cast<T, graph::cast<T, A>, E>{make_expr(n.a, v, rp)};
}
template <class Views, std::size_t R, class S, class A>
auto make_expr(const graph::broadcast<S, A>& n, const Views& v, const read_plan<R>& rp) {
  return make_expr(n.a, v, rp);  // the strides of the tensors below do the broadcasting
}
template <class Views, std::size_t R, class A, class Ref>
auto make_expr(const graph::broadcast_as<A, Ref>& n, const Views& v, const read_plan<R>& rp) {
  return make_expr(n.a, v, rp);  // ref gives the extents only
}

template <class T, std::size_t VR, std::size_t R>
bool view_reads_flat(const tensor_view<T, VR>& v, const extents<R>& out, std::size_t out_size) {
  if constexpr (VR > R) return false;
  else return reads_flat(v.size(), v.ext, out, out_size);
}
template <class V, std::size_t R>
bool view_reads_flat(const V& v, const extents<R>&, std::size_t out_size) {
  return plain_flat_view(v, out_size);
}

/// Whether the flat index serves: every tensor argument the graph reads has the result's size or
/// one element (same size and valid broadcasting imply the same row-major layout), or is a block
/// of the result's axes (block_reading).
template <class N, class Views, std::size_t R>
bool fits_flat(const Views& views, const extents<R>& out) {
  const std::size_t out_size = staticflow::detail::product(out);
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ([&] {
      using V = std::remove_cvref_t<std::tuple_element_t<I, Views>>;
      if constexpr (!graph::uses_argument<I, N> || !requires(const V& x) { x.size(); }) return true;
      else return view_reads_flat(staticflow::detail::get<I>(views), out, out_size);
    }() && ...);
  }(std::make_index_sequence<std::tuple_size<Views>::value>{});
}
/// Whether a flat reading of graph N reads some tensor as a block (fits_flat being true).
template <class N, class Views>
bool reads_blocks(const Views& views, std::size_t out_size) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ([&] {
      using V = std::remove_cvref_t<std::tuple_element_t<I, Views>>;
      if constexpr (!graph::uses_argument<I, N> || !requires(const V& x) { x.size(); }) return false;
      else return !plain_flat_view(staticflow::detail::get<I>(views), out_size);
    }() || ...);
  }(std::make_index_sequence<std::tuple_size<Views>::value>{});
}

}  // namespace detail
}  // namespace staticflow::thrust_backend
