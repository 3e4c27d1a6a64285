// staticflow/io/onnx_data_movement.hpp -- the ONNX form of the axis-map ops (graph/data_movement.hpp,
// graph/slicing.hpp), the sorting ops (graph/sorting.hpp), scans (graph/cumulative.hpp), masks and
// repeats (graph/masking.hpp), unique (graph/unique.hpp), segment sums and diagonals, used by
// io/onnx_lowering.hpp.
// Extents are read from the graph (Shape) where the op needs them, so run-time extents export:
//
//   reverse            Slice with steps of -1
//   strided slice      Slice (starts / ends / steps; omitted bounds as ONNX's end markers)
//   tile               Tile
//   pad                Pad, mode "constant" (with the value) or "reflect"; SYMMETRIC (no ONNX mode)
//                      per padded axis the first `before` and last `after` slices reversed
//                      (Slice with step -1) and concatenated around x
//   roll               per axis, two Slices concatenated at (n - shift mod n) mod n
//   repeat             Unsqueeze, Tile, Reshape
//   split part k       Slice of [k n / parts, (k + 1) n / parts)
//   split with sizes   Slice of the part's window, counted from the end after a -1 part
//   argsort, top_k     TopK (stable: ONNX breaks ties by the lower index), indices cast to int32
//   take_along_axis    GatherElements
//   gather_nd          GatherND (indices cast to int64)
//   tensor_scatter_nd  ScatterND, reduction "none" (update: ONNX leaves repeated tuples' order
//                      undefined, staticflow keeps the last), "add" (add, scatter_nd), "add" of
//                      the negated updates (sub)
//   segment sums       ScatterND, reduction "add", of data into zeros of the result's shape at the
//                      ids (unsorted_segment_sum: a negative id's row zeroed and sent to row 0);
//                      without num_segments the rows are max(ids) + 1 (ids[-1] + 1 for the sorted
//                      ids segment_sum takes; 0 for none)
//   their gradient     Gather of the adjoint's rows at the ids (negative ids: zeros)
//   diag_part          Where(row == column, x, 0) summed over the last axis, sliced to min(M, N)
//                      (ONNX has no diagonal op; the mask is built with Range from the extents)
//   set_diag           Where(row == column, d padded to M rows as a column, x)
//   cumsum             CumSum (exclusive / reverse attributes)
//   cumprod            ReduceProd of x under an [n, n] position mask (Range, Where): no ONNX op
//   repeat by counts   CumSum of the counts, each output position's row counted, Gather
//   unique's codes     Unique (sorted = 0), ScatterElements of the first appearances
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <onnx/onnx_pb.h>

#include "staticflow/graph/cumulative.hpp"
#include "staticflow/graph/data_movement.hpp"
#include "staticflow/graph/linalg.hpp"
#include "staticflow/graph/masking.hpp"
#include "staticflow/graph/scatter.hpp"
#include "staticflow/graph/segment.hpp"
#include "staticflow/graph/slicing.hpp"
#include "staticflow/graph/sorting.hpp"
#include "staticflow/graph/unique.hpp"

namespace staticflow::onnx::detail {

inline void set_string(::onnx::NodeProto& node, const char* name, const std::string& value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(value);
}

inline constexpr std::int64_t onnx_max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t onnx_min = std::numeric_limits<std::int64_t>::min();

/// x's extent along axis as a 1-element int64 tensor.
template <class Exporter>
std::string extent_of(Exporter& e, const std::string& x, std::size_t axis) {
  const std::string out = e.fresh("extent");
  e.set_int(e.add_node("Gather", {e.op("Shape", {x}), e.ints({static_cast<std::int64_t>(axis)})}, {out}), "axis", 0);
  return out;
}

template <class K> struct axis_map_form : std::integral_constant<int, 0> {};
template <std::size_t R, int... A> struct axis_map_form<graph::reverse_kind<R, A...>> : std::integral_constant<int, 1> {};
template <std::size_t R, class E, int... A> struct axis_map_form<graph::strided_slice_kind<R, E, A...>> : std::integral_constant<int, 2> {};
template <std::size_t... M> struct axis_map_form<graph::tile_kind<M...>> : std::integral_constant<int, 3> {};
template <class T, padding_kind P, std::size_t... A>
struct axis_map_form<graph::pad_kind<T, P, A...>> : std::integral_constant<int, P == padding_kind::symmetric ? 9 : 4> {};
template <std::size_t R, int... A> struct axis_map_form<graph::roll_kind<R, A...>> : std::integral_constant<int, 5> {};
template <std::size_t R, int A, std::size_t C> struct axis_map_form<graph::repeat_kind<R, A, C>> : std::integral_constant<int, 6> {};
template <std::size_t R, int A, std::size_t S> struct axis_map_form<graph::split_kind<R, A, S>> : std::integral_constant<int, 7> {};
template <std::size_t R, int A, std::size_t S> struct axis_map_form<graph::split_part_kind<R, A, S>> : std::integral_constant<int, 8> {};

/// An axis-map op over x (rank R, dtype T) as ONNX nodes (axis_map_form<Kind> is not 0: the
/// exporter reports the kinds without an ONNX form as no_onnx_mapping).
template <std::size_t R, class T, class Kind, class Exporter>
std::string lower_axis_map(Exporter& e, const Kind& k, const std::string& x) {
  constexpr int form = axis_map_form<Kind>::value;
  const auto i64 = [](auto v) { return static_cast<std::int64_t>(v); };
  if constexpr (form == 1 || form == 2) {
    std::vector<std::int64_t> starts, ends, axes, steps;
    for (std::size_t j = 0; j < Kind::axis.size(); ++j) {
      axes.push_back(i64(Kind::axis[j]));
      if constexpr (form == 1) {
        starts.push_back(-1), ends.push_back(onnx_min), steps.push_back(-1);
      } else {
        const span& s = k.spans[j];
        steps.push_back(s.step);
        starts.push_back(s.start != open_index ? s.start : s.step > 0 ? 0 : onnx_max);
        ends.push_back(s.stop != open_index ? s.stop : s.step > 0 ? onnx_max : onnx_min);
      }
    }
    return e.op("Slice", {x, e.ints(starts), e.ints(ends), e.ints(axes), e.ints(steps)});
  } else if constexpr (form == 3) {
    return e.op("Tile", {x, e.ints(std::vector<std::int64_t>(k.multiple.begin(), k.multiple.end()))});
  } else if constexpr (form == 4) {
    std::vector<std::int64_t> pads(2 * R);
    for (std::size_t d = 0; d < R; ++d) pads[d] = i64(k.amount[2 * d]), pads[R + d] = i64(k.amount[2 * d + 1]);
    const std::string out = e.fresh("pad");
    if constexpr (Kind::mode == padding_kind::constant) {
      e.add_node("Pad", {x, e.ints(pads), e.template constant<T>({k.fill}, {})}, {out});
    } else {
      set_string(e.add_node("Pad", {x, e.ints(pads)}, {out}), "mode", "reflect");
    }
    return out;
  } else if constexpr (form == 9) {  // SYMMETRIC: the mirrored edges, edge included, axis by axis
    std::string y = x;
    for (std::size_t d = 0; d < R; ++d) {
      const std::int64_t before = i64(k.amount[2 * d]), after = i64(k.amount[2 * d + 1]), axis = i64(d);
      if (before == 0 && after == 0) continue;
      const auto reversed = [&](std::int64_t start, std::int64_t end) {
        const std::string part = e.op("Slice", {y, e.ints({start}), e.ints({end}), e.ints({axis})});
        return e.op("Slice", {part, e.ints({-1}), e.ints({onnx_min}), e.ints({axis}), e.ints({-1})});
      };
      std::vector<std::string> pieces;
      if (before > 0) pieces.push_back(reversed(0, before));
      pieces.push_back(y);
      if (after > 0) pieces.push_back(reversed(-after, onnx_max));
      const std::string out = e.fresh("pad");
      e.set_int(e.add_node("Concat", pieces, {out}), "axis", axis);
      y = out;
    }
    return y;
  } else if constexpr (form == 5) {
    std::string y = x;
    for (std::size_t j = 0; j < Kind::axis.size(); ++j) {
      const std::int64_t axis = i64(Kind::axis[j]);
      const std::string n = extent_of(e, y, Kind::axis[j]);
      const std::string divisor = e.op("Max", {n, e.ints({1})});  // (an empty axis: nothing moves)
      // the result starts at element (n - shift mod n) mod n of the operand
      const std::string shift = e.op("Mod", {e.ints({k.shift[j]}), divisor});
      const std::string start = e.op("Mod", {e.op("Sub", {n, shift}), divisor});
      const std::string tail = e.op("Slice", {y, start, e.ints({onnx_max}), e.ints({axis})});
      const std::string head = e.op("Slice", {y, e.ints({0}), start, e.ints({axis})});
      const std::string out = e.fresh("roll");
      e.set_int(e.add_node("Concat", {tail, head}, {out}), "axis", axis);
      y = out;
    }
    return y;
  } else if constexpr (form == 6) {
    const std::int64_t axis = i64(Kind::axis);
    std::vector<std::int64_t> reps(R + 1, 1);
    reps[Kind::axis + 1] = i64(k.repeats);
    const std::string tiled = e.op("Tile", {e.op("Unsqueeze", {x, e.ints({axis + 1})}), e.ints(reps)});
    const std::string shape = e.op("Shape", {x});
    const std::string before = e.op("Slice", {shape, e.ints({0}), e.ints({axis})});
    const std::string after = e.op("Slice", {shape, e.ints({axis + 1}), e.ints({onnx_max})});
    const std::string grown = e.op("Mul", {extent_of(e, x, Kind::axis), e.ints({i64(k.repeats)})});
    const std::string target = e.fresh("repeat_shape");
    e.set_int(e.add_node("Concat", {before, grown, after}, {target}), "axis", 0);
    return e.op("Reshape", {tiled, target});
  } else if constexpr (form == 7) {
    const std::string size = e.op("Div", {extent_of(e, x, Kind::axis), e.ints({i64(k.parts)})});
    const std::string start = e.op("Mul", {size, e.ints({i64(k.part)})});
    return e.op("Slice", {x, start, e.op("Add", {start, size}), e.ints({i64(Kind::axis)})});
  } else if constexpr (form == 8) {  // a window counted from the start, or from the end after a -1 part
    std::int64_t start = i64(k.before), end = i64(k.before + k.size);
    if (k.is_rest) {
      end = k.after ? -i64(k.after) : onnx_max;
    } else if (k.from_end) {
      start = k.after + k.size ? -i64(k.after + k.size) : onnx_max;
      end = k.after ? -i64(k.after) : onnx_max;
    }
    return e.op("Slice", {x, e.ints({start}), e.ints({end}), e.ints({i64(Kind::axis)})});
  } else {
    static_assert(form != 0, "staticflow: internal: lower_axis_map of a kind without an ONNX form");
    return {};
  }
}

/// argsort (K = the axis's extent) and top_k's positions (K = k, last axis) as TopK's indices.
template <class Exporter>
std::string lower_top_k(Exporter& e, const std::string& x, const std::string& count, std::size_t axis, bool largest) {
  const std::string values = e.fresh("topk_values"), indices = e.fresh("topk_indices");
  auto& node = e.add_node("TopK", {x, count}, {values, indices});
  e.set_int(node, "axis", static_cast<std::int64_t>(axis));
  e.set_int(node, "largest", largest);
  e.set_int(node, "sorted", 1);
  return e.template cast<std::int32_t>(indices);
}

/// ONNX's GatherND and ScatterND read int64 indices.
template <class J, class Exporter>
std::string int64_indices(Exporter& e, const std::string& indices) {
  if constexpr (std::is_same<J, std::int64_t>::value) return indices;
  else return e.template cast<std::int64_t>(indices);
}

template <class J, class Exporter>
std::string lower_gather_nd(Exporter& e, const std::string& x, const std::string& indices) {
  const std::string out = e.fresh("gather_nd");
  e.add_node("GatherND", {x, int64_indices<J>(e, indices)}, {out});
  return out;
}

template <class Mode, class J, class Exporter>
std::string lower_scatter_nd(Exporter& e, const std::string& x, const std::string& indices, const std::string& updates) {
  constexpr bool replace = std::is_same<Mode, graph::scatter_update>::value;
  const std::string out = e.fresh("scatter_nd");
  const std::string values = std::is_same<Mode, graph::scatter_sub>::value ? e.op("Neg", {updates}) : updates;
  auto& node = e.add_node("ScatterND", {x, int64_indices<J>(e, indices), values}, {out});
  set_string(node, "reduction", replace ? "none" : "add");
  return out;
}

/// A segment sum's ids as ScatterND / Gather take them (int64), with, where negative ids are
/// dropped (unsorted_segment_sum), `keep`: whether each id is >= 0, broadcast against data
/// (the ids' shape followed by DataRank - IdRank ones), and the ids clamped to 0.
template <std::size_t IdRank, std::size_t DataRank, class J, class Exporter>
std::pair<std::string, std::string> segment_ids(Exporter& e, const std::string& ids, bool drop_negative) {
  const std::string ids64 = int64_indices<J>(e, ids);
  if (!drop_negative) return {ids64, {}};
  const std::string zero = e.template constant<std::int64_t>({0}, {});
  std::string keep = e.op("GreaterOrEqual", {ids64, zero});
  if constexpr (DataRank > IdRank) {
    std::vector<std::int64_t> axes;
    for (std::size_t d = IdRank; d < DataRank; ++d) axes.push_back(static_cast<std::int64_t>(d));
    keep = e.op("Unsqueeze", {keep, e.ints(axes)});
  }
  return {e.op("Max", {ids64, zero}), keep};
}

template <bool Counted, bool DropNegative, std::size_t IdRank, std::size_t DataRank, class T, class J, class Exporter>
std::string lower_segment_sum(Exporter& e, const std::string& data, const std::string& ids, std::size_t num_segments) {
  const auto [index, keep] = segment_ids<IdRank, DataRank, J>(e, ids, DropNegative);
  std::string rows;
  if constexpr (Counted) {  // (rank-1 ids) max over -1 and the ids, + 1: 0 rows for no ids
    const std::string with_floor = e.fresh("ids");
    e.set_int(e.add_node("Concat", {e.ints({-1}), index}, {with_floor}), "axis", 0);
    rows = e.op("Add", {e.op("ReduceMax", {with_floor}), e.ints({1})});
  } else {
    rows = e.ints({static_cast<std::int64_t>(num_segments)});
  }
  const std::string tail = e.op("Slice", {e.op("Shape", {data}), e.ints({static_cast<std::int64_t>(IdRank)}), e.ints({onnx_max})});
  const std::string result_shape = e.fresh("segment_shape");
  e.set_int(e.add_node("Concat", {rows, tail}, {result_shape}), "axis", 0);
  const std::string zero = e.template constant<T>({T(0)}, {});
  const std::string updates = DropNegative ? e.op("Where", {keep, data, zero}) : data;
  const std::string out = e.fresh("segment_sum");
  auto& node = e.add_node("ScatterND", {e.op("Expand", {zero, result_shape}),
                                        e.op("Unsqueeze", {index, e.ints({static_cast<std::int64_t>(IdRank)})}), updates},
                          {out});
  set_string(node, "reduction", "add");
  return out;
}

/// The gradient of a segment sum: the adjoint's row at each id (Gather on axis 0 gives data's
/// shape), zeros for a negative id.
template <bool DropNegative, std::size_t IdRank, std::size_t DataRank, class T, class J, class Exporter>
std::string lower_segment_sum_gradient(Exporter& e, const std::string& adjoint, const std::string& ids) {
  const auto [index, keep] = segment_ids<IdRank, DataRank, J>(e, ids, DropNegative);
  const std::string rows = e.fresh("segment_rows");
  e.set_int(e.add_node("Gather", {adjoint, index}, {rows}), "axis", 0);
  if constexpr (!DropNegative) return rows;
  else return e.op("Where", {keep, rows, e.template constant<T>({T(0)}, {})});
}

/// The main-diagonal mask of x's matrices (x of rank R >= 2): bool [M, N], row == column, which
/// broadcasts against x; M and N as 1-element int64 tensors read from x's shape.
struct diagonal_mask {
  std::string mask, rows, columns;
};
template <std::size_t R, class Exporter>
diagonal_mask diagonal_mask_of(Exporter& e, const std::string& x) {
  const std::string shape = e.op("Shape", {x});
  const auto extent = [&](std::int64_t d) { return e.op("Slice", {shape, e.ints({d}), e.ints({d + 1})}); };
  diagonal_mask m{{}, extent(static_cast<std::int64_t>(R) - 2), extent(static_cast<std::int64_t>(R) - 1)};
  const std::string zero = e.template constant<std::int64_t>({0}, {}), one = e.template constant<std::int64_t>({1}, {});
  const auto iota = [&](const std::string& n) { return e.op("Range", {zero, e.op("Squeeze", {n, e.ints({0})}), one}); };
  m.mask = e.op("Equal", {e.op("Unsqueeze", {iota(m.rows), e.ints({1})}), iota(m.columns)});
  return m;
}

/// diag_part: each row's diagonal element (the others masked to 0) summed over the row, the first
/// min(M, N) kept. Bools are summed as int32.
template <std::size_t R, class T, class Exporter>
std::string lower_diag_part(Exporter& e, const std::string& x) {
  using sum_type = std::conditional_t<std::is_same<T, bool>::value, std::int32_t, T>;
  const diagonal_mask m = diagonal_mask_of<R>(e, x);
  const std::string values = std::is_same<T, bool>::value ? e.template cast<std::int32_t>(x) : x;
  const std::string masked = e.op("Where", {m.mask, values, e.template constant<sum_type>({sum_type(0)}, {})});
  const std::string row_sums = e.fresh("diagonal");
  e.set_int(e.add_node("ReduceSum", {masked, e.ints({-1})}, {row_sums}), "keepdims", 0);
  const std::string diagonal =
      e.op("Slice", {row_sums, e.ints({0}), e.op("Min", {m.rows, m.columns}), e.ints({-1})});
  return std::is_same<T, bool>::value ? e.template cast<bool>(diagonal) : diagonal;
}

/// set_diag: d ([..., min(M, N)]) padded with zeros to M elements, as a column [..., M, 1], where
/// the mask holds; x elsewhere. Bools go through int32 (onnxruntime's Where and Pad take no bool).
template <std::size_t R, class T, class Exporter>
std::string lower_set_diag(Exporter& e, const std::string& x, const std::string& d) {
  constexpr bool as_int = std::is_same<T, bool>::value;
  const diagonal_mask m = diagonal_mask_of<R>(e, x);
  const std::string values = as_int ? e.template cast<std::int32_t>(d) : d;
  // pads: nothing before any axis of d, nothing after but its last, M - min(M, N) after that
  const std::string pads = e.fresh("pads");
  e.set_int(e.add_node("Concat", {e.ints(std::vector<std::int64_t>(2 * (R - 1) - 1, 0)),
                                  e.op("Sub", {m.rows, e.op("Min", {m.rows, m.columns})})},
                       {pads}),
            "axis", 0);
  const std::string column = e.op("Unsqueeze", {e.op("Pad", {values, pads}), e.ints({-1})});
  const std::string result = e.op("Where", {m.mask, column, as_int ? e.template cast<std::int32_t>(x) : x});
  return as_int ? e.template cast<bool>(result) : result;
}

/// boolean_mask is ONNX's Compress along the axis. A mask of rank K > 1 is flattened, and the
/// tensor's masked axes merged first (Reshape: 0 keeps an axis before them, -1 merges them; the
/// axes after them are written out, so they must be static).
template <std::size_t Axis, std::size_t K, class S, class Exporter>
std::string lower_boolean_mask(Exporter& e, const std::string& x, const std::string& mask) {
  std::string merged = x, flat = mask;
  if constexpr (K > 1) {
    constexpr bool static_after = [] {
      for (std::size_t d = Axis + K; d < S::rank; ++d)
        if (S::dims[d] == dyn || S::dims[d] == 0) return false;
      return true;
    }();
    static_assert(static_after,
                  "staticflow: sf::onnx::export_model: boolean_mask with a mask of rank 2 or more needs static, non-zero "
                  "extents after the masked axes (ONNX's Reshape merges the masked axes)");
    std::vector<std::int64_t> dims(Axis, 0);
    dims.push_back(-1);
    for (std::size_t d = Axis + K; d < S::rank; ++d) dims.push_back(static_cast<std::int64_t>(S::dims[d]));
    merged = e.op("Reshape", {x, e.ints(dims)});
    flat = e.op("Reshape", {mask, e.ints({-1})});
  }
  const std::string out = e.fresh("boolean_mask");
  e.set_int(e.add_node("Compress", {merged, flat}, {out}), "axis", static_cast<std::int64_t>(Axis));
  return out;
}

/// where(condition) is ONNX's NonZero ([rank, count]) transposed to TF's [count, rank].
template <class Exporter>
std::string lower_true_coordinates(Exporter& e, const std::string& condition) {
  const std::string out = e.fresh("where");
  e.set_ints(e.add_node("Transpose", {e.op("NonZero", {condition})}, {out}), "perm", {1, 0});
  return out;
}

/// cumsum is ONNX's CumSum (axis a run-time input, exclusive / reverse attributes).
template <class X, bool Exclusive, bool Reverse, class E>
std::string lower_node(E& e, const graph::cumulative<graph::cumulative_sum, X, Exclusive, Reverse>& n) {
  const std::string out = e.fresh("cumsum");
  auto& node = e.add_node("CumSum", {e.emit(n.x), e.template constant<std::int64_t>({n.axis}, {})}, {out});
  e.set_int(node, "exclusive", Exclusive ? 1 : 0);
  e.set_int(node, "reverse", Reverse ? 1 : 0);
  return out;
}

/// cumprod has no ONNX op: output i along the axis is ReduceProd over the axis of x where input
/// position j takes part (j <= i; exclusive j < i; reversed j >= i / j > i), else 1: an [n, n]
/// mask from Range, x unsqueezed before the axis, Where, ReduceProd. n^2 elements per line, so
/// meant for the short axes cumprod is used on; exact where the products are (integers).
template <class X, bool Exclusive, bool Reverse, class E>
std::string lower_node(E& e, const graph::cumulative<graph::cumulative_product, X, Exclusive, Reverse>& n) {
  using T = typename X::value_type;
  constexpr std::size_t R = X::shape_type::rank;
  const auto axis = static_cast<std::int64_t>(staticflow::detail::checked_axis(n.axis, R));
  const std::string x = e.emit(n.x);
  const std::string extent = e.fresh("extent");
  e.set_int(e.add_node("Gather", {e.op("Shape", {x}), e.template constant<std::int64_t>({axis}, {})}, {extent}), "axis", 0);
  const std::string positions = e.op("Range", {e.template constant<std::int64_t>({0}, {}), extent, e.template constant<std::int64_t>({1}, {})});
  const std::string out_pos = e.op("Unsqueeze", {positions, e.ints({1})});  // [n, 1]: i; the columns are j
  const char* compare = Reverse ? (Exclusive ? "Less" : "LessOrEqual") : (Exclusive ? "Greater" : "GreaterOrEqual");
  std::string mask = e.op(compare, {out_pos, positions});  // [n, n]: whether j takes part in output i
  std::vector<std::int64_t> trailing;
  for (std::size_t d = static_cast<std::size_t>(axis) + 2; d < R + 1; ++d) trailing.push_back(static_cast<std::int64_t>(d - axis));
  if (!trailing.empty()) mask = e.op("Unsqueeze", {mask, e.ints(trailing)});  // [n, n, 1...] against x's later axes
  const std::string taking = e.op("Where", {mask, e.op("Unsqueeze", {x, e.ints({axis})}), e.template constant<T>({T(1)}, {})});
  const std::string out = e.fresh("cumprod");
  auto& node = e.add_node("ReduceProd", {taking}, {out});
  e.set_ints(node, "axes", {axis + 1});
  e.set_int(node, "keepdims", 0);
  return out;
}

/// repeat with a tensor of counts (ONNX has no such op): each output position p reads the row
/// that is the number of running count totals (CumSum) at most p, a Gather along the axis.
template <class X, class M, std::size_t Axis, class E>
std::string lower_node(E& e, const graph::selected_rows<graph::by_repeats, X, M, Axis>& n) {
  const std::string x = e.emit(n.tensor);
  const std::string extent = e.fresh("extent");
  e.set_int(e.add_node("Gather", {e.op("Shape", {x}), e.ints({static_cast<std::int64_t>(Axis)})}, {extent}), "axis", 0);
  // one count per row (a single count is broadcast, as TF's)
  const std::string counts = e.op("Expand", {e.op("Reshape", {e.template cast<std::int64_t>(e.emit(n.mask)), e.ints({-1})}), extent});
  const std::string ends = e.op("CumSum", {counts, e.template constant<std::int64_t>({0}, {})});
  const std::string total = e.op("Squeeze", {e.op("ReduceSum", {counts}), e.ints({0})});
  const std::string positions = e.op("Range", {e.template constant<std::int64_t>({0}, {}), total, e.template constant<std::int64_t>({1}, {})});
  const std::string passed = e.template cast<std::int64_t>(e.op("GreaterOrEqual", {e.op("Unsqueeze", {positions, e.ints({1})}), ends}));
  const std::string source = e.fresh("source_rows");
  e.set_int(e.add_node("ReduceSum", {passed, e.ints({1})}, {source}), "keepdims", 0);
  const std::string out = e.fresh("repeat");
  e.set_int(e.add_node("Gather", {x, source}, {out}), "axis", static_cast<std::int64_t>(Axis));
  return out;
}

/// unique's codes from ONNX's Unique with sorted = 0 (its values in order of first appearance,
/// as TF's): 2 * inverse_indices + 1 at `indices`, the first appearances (ScatterElements).
template <class X, class E>
std::string lower_node(E& e, const graph::unique_codes<X>& n) {
  const std::string values = e.fresh("unique_values"), first = e.fresh("unique_first"), inverse = e.fresh("unique_inverse"),
                    counts = e.fresh("unique_counts");
  // (onnxruntime's Unique takes float, double and int64 among the numbers: the other integers
  // and bools compare as int64, the same equalities)
  using T = typename X::value_type;
  const std::string x = std::is_floating_point<T>::value ? e.emit(n.x) : e.template emit_as<std::int64_t>(n.x);
  e.set_int(e.add_node("Unique", {x}, {values, first, inverse, counts}), "sorted", 0);
  const auto number = [&](std::int64_t v) { return e.template constant<std::int64_t>({v}, {}); };
  const std::string zeros = e.op("Mul", {inverse, number(0)});
  const std::string ones = e.op("Add", {e.op("Mul", {first, number(0)}), number(1)});
  const std::string flags = e.op("ScatterElements", {zeros, first, ones});
  return e.op("Add", {e.op("Mul", {inverse, number(2)}), flags});
}

}  // namespace staticflow::onnx::detail
