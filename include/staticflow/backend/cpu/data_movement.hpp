// staticflow/backend/cpu/data_movement.hpp -- the axis-map ops (graph/data_movement.hpp: reverse,
// roll, tile, repeat, pad, split; graph/slicing.hpp: strided slices) and their gradients on the
// CPU.
//
// Forward: the result's last axis is cut once per call into runs (a stretch of the operand read
// forwards, backwards, strided, one element repeated, or the fill value), a closed form per run;
// every row is then a few copies,
// the rows split across threads. Gradient: each operand element sums the adjoint where it was
// read, in row-major order of the result (graph::axis_rule's order), as passes of runs over the
// last axis (pass k: each element's k-th reader), rows split across threads; each element is
// summed by one thread, so 1 or 2 threads give the same bits.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include "staticflow/backend/cpu/operand.hpp"
#include "staticflow/backend/cpu/parallel.hpp"
#include "staticflow/backend/cpu/shape_ops.hpp"
#include "staticflow/graph/data_movement.hpp"
#include "staticflow/plan/arena.hpp"

namespace staticflow::cpu {
namespace detail {

/// A stretch of a result row: `length` elements from the operand row at `source` onwards read with
/// a step (1, -1, 0: one element repeated, or a slice's stride), or the fill value (source < 0).
struct row_run {
  std::size_t start, length;
  std::ptrdiff_t source, step;
};

/// The runs of a row of m elements whose element p reads source(p) (or the fill value where it is
/// negative), into `runs` (null: only counted); returns their count. One test per element: the
/// gradient's passes (each element's k-th reader) use it; the forward cuts by runs_of_rule.
template <class Source>
std::size_t cut_into_runs(std::size_t m, Source source, row_run* runs) {
  std::size_t count = 0;
  row_run last{};
  for (std::size_t p = 0; p < m; ++p) {
    const std::ptrdiff_t s = source(p);
    if (count) {
      const std::ptrdiff_t expected = last.source < 0 ? -1 : last.source + last.step * static_cast<std::ptrdiff_t>(last.length);
      const bool extends = last.source < 0 ? s < 0
                           : last.length == 1 ? s >= 0 && (s - last.source == 1 || s - last.source == -1 || s == last.source)
                                              : s >= 0 && s == expected;
      if (extends) {
        if (last.length == 1 && last.source >= 0) last.step = s - last.source;
        ++last.length;
        continue;
      }
      if (runs) runs[count - 1] = last;
    }
    last = {p, 1, s, 1};
    ++count;
  }
  if (count && runs) runs[count - 1] = last;
  return count;
}

/// The runs of a result row of m elements along the last axis's rule: one per linear stretch, each
/// found in closed form (graph::axis_rule::run_at), into scratch from the call's arena.
inline std::pair<const row_run*, std::size_t> runs_of_rule(const graph::axis_rule& rule, std::size_t m) {
  std::size_t count = 0;
  std::ptrdiff_t first = 0, step = 0;
  for (std::size_t p = 0; p < m; ++count) p += rule.run_at(p, first, step);
  auto* runs = static_cast<row_run*>(plan::arena::local().allocate(sizeof(row_run) * (count ? count : 1)));
  for (std::size_t p = 0, r = 0; p < m; ++r) {
    const std::size_t length = rule.run_at(p, first, step);
    runs[r] = {p, length, first, step};
    p += length;
  }
  return {runs, count};
}

template <class T>
void copy_runs(const row_run* runs, std::size_t count, const T* in_row, T* out_row, T fill) {
  for (std::size_t r = 0; r < count; ++r) {
    const row_run& run = runs[r];
    T* to = out_row + run.start;
    if (run.source < 0 || !in_row) {
      std::fill_n(to, run.length, fill);
    } else if (run.step == 1) {
      std::copy_n(in_row + run.source, run.length, to);
    } else if (run.step == 0) {
      std::fill_n(to, run.length, in_row[run.source]);
    } else if (run.step == -1) {  // (its own loop: the compiler reverses vectors for it)
      const T* from = in_row + run.source;
      for (std::size_t k = 0; k < run.length; ++k) to[k] = *(from - k);
    } else {
      const T* from = in_row + run.source;
      for (std::size_t k = 0; k < run.length; ++k) to[k] = from[static_cast<std::ptrdiff_t>(k) * run.step];
    }
  }
}

/// out_row += the runs of in_row (fill runs add nothing), or out_row = 0 + them (fill runs: 0)
/// for the first addition: the order of sums of the Thrust kernel, which starts each from 0.
template <class T>
void accumulate_runs(const row_run* runs, std::size_t count, const T* in_row, T* out_row, bool first) {
  for (std::size_t r = 0; r < count; ++r) {
    const row_run& run = runs[r];
    T* to = out_row + run.start;
    if (run.source < 0) {
      if (first) std::fill_n(to, run.length, T(0));
      continue;
    }
    const T* from = in_row + run.source;
    if (first) {
      for (std::size_t k = 0; k < run.length; ++k) to[k] = T(0) + from[static_cast<std::ptrdiff_t>(k) * run.step];
    } else {
      for (std::size_t k = 0; k < run.length; ++k) to[k] += from[static_cast<std::ptrdiff_t>(k) * run.step];
    }
  }
}

/// The first element of the operand row that result row `index` (outer coordinates) reads, or
/// null where some outer axis reads the fill value.
template <class T, std::size_t R>
const T* source_row(const std::array<graph::axis_rule, R>& rules, const std::array<std::size_t, R>& index, const T* in,
                    const extents<R>& in_stride) {
  std::size_t offset = 0;
  for (std::size_t d = 0; d + 1 < R; ++d) {
    const std::ptrdiff_t s = rules[d].source(index[d]);
    if (s < 0) return nullptr;
    offset += static_cast<std::size_t>(s) * in_stride[d];
  }
  return in + offset;
}

/// Runs `row(index, r)` for rows [first, last) of extents e (index: the row's outer coordinates).
template <std::size_t R, class F>
void for_rows(const extents<R>& e, std::size_t first, std::size_t last, F&& row) {
  std::array<std::size_t, R> index{};
  for (std::size_t d = R - 1, r = first; d-- > 0;) index[d] = r % e[d], r /= e[d];
  for (std::size_t r = first; r < last; ++r) {
    row(index, r);
    for (std::size_t d = R - 1; d-- > 0;) {
      if (++index[d] < e[d]) break;
      index[d] = 0;
    }
  }
}

template <class Kind, class T>
T fill_value(const Kind& k) {
  if constexpr (requires { k.fill; }) return static_cast<T>(k.fill);
  else return T{};
}
}  // namespace detail

template <class Sig, class Kind, class A, class Views, std::size_t R, class T>
void materialize(const graph::axis_map<Kind, A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ie = graph::node_extents(n.a, staticflow::detail::extents_of_views(views));
  const std::size_t size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  const T* in = staticflow::detail::product(ie) ? detail::contiguous_operand<T, Sig>(n.a, views, ie) : nullptr;
  if constexpr (R == 0) {
    out[0] = in[0];
  } else {
    const auto rules = n.params.rules(ie, out_ext);
    const std::size_t m = out_ext[R - 1];
    // named, not a structured binding: clang 14 cannot capture one in a lambda
    const auto cut = detail::runs_of_rule(rules[R - 1], m);
    const detail::row_run* runs = cut.first;
    const std::size_t run_count = cut.second;
    const auto in_stride = detail::row_major_strides(ie);
    const T fill = detail::fill_value<Kind, T>(n.params);
    parallel_for(size / m, threads_for(size), [&](std::size_t first, std::size_t last) {
      detail::for_rows(out_ext, first, last, [&](const std::array<std::size_t, R>& index, std::size_t r) {
        const T* row = in ? detail::source_row(rules, index, in, in_stride) : nullptr;
        detail::copy_runs(runs, run_count, row, out + r * m, fill);
      });
    });
  }
}

template <class Sig, class Kind, class G, class A, class Views, std::size_t R, class T>
void materialize(const graph::axis_map_gradient<Kind, G, A>& n, const Views& views, const extents<R>& out_ext, T* out) {
  const auto ge = graph::node_extents(n.g, staticflow::detail::extents_of_views(views));
  const std::size_t size = staticflow::detail::product(out_ext);
  if (size == 0) return;
  if (staticflow::detail::product(ge) == 0) {
    std::fill_n(out, size, T(0));
    return;
  }
  const T* g = detail::contiguous_operand<T, Sig>(n.g, views, ge);
  if constexpr (R == 0) {
    out[0] = g[0];
  } else {
    const auto rules = n.rules(out_ext);
    const auto g_stride = detail::row_major_strides(ge);
    // The last axis as passes of runs: pass k reads, for each element, its k-th reader (if it has
    // one); each combination of readers along the outer axes then adds pass after pass.
    const std::size_t n_inner = out_ext[R - 1];
    std::size_t passes = 0;
    for (std::size_t i = 0; i < n_inner; ++i) passes = std::max(passes, rules[R - 1].count(i));
    passes = std::max<std::size_t>(passes, 1);  // pass 0 writes the zeros of elements nobody read
    // pass k: for each element read more than k times, its k-th reader (runs counted, then cut)
    auto& arena = plan::arena::local();
    auto* first_run = static_cast<std::size_t*>(arena.allocate(sizeof(std::size_t) * (passes + 1)));
    const auto kth_of = [&](std::size_t k) {
      return [&rules, k](std::size_t i) {
        return k < rules[R - 1].count(i) ? static_cast<std::ptrdiff_t>(rules[R - 1].nth(i, k)) : std::ptrdiff_t{-1};
      };
    };
    first_run[0] = 0;
    for (std::size_t k = 0; k < passes; ++k) first_run[k + 1] = first_run[k] + detail::cut_into_runs(n_inner, kth_of(k), nullptr);
    auto* runs = static_cast<detail::row_run*>(arena.allocate(sizeof(detail::row_run) * first_run[passes]));
    for (std::size_t k = 0; k < passes; ++k) detail::cut_into_runs(n_inner, kth_of(k), runs + first_run[k]);
    parallel_for(size / n_inner, threads_for(std::max(size, ge[0] * g_stride[0])), [&](std::size_t first, std::size_t last) {
      detail::for_rows(out_ext, first, last, [&](const std::array<std::size_t, R>& index, std::size_t r) {
        T* to = out + r * n_inner;
        // every combination of readers along the outer axes, in row-major order
        std::array<std::size_t, R> counts{}, k{};
        for (std::size_t d = 0; d + 1 < R; ++d) {
          if ((counts[d] = rules[d].count(index[d])) == 0) {
            std::fill_n(to, n_inner, T(0));  // an element no result element read
            return;
          }
        }
        for (bool first_sum = true;; first_sum = false) {
          const T* g_row = g;
          for (std::size_t d = 0; d + 1 < R; ++d) g_row += rules[d].nth(index[d], k[d]) * g_stride[d];
          for (std::size_t pass = 0; pass < passes; ++pass)
            detail::accumulate_runs(runs + first_run[pass], first_run[pass + 1] - first_run[pass], g_row, to,
                                    first_sum && pass == 0);
          std::size_t d = R - 1;
          while (d-- > 0) {
            if (++k[d] < counts[d]) break;
            k[d] = 0;
          }
          if (d >= R) return;  // every combination done (d wrapped past 0)
        }
      });
    });
  }
}

}  // namespace staticflow::cpu
