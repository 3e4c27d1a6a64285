// staticflow/effects/print.hpp -- sf::print: tf.print. Inside a traced function it prints on
// every call, in program order with the other effects; plain `std::cout` in the lambda runs only
// while tracing (as Python's print does in a tf.function).
//
//   sf::print("x =", x, "sum:", sf::reduce_sum(x));   // x = [1 2 3] sum: 6
//
// Tensors are formatted as tf.print formats them: `[1 2 3]`, `[[1 2]\n [3 4]]`, at most
// `summarize` (default 3) elements at each end of an axis (`[0 1 2 ... 7 8 9]`), floats with the
// fewest of 6 or 9 significant digits (15 or 17 for float64) that read back to the same value,
// bools as True / False. Output goes to std::cerr, like tf.print's default `sys.stderr`, unless
// an `sf::output_stream(os)` argument says otherwise.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "staticflow/core/dtype.hpp"
#include "staticflow/effects/evaluator.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/operators.hpp"

namespace staticflow {

/// Where sf::print writes (tf.print's output_stream); default std::cerr.
struct output_stream {
  std::ostream* stream;
  explicit output_stream(std::ostream& os) : stream(&os) {}
};
/// How many elements sf::print shows at each end of an axis (tf.print's summarize; -1: all).
struct summarize {
  long count;
  explicit summarize(long n) : count(n) {}
};

namespace detail {

/// One element as tf.print writes it.
template <class T>
std::string format_element(T v) {
  if constexpr (std::is_same<T, bool>::value) {
    return v ? "True" : "False";
  } else if constexpr (std::is_integral<T>::value) {
    return std::to_string(v);
  } else {
    // the shorter of two precisions that reads back exactly (TensorFlow's FloatToBuffer)
    constexpr int short_digits = std::is_same<T, float>::value ? 6 : 15;
    constexpr int long_digits = std::is_same<T, float>::value ? 9 : 17;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", short_digits, static_cast<double>(v));
    const T back = static_cast<T>(std::strtod(buf, nullptr));
    if (!(back == v) && v == v) std::snprintf(buf, sizeof buf, "%.*g", long_digits, static_cast<double>(v));
    if (v != v) return "nan";
    return buf;
  }
}

/// Tensor `data` of extents ext[0..rank) as tf.print writes it (strings as an eager tf.Tensor
/// shows them, b'...', with `bytes_repr`).
template <class T>
void format_tensor(std::string& out, const T* data, const std::size_t* ext, std::size_t rank, long summarize_count,
                   std::size_t depth = 0, bool bytes_repr = false) {
  if (rank == 0) {
    if constexpr (string_dtype<T>) {
      if (bytes_repr) out += "b'", out += data->view(), out += '\'';
      else if (depth == 0) out += data->view();  // tf.print writes a string scalar as it is
      else out += '"', out += data->view(), out += '"';  // and the elements of a string tensor quoted
    } else {
      out += format_element(*data);
    }
    return;
  }
  std::size_t inner = 1;
  for (std::size_t d = 1; d < rank; ++d) inner *= ext[d];
  const std::size_t n = ext[0];
  const bool elide = summarize_count >= 0 && n > 2 * static_cast<std::size_t>(summarize_count);
  const std::size_t head = elide ? static_cast<std::size_t>(summarize_count) : n;
  out += '[';
  auto separator = [&] {
    if (rank == 1) {
      out += ' ';
    } else {
      out.append(rank - 1, '\n');
      out.append(depth + 1, ' ');
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (elide && i == head) {
      separator();
      out += "...";
      i = n - static_cast<std::size_t>(summarize_count);
    }
    if (i > 0) separator();
    format_tensor(out, data + i * inner, ext + 1, rank - 1, summarize_count, depth + 1, bytes_repr);
  }
  out += ']';
}

/// One argument of a print: fixed text, or a tensor evaluated on every call.
struct print_part {
  virtual ~print_part() = default;
  virtual void append(std::string& out, erased_args args, long summarize_count) = 0;
};
struct text_part final : print_part {
  std::string text;
  explicit text_part(std::string t) : text(std::move(t)) {}
  void append(std::string& out, erased_args, long) override { out += text; }
};
template <class G>
struct tensor_part final : print_part {
  using T = typename G::value_type;
  static constexpr std::size_t R = G::shape_type::rank;
  effect_evaluator<G> graph;
  std::unique_ptr<T[]> buffer;
  std::size_t capacity = 0;
  extents<R> ext{};
  explicit tensor_part(const G& g) : graph(g) {}
  void append(std::string& out, erased_args args, long summarize_count) override {
    graph.run(args, [&](const extents<R>& e) {
      const std::size_t n = staticflow::detail::product(e);
      if (n > capacity) buffer.reset(new T[n]), capacity = n;
      ext = e;
      return buffer.get();
    });
    format_tensor(out, buffer.get(), ext.data(), R, summarize_count);
  }
};

class print_effect final : public effect {
 public:
  std::vector<std::unique_ptr<print_part>> parts;
  std::ostream* stream = nullptr;  // null: std::cerr when printing
  long summarize_count = 3;

  void run(erased_args args) override {
    std::string line;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (k) line += ' ';
      parts[k]->append(line, args, summarize_count);
    }
    line += '\n';
    std::ostream& os = stream ? *stream : std::cerr;
    os << line;
    os.flush();
  }
};

template <class A>
void add_print_argument(print_effect& p, const A& a) {
  if constexpr (std::is_same<A, output_stream>::value) {
    p.stream = a.stream;
  } else if constexpr (std::is_same<A, summarize>::value) {
    p.summarize_count = a.count;
  } else if constexpr (std::is_convertible<const A&, std::string_view>::value) {
    p.parts.push_back(std::make_unique<text_part>(std::string(std::string_view(a))));
  } else if constexpr (tensor_operand<A>) {
    const auto node = as_node<void>(a);
    p.parts.push_back(std::make_unique<tensor_part<std::remove_cvref_t<decltype(node)>>>(node));
  } else if constexpr (std::is_arithmetic<A>::value) {
    p.parts.push_back(std::make_unique<text_part>(format_element(canonical_dtype_t<A>(a))));
  } else {
    static_assert(always_false<A>,
                  "staticflow: sf::print takes symbolic tensors, variables, strings, C++ numbers, "
                  "sf::output_stream(os) and sf::summarize(n)");
  }
}
}  // namespace detail

/// tf.print: inside a traced function, prints its arguments (separated by spaces, then a
/// newline) on every call; outside one, prints them now.
template <class... A>
void print(const A&... args) {
  auto p = std::make_unique<detail::print_effect>();
  (detail::add_print_argument(*p, args), ...);
  if (detail::tracing()) detail::record_effect(std::move(p), "sf::print");
  else p->run(nullptr);  // only text and numbers can be printed outside a function
}

}  // namespace staticflow
