// staticflow/graph/segment.hpp -- segment sums: sf::unsorted_segment_sum (tf.math.unsorted_segment_sum)
// and sf::segment_sum (jax.ops.segment_sum under jit with TF's sorted-id rules), with their
// gradient (the adjoint's row at each id: TF's _GatherDropNegatives).
//
//   result shape = [num_segments] + data.shape[k:]     (segment_ids.shape == data.shape[:k], k >= 1)
//   result[s, ...] = sum of data[j..., ...] over the positions j... with segment_ids[j...] == s
//
// num_segments is a C++ integer (the result's first extent is dyn) or a static value (`5_c`: the
// extent is in the type), or, for sf::segment_sum, left out as in tf.math.segment_sum: the result
// then has ids[-1] + 1 rows, a count known from the ids' values when the function runs (its extent
// sf::dyn; the node is a self-allocating slot, as boolean_mask's).
// unsorted_segment_sum drops a negative id's value (TF); segment_sum requires ids in [0,
// num_segments), non-decreasing, of rank 1 (TF). A bad id throws sf::shape_error with TF's text
// before anything is written; the backends add each segment's rows in position order, so the sums
// are the same bits on any thread count (no atomics). The kernels are gather's (graph/gather.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/static_value.hpp"
#include "staticflow/graph/child_refs.hpp"
#include "staticflow/graph/data_movement.hpp"
#include "staticflow/graph/gather.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/traversal.hpp"

namespace staticflow {
namespace graph {
/// The two ops: their names, and whether the ids must be sorted (TF's SegmentSum rules).
struct unsorted_segments {
  static constexpr const char* function = "unsorted_segment_sum";
  static constexpr const char* tf_name = "UnsortedSegmentSum";
  static constexpr bool sorted = false;
};
struct sorted_segments {
  static constexpr const char* function = "segment_sum";
  static constexpr const char* tf_name = "SegmentSum";
  static constexpr bool sorted = true;
};
/// tf.math.segment_sum without num_segments: sorted ids, as many rows as the largest id + 1 (the
/// last one when the ids are valid), counted when the function runs.
struct counted_segments {
  static constexpr const char* function = "segment_sum";
  static constexpr const char* tf_name = "SegmentSum";
  static constexpr bool sorted = true;
};
template <class Kind>
inline constexpr bool counted_v = std::is_same<Kind, counted_segments>::value;

namespace detail {
template <std::size_t N, class X, std::size_t K, class Tail = std::make_index_sequence<X::rank - K>>
struct segmented_shape;
template <std::size_t N, class X, std::size_t K, std::size_t... S>
struct segmented_shape<N, X, K, std::index_sequence<S...>> {
  using type = shape<N, X::dims[K + S]...>;  // [num_segments] + data.shape[k:]
};

/// A shape as TF's DebugString writes it ("[4,2]"), and position p of the ids as its
/// SliceDebugString ("[3]", "[0,1]"): the errors below are TF's text.
template <std::size_t R>
std::string tf_list(const extents<R>& e) {
  std::string out = "[";
  for (std::size_t d = 0; d < R; ++d) out += (d ? "," : "") + std::to_string(e[d]);
  return out + "]";
}
template <std::size_t R>
std::string tf_position(const extents<R>& ie, std::size_t p) {
  extents<R> at{};
  for (std::size_t d = R; d-- > 0;) {
    at[d] = p % ie[d];  // (ie has no 0 extent: it holds position p)
    p /= ie[d];
  }
  return tf_list(at);
}

/// data.shape must start with segment_ids.shape (TF's check, thrown while extents are computed).
template <class Kind, std::size_t DR, std::size_t IR>
void check_segment_prefix(const extents<DR>& xe, const extents<IR>& ie) {
  for (std::size_t d = 0; d < IR; ++d)
    if (xe[d] != ie[d])
      throw shape_error(std::string(Kind::function) + ": data.shape = " + tf_list(xe) +
                        " does not start with segment_ids.shape = " + tf_list(ie));
}

/// TF's error for the id at position p (the first bad one).
template <class Kind, class J, std::size_t IR>
[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_segment_id(const J* ids, const extents<IR>& ie, std::size_t p,
                                                                std::size_t segments) {
  const std::string op = std::string(Kind::function) + ": ";
  const std::string id = "segment_ids" + tf_position(ie, p) + " = " + std::to_string(ids[p]);
  if (ids[p] >= 0 && static_cast<std::size_t>(ids[p]) >= segments)
    throw shape_error(op + id + " is out of range [0, " + std::to_string(segments) + ")");
  if (ids[p] < 0) throw shape_error(op + "segment ids must be >= 0 (" + id + ")");
  throw shape_error(op + "segment ids are not increasing (" + id + " after " + std::to_string(ids[p - 1]) + ")");
}

/// Every id checked before a kernel writes (host memory; both backends): below num_segments, and
/// for segment_sum also >= 0 and not below the id before it.
template <class Kind, class J, std::size_t IR>
void check_segment_ids(const J* ids, const extents<IR>& ie, std::size_t segments) {
  const std::size_t positions = staticflow::detail::product(ie);
  for (std::size_t p = 0; p < positions; ++p) {
    const bool bad = Kind::sorted ? ids[p] < 0 || static_cast<std::size_t>(ids[p]) >= segments || (p > 0 && ids[p] < ids[p - 1])
                                  : ids[p] >= 0 && static_cast<std::size_t>(ids[p]) >= segments;
    if (bad) throw_bad_segment_id<Kind>(ids, ie, p, segments);
  }
}

/// tf.math.segment_sum's row count: the largest id + 1 (the last id when they are sorted), 0 for
/// no ids or only negative ones (which check_segment_ids then reports with TF's text).
template <class J>
std::size_t counted_segments_of(const J* ids, std::size_t positions) {
  J largest = -1;
  for (std::size_t p = 0; p < positions; ++p) largest = ids[p] > largest ? ids[p] : largest;
  return static_cast<std::size_t>(largest) + 1;
}

/// What both backends' kernels read of a segment node: data's extents (the gradient's result) and
/// the ids', and the layout of gather's kernels: data as `positions` rows of `inner` elements,
/// the sums as `segments` (gather's n) such rows.
template <std::size_t DR, std::size_t IR>
struct segment_operands {
  extents<DR> data_extents;
  extents<IR> id_extents;
  gather_layout layout;
};
template <class N, class ArgExtents>
segment_operands<N::data_rank, N::id_rank> segment_operands_of(const N& n, const ArgExtents& args) {
  segment_operands<N::data_rank, N::id_rank> o{node_extents(n.data, args), node_extents(n.ids, args), {}};
  if constexpr (counted_v<typename N::kind>) o.layout.n = node_extents(n.g, args)[0];  // (the gradient: the forward's count)
  else o.layout.n = n.num_segments;
  for (std::size_t d = 0; d < N::id_rank; ++d) o.layout.positions *= o.id_extents[d];
  for (std::size_t d = N::id_rank; d < N::data_rank; ++d) o.layout.inner *= o.data_extents[d];
  return o;
}
/// A counted segment_sum's operands (no num_segments): the extents, checked as TF does, and
/// gather's layout but its n, which the backends set once they have counted the ids.
template <class N, class ArgExtents>
segment_operands<N::data_rank, N::id_rank> counted_operands_of(const N& n, const ArgExtents& args) {
  segment_operands<N::data_rank, N::id_rank> o{node_extents(n.data, args), node_extents(n.ids, args), {}};
  check_segment_prefix<counted_segments>(o.data_extents, o.id_extents);
  o.layout.positions = o.id_extents[0];
  for (std::size_t d = N::id_rank; d < N::data_rank; ++d) o.layout.inner *= o.data_extents[d];
  return o;
}
}  // namespace detail

/// The segment sum of data by ids into N rows (dyn: `num_segments`, known when traced).
/// Materialized: the ids are data, known when it runs.
template <class Kind, class X, class I, std::size_t N>
struct segment_sum : node<segment_sum<Kind, X, I, N>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t data_rank = X::shape_type::rank, id_rank = I::shape_type::rank;
  using kind = Kind;
  using value_type = typename X::value_type;
  using shape_type = typename detail::segmented_shape<N, typename X::shape_type, id_rank>::type;
  X data;
  I ids;
  std::size_t num_segments;
  constexpr segment_sum(X x, I i, std::size_t n) : data(x), ids(i), num_segments(n) {}
  constexpr child_refs<const X&, const I&> children() const { return {{{data}, {ids}}}; }
  template <class Y, class J>
  constexpr auto with_children(const Y& y, const J& j) const { return segment_sum<Kind, Y, J, N>(y, j, num_segments); }
  static constexpr bool parameters_in_type = N != dyn;
  constexpr bool same_parameters(const segment_sum& o) const { return num_segments == o.num_segments; }
  std::string name() const { return std::string(Kind::tf_name) + "[num_segments=" + std::to_string(num_segments) + "]"; }
  extents<shape_type::rank> result_extents(const extents<data_rank>& xe, const extents<id_rank>& ie) const {
    detail::check_segment_prefix<Kind>(xe, ie);
    extents<shape_type::rank> out{};
    out[0] = num_segments;
    for (std::size_t d = id_rank; d < data_rank; ++d) out[1 + d - id_rank] = xe[d];
    return out;
  }
};

/// tf.math.segment_sum(data, segment_ids) without num_segments: ids[-1] + 1 rows, a count known
/// only when the ids are. Self-allocating (the plan's slot allocates its view once it is counted;
/// later slots read the extent from it), as boolean_mask is. num_segments is sf::dyn throughout.
template <class X, class I, std::size_t N>
struct segment_sum<counted_segments, X, I, N> : node<segment_sum<counted_segments, X, I, N>> {
  static_assert(N == dyn);
  static constexpr bool materialized = true;
  static constexpr bool self_allocating = true;
  static constexpr bool allocates_once = true;
  static constexpr std::size_t data_rank = X::shape_type::rank, id_rank = I::shape_type::rank;
  using kind = counted_segments;
  using value_type = typename X::value_type;
  using shape_type = typename detail::segmented_shape<dyn, typename X::shape_type, id_rank>::type;
  X data;
  I ids;
  std::size_t num_segments = dyn;  // (counted when it runs)
  constexpr segment_sum(X x, I i, std::size_t = dyn) : data(x), ids(i) {}
  constexpr child_refs<const X&, const I&> children() const { return {{{data}, {ids}}}; }
  template <class Y, class J>
  constexpr auto with_children(const Y& y, const J& j) const { return segment_sum<counted_segments, Y, J, N>(y, j); }
  static constexpr bool parameters_in_type = true;
  constexpr bool same_parameters(const segment_sum&) const { return true; }
  std::string name() const { return "SegmentSum"; }
  /// The result's extents once the segments are counted.
  static extents<shape_type::rank> counted_extents(const extents<data_rank>& xe, std::size_t segments) {
    extents<shape_type::rank> out{};
    out[0] = segments;
    for (std::size_t d = id_rank; d < data_rank; ++d) out[1 + d - id_rank] = xe[d];
    return out;
  }
};

/// The gradient of segment_sum<Kind, X, I, N> with respect to data: row j of the adjoint g at
/// ids[j], zeros where the id is negative. data is a child for its extents only.
template <class Kind, class G, class X, class I, std::size_t N>
struct segment_sum_gradient : node<segment_sum_gradient<Kind, G, X, I, N>> {
  static constexpr bool materialized = true;
  static constexpr std::size_t extents_child = 1;  // (data's: autodiff/adjoint_shape.hpp)
  static constexpr std::size_t data_rank = X::shape_type::rank, id_rank = I::shape_type::rank;
  using kind = Kind;
  using value_type = typename G::value_type;
  using shape_type = typename X::shape_type;
  G g;
  X data;
  I ids;
  std::size_t num_segments;
  constexpr segment_sum_gradient(G g_, X x, I i, std::size_t n) : g(g_), data(x), ids(i), num_segments(n) {}
  constexpr child_refs<const G&, const X&, const I&> children() const { return {{{g}, {data}, {ids}}}; }
  template <class H, class Y, class J>
  constexpr auto with_children(const H& h, const Y& y, const J& j) const {
    return segment_sum_gradient<Kind, H, Y, J, N>(h, y, j, num_segments);
  }
  static constexpr bool parameters_in_type = N != dyn;
  constexpr bool same_parameters(const segment_sum_gradient& o) const { return num_segments == o.num_segments; }
  std::string name() const {
    if constexpr (counted_v<Kind>) return std::string(Kind::tf_name) + "Grad";
    else return std::string(Kind::tf_name) + "Grad[num_segments=" + std::to_string(num_segments) + "]";
  }
  /// The adjoint's extents: the forward result's (for a counted segment_sum, the adjoint's own
  /// first extent: the count it was made with).
  extents<G::shape_type::rank> adjoint_extents(const extents<data_rank>& xe, const extents<id_rank>& ie,
                                               [[maybe_unused]] std::size_t adjoint_rows) const {
    if constexpr (counted_v<Kind>) {
      detail::check_segment_prefix<Kind>(xe, ie);
      return segment_sum<Kind, X, I, N>::counted_extents(xe, adjoint_rows);
    } else {
      return segment_sum<Kind, X, I, N>(data, ids, num_segments).result_extents(xe, ie);
    }
  }
  extents<data_rank> result_extents(const extents<G::shape_type::rank>& ge, const extents<data_rank>& xe,
                                    const extents<id_rank>& ie) const {
    if (!staticflow::detail::same_extents(adjoint_extents(xe, ie, ge[0]), ge))
      throw shape_error(std::string(Kind::function) + " gradient: an adjoint of shape " +
                        staticflow::detail::extents_string(ge) + " for a segment sum of data of shape " +
                        staticflow::detail::extents_string(xe));
    return xe;
  }
};

}  // namespace graph

namespace detail {
// X and I are specs (the operands' dtypes and shapes), so a mistake reports once for the traced
// and the eager call.
template <class Kind, class X, class I>
struct segment_check {
  using J = typename I::value_type;
  static constexpr std::size_t rank = X::shape_type::rank, id_rank = I::shape_type::rank;
  static constexpr bool integer_ids = std::is_integral<J>::value && std::is_signed<J>::value;
  static_assert(integer_ids, "staticflow: segment_sum / unsorted_segment_sum: the segment ids must be an int32 or int64 tensor");
  static constexpr bool summable = !std::is_same<typename X::value_type, bool>::value;
  static_assert(summable, "staticflow: segment_sum / unsorted_segment_sum: a bool tensor has no sum (sf::cast it first)");
  static_assert(id_rank >= 1, "staticflow: segment_sum / unsorted_segment_sum: the segment ids must have rank 1 or more");
  static_assert(id_rank <= rank,
                "staticflow: segment_sum / unsorted_segment_sum: the segment ids' rank is above data's: their shape "
                "must be a prefix of data's");
  static_assert(!Kind::sorted || id_rank <= 1,
                "staticflow: segment_sum: the segment ids must be a vector (rank 1), as in TF; "
                "unsorted_segment_sum takes ids of any prefix of data's shape");
  static constexpr bool rank_ok = id_rank >= 1 && id_rank <= rank && (!Kind::sorted || id_rank == 1);
  static constexpr bool prefix_ok = [] {
    if constexpr (rank_ok) {
      for (std::size_t d = 0; d < id_rank; ++d)
        if (X::shape_type::dims[d] != dyn && I::shape_type::dims[d] != dyn && X::shape_type::dims[d] != I::shape_type::dims[d])
          return false;
    }
    return true;
  }();
  static_assert(prefix_ok,
                "staticflow: segment_sum / unsorted_segment_sum: data's shape does not start with the segment ids' "
                "shape (segment_ids.shape must be data.shape[:k])");
  static constexpr bool ok = integer_ids && summable && rank_ok && prefix_ok;
};

/// num_segments: a C++ integer or an integer static value (`5_c`).
template <class N>
concept segment_count = (std::is_integral<N>::value && !std::is_same<N, bool>::value) ||
                        (static_value_type<N> && std::is_integral<typename N::value_type>::value &&
                         !std::is_same<typename N::value_type, bool>::value);

template <class Kind, class X, class I, class N>
constexpr auto make_segment_sum(const X& data, const I& ids, N num_segments) {
  const auto xn = as_node<void>(data);
  const auto in = as_node<void>(ids);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using IN = std::remove_cvref_t<decltype(in)>;
  if constexpr (!segment_check<Kind, spec_of_node_t<XN>, spec_of_node_t<IN>>::ok) {
    return xn;
  } else if constexpr (static_value_type<N>) {
    static_assert(N::value >= 0, "staticflow: segment_sum / unsorted_segment_sum: num_segments must be non-negative");
    constexpr std::size_t count = N::value < 0 ? 0 : static_cast<std::size_t>(N::value);
    return graph::segment_sum<Kind, XN, IN, count>(xn, in, count);
  } else {
    const std::size_t count = checked_extent(num_segments, Kind::sorted ? "segment_sum: num_segments" : "unsorted_segment_sum: num_segments");
    return graph::segment_sum<Kind, XN, IN, dyn>(xn, in, count);
  }
}
}  // namespace detail

/// tf.math.unsorted_segment_sum(data, segment_ids, num_segments): result[s] sums the slices
/// data[j...] whose id segment_ids[j...] is s; a negative id's slice is dropped. segment_ids: an
/// int32 / int64 tensor whose shape is a prefix of data's; num_segments: a C++ integer (run-time
/// extent) or a static value such as 5_c (static extent).
template <detail::tensor_operand X, detail::tensor_operand I, detail::segment_count N>
constexpr auto unsorted_segment_sum(const X& data, const I& segment_ids, N num_segments) {
  return detail::make_segment_sum<graph::unsorted_segments>(data, segment_ids, num_segments);
}

/// tf.math.segment_sum(data, segment_ids): result[s] sums the slices data[j] whose id is s, for s
/// from 0 to the last id (ids[-1] + 1 rows, the count sf::dyn: known when the function runs; no
/// ids give 0 rows). The ids: an int32 / int64 vector, sorted, non-negative (sf::shape_error with
/// TF's text otherwise, before anything is written).
template <detail::tensor_operand X, detail::tensor_operand I>
constexpr auto segment_sum(const X& data, const I& segment_ids) {
  const auto xn = detail::as_node<void>(data);
  const auto in = detail::as_node<void>(segment_ids);
  using XN = std::remove_cvref_t<decltype(xn)>;
  using IN = std::remove_cvref_t<decltype(in)>;
  if constexpr (!detail::segment_check<graph::counted_segments, spec_of_node_t<XN>, spec_of_node_t<IN>>::ok) return xn;
  else return graph::segment_sum<graph::counted_segments, XN, IN, dyn>(xn, in);
}

/// jax.ops.segment_sum(data, segment_ids, num_segments) with tf.math.segment_sum's rules: the ids
/// a vector, sorted, in [0, num_segments) (sf::shape_error with TF's text otherwise). Without
/// num_segments (above) it is TF's op.
template <detail::tensor_operand X, detail::tensor_operand I, detail::segment_count N>
constexpr auto segment_sum(const X& data, const I& segment_ids, N num_segments) {
  return detail::make_segment_sum<graph::sorted_segments>(data, segment_ids, num_segments);
}

}  // namespace staticflow
