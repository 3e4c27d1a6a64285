// staticflow/distributed/collectives.hpp -- sf::all_reduce, sf::broadcast and sf::all_gather over an
// sf::distributed::communicator: inside a traced function as effects in program order, outside as
// plain calls (JAX's psum / pmean / all_gather, tf.distribute's all_reduce).
//
//   auto step = sf::function([&](auto x, auto y) {
//     sf::gradient_tape tape;
//     auto loss = loss_of(x, y);
//     auto grads = sf::all_reduce(tape.gradient(loss, w, b), comm, sf::reduce_op::mean);  // one collective
//     opt.apply_gradients(grads, w, b);
//     return sf::all_reduce(loss, comm, sf::reduce_op::mean);
//   });
//   xt::xtensor<float, 1> total = sf::all_reduce(local_counts, comm);  // outside: now
//
// Inside a traced function a collective is an effect (effects/recorder.hpp): recorded where the
// lambda calls it, run on every call in program order with the other effects, before the outputs
// are computed. It evaluates its operand graphs (a std::tuple of them: all from one plan) into
// buffers of its own, runs the collective there, and returns external leaves that read those
// buffers: what comes after it in the program (an optimizer's updates, the function's results)
// reads the combined values. A std::tuple is one bucket: one collective per dtype it holds, not one
// per tensor (Horovod's tensor fusion). Every process must call its collectives in the same order
// with the same shapes, as every MPI program must: one traced function run on every rank does.
//
// The results are constants to gradients (tf.stop_gradient): differentiate first, then combine,
// as data-parallel training does. Like every effect, they run in loop bodies and cond branches, and
// on the backend the function is traced for (effects/evaluator.hpp: on Thrust, its kernels
// evaluate the operands into the host buffers the engine combines). Over a communicator of device
// buffers (sf::distributed::nccl) a collective is traced for sf::backend::thrust (a trace_error
// otherwise): the kernels evaluate the operands into its device memory, a device tensor argument
// is read where it is, and what follows reads the results there.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/value_pack.hpp"
#include "staticflow/distributed/communicator.hpp"
#include "staticflow/effects/evaluator.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/interop/tensor.hpp"

namespace staticflow {
namespace distributed::detail {

enum class collective_kind { all_reduce, broadcast, all_gather };

constexpr const char* collective_name(collective_kind k) {
  return k == collective_kind::all_reduce ? "sf::all_reduce" : k == collective_kind::broadcast ? "sf::broadcast" : "sf::all_gather";
}

/// The shape of a collective's result for an operand of shape S: S, or for all_gather the
/// processes' values stacked along axis 0, whose extent is known at run time (a scalar gathers
/// into a vector).
template <collective_kind Kind, class S>
struct collective_shape {
  using type = S;
};
template <std::size_t D0, std::size_t... D>
struct collective_shape<collective_kind::all_gather, shape<D0, D...>> {
  using type = shape<dyn, D...>;
};
template <>
struct collective_shape<collective_kind::all_gather, shape<>> {
  using type = shape<dyn>;
};

/// Elements of T in memory a collective's engine reads: host memory, or a communicator's device
/// memory (device_memory_communicator).
template <class T, class Comm>
std::shared_ptr<T> collective_memory(Comm& comm, std::size_t count) {
  if (count == 0) count = 1;
  if constexpr (device_buffers<Comm>) {
    static_assert(device_memory_communicator<Comm>);
    return std::shared_ptr<T>(static_cast<T*>(comm.allocate(sizeof(T) * count)), [c = &comm](T* p) { c->deallocate(p); });
  } else {
    return std::shared_ptr<T>(new T[count], std::default_delete<T[]>());
  }
}

/// A buffer that grows to the largest count asked of it (allocate: collective_memory's).
template <class T>
struct scratch {
  std::shared_ptr<T> data;
  std::size_t capacity = 0, size = 0;
  template <class Allocate>
  T* resize(std::size_t count, Allocate&& allocate) {
    if (!data || count > capacity) data = allocate(count), capacity = count;
    size = count;
    return data.get();
  }
};

/// Where one result of a collective lives between calls: the buffer its external leaf reads
/// (device memory, which a device kernel reads where it is, on a communicator of device buffers).
template <class T, std::size_t R>
struct collective_result {
  using value_type = T;
  scratch<T> buffer;
  std::function<std::shared_ptr<T>(std::size_t)> allocate;  // set by the effect
  const void* data_pointer = nullptr;
  std::array<std::size_t, R == 0 ? 1 : R> ext{};
  graph::external_source source;

  explicit collective_result(const char* label) : source{&data_pointer, ext.data(), label, nullptr} {}
  collective_result(const collective_result&) = delete;
  collective_result& operator=(const collective_result&) = delete;

  T* get() const { return buffer.data.get(); }
  T* reserve(std::size_t count) {
    T* p = buffer.resize(count, allocate);
    data_pointer = p;
    return p;
  }
  template <std::size_t Rank>
  T* reserve(const extents<Rank>& e) {
    for (std::size_t d = 0; d < Rank; ++d) ext[d] = e[d];
    return reserve(staticflow::detail::product(e));
  }
  /// For all_gather: `processes` operands of extents e stacked along axis 0 (a scalar's: a vector).
  template <std::size_t Rank>
  T* reserve_gathered(const extents<Rank>& e, std::size_t processes) {
    ext[0] = processes;
    if constexpr (Rank > 0) ext[0] *= e[0];
    for (std::size_t d = 1; d < Rank; ++d) ext[d] = e[d];
    return reserve(processes * staticflow::detail::product(e));
  }
};

template <collective_kind Kind, class G>
using result_of = collective_result<typename G::value_type, collective_shape<Kind, typename G::shape_type>::type::rank>;

/// The recorded collective over graphs G...: evaluates them (one plan), runs one collective per
/// dtype (a bucket), leaves the values in the results. On a communicator of device buffers the
/// graphs are the Thrust kernels' (record_collective checks), evaluated into its device memory.
template <class Comm, collective_kind Kind, class... G>
class collective_effect final : public staticflow::detail::effect {
  static constexpr bool on_device_memory = device_buffers<Comm>;

 public:
  using results_type = std::tuple<result_of<Kind, G>...>;

  collective_effect(Comm& comm, reduce_op op, int root, std::shared_ptr<results_type> results, const G&... g)
      : comm_(&comm), op_(op), root_(root), results_(std::move(results)), graphs_(g...), leaves_(g...) {
    staticflow::detail::apply([&](auto&... r) {
      ((r.allocate = [c = comm_](std::size_t elements) { return collective_memory<typename std::remove_cvref_t<decltype(r)>::value_type>(*c, elements); },
        r.source.device_memory = on_device_memory), ...);
    }, *results_);
  }

  void run(staticflow::detail::erased_args args) override {
    if constexpr (reads_in_place) {
      using N = std::tuple_element_t<0, std::tuple<G...>>;
      // A Thrust call's argument may lie in device memory a host engine cannot read (CUDA): it is
      // evaluated into a host buffer as any operand. A device engine reads a device tensor
      // argument where it is, and nothing else (variables are host memory).
      if (on_device_memory ? graph::detail::is_argument<N>::value && N::shape_type::rank > 0
                           : !graph::detail::is_argument<N>::value || !graphs_.on_device()) {
        read_in_place(args);
        return;
      }
    }
    evaluate_and_combine(args);
  }

 private:
  /// The operand is a value that already lies where the engine reads: it reads it there.
  void read_in_place(staticflow::detail::erased_args args) {
    if constexpr (reads_in_place) {
      using N = std::tuple_element_t<0, std::tuple<G...>>;
      using T = typename N::value_type;
      constexpr std::size_t R = N::shape_type::rank;
      const T* source = nullptr;
      extents<R> ext{};
      if constexpr (graph::detail::is_argument<N>::value) {
        source = static_cast<const T*>(args[N::index].data);
        for (std::size_t d = 0; d < R; ++d) ext[d] = args[N::index].ext[d];
      } else {
        source = staticflow::detail::get<0>(leaves_).data();
        ext = staticflow::detail::get<0>(leaves_).result_extents();
      }
      const std::size_t count = staticflow::detail::product(ext);
      auto& result = staticflow::detail::get<0>(*results_);
      if constexpr (Kind == collective_kind::all_gather) {
        comm_->all_gather(source, count, result.reserve_gathered(ext, static_cast<std::size_t>(comm_->size())));
      } else {
        comm_->all_reduce(source, result.reserve(ext), count, op_);
      }
    }
  }

  /// The graphs' values written where target(k, ext) says: host memory, or on a communicator of
  /// device buffers its device memory (the Thrust kernels write there).
  template <class Target>
  void evaluate(staticflow::detail::erased_args args, Target&& target) {
    if constexpr (on_device_memory) graphs_.run_on_device(args, std::forward<Target>(target));
    else graphs_.run(args, std::forward<Target>(target));
  }

  /// The operands evaluated into buffers (one plan), then one collective per dtype.
  void evaluate_and_combine(staticflow::detail::erased_args args) {
    if constexpr (Kind == collective_kind::all_gather) {
      const std::size_t processes = static_cast<std::size_t>(comm_->size());
      evaluate(args, [&]<std::size_t K>(std::integral_constant<std::size_t, K>, const auto& ext) {
        using T = typename std::tuple_element_t<K, std::tuple<G...>>::value_type;
        staticflow::detail::get<K>(*results_).reserve_gathered(ext, processes);
        return staticflow::detail::get<K>(staging_).resize(staticflow::detail::product(ext), [&](std::size_t elements) { return collective_memory<T>(*comm_, elements); });
      });
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (comm_->all_gather(staticflow::detail::get<K>(staging_).data.get(), staticflow::detail::get<K>(staging_).size, staticflow::detail::get<K>(*results_).get()), ...);
      }(std::index_sequence_for<G...>{});
    } else {
      evaluate(args, [&]<std::size_t K>(std::integral_constant<std::size_t, K>, const auto& ext) {
        return staticflow::detail::get<K>(*results_).reserve(ext);
      });
      combine_bucket<float>();
      combine_bucket<double>();
      combine_bucket<std::int32_t>();
      combine_bucket<std::int64_t>();
    }
  }

  /// The results of dtype T as one collective: in place for one, through a flat buffer for more.
  template <class T>
  void combine_bucket() {
    constexpr std::size_t tensors = (std::size_t{std::is_same<typename G::value_type, T>::value} + ... + 0);
    if constexpr (tensors == 1) {
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (one_of<T, K>(), ...);
      }(std::index_sequence_for<G...>{});
    } else if constexpr (tensors > 1) {
      std::size_t total = 0;
      for_each_of<T>([&](auto& r, std::size_t count) { (void)r, total += count; });
      T* flat = std::get<scratch<T>>(flat_).resize(total, [&](std::size_t elements) { return collective_memory<T>(*comm_, elements); });
      std::size_t at = 0;
      for_each_of<T>([&](auto& r, std::size_t count) { copy(flat + at, r.get(), count), at += count; });
      collective(flat, total);
      at = 0;
      for_each_of<T>([&](auto& r, std::size_t count) { copy(r.get(), flat + at, count), at += count; });
    }
  }
  template <class T>
  void copy(T* to, const T* from, std::size_t count) {
    if constexpr (on_device_memory) comm_->copy(to, from, count * sizeof(T));
    else std::copy_n(from, count, to);
  }
  template <class T, std::size_t K>
  void one_of() {
    if constexpr (std::is_same<typename std::tuple_element_t<K, std::tuple<G...>>::value_type, T>::value)
      collective(staticflow::detail::get<K>(*results_).get(), element_count<K>());
  }
  template <class T, class F>
  void for_each_of(F&& f) {
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ([&] {
        if constexpr (std::is_same<typename std::tuple_element_t<K, std::tuple<G...>>::value_type, T>::value)
          f(staticflow::detail::get<K>(*results_), element_count<K>());
      }(), ...);
    }(std::index_sequence_for<G...>{});
  }
  template <std::size_t K>
  std::size_t element_count() const {
    constexpr std::size_t R = std::tuple_element_t<K, std::tuple<G...>>::shape_type::rank;
    std::size_t count = 1;
    for (std::size_t d = 0; d < R; ++d) count *= staticflow::detail::get<K>(*results_).ext[d];
    return count;
  }
  template <class T>
  void collective(T* data, std::size_t count) {
    if constexpr (Kind == collective_kind::all_reduce) comm_->all_reduce(data, data, count, op_);
    else comm_->broadcast(data, count, root_);
  }

  /// One operand that is an argument or an external value (a variable, another collective's
  /// result): all_reduce and all_gather read it where it is, without evaluating it into a buffer.
  static constexpr bool reads_in_place = [] {
    if constexpr (sizeof...(G) != 1 || Kind == collective_kind::broadcast) {
      return false;
    } else {
      using N = std::tuple_element_t<0, std::tuple<G...>>;
      return graph::detail::is_argument<N>::value || staticflow::detail::effect_graphs::is_external<N>::value;
    }
  }();

  Comm* comm_;
  reduce_op op_;
  int root_;
  std::shared_ptr<results_type> results_;
  staticflow::detail::effect_evaluator<G...> graphs_;  // for the backend the function is traced for
  std::tuple<G...> leaves_;  // the operand, read in place when reads_in_place
  std::tuple<scratch<typename G::value_type>...> staging_;  // all_gather's operands
  std::tuple<scratch<float>, scratch<double>, scratch<std::int32_t>, scratch<std::int64_t>> flat_;
};

/// The static check of the communicator: a template of Comm alone, so that a lambda traced and
/// run eagerly (two operand types) reports a wrong communicator once.
template <class Comm>
constexpr bool check_communicator() {
  constexpr bool is_comm = communicator<Comm>;
  static_assert(is_comm, "staticflow: sf::all_reduce / sf::broadcast / sf::all_gather: the communicator argument must "
                         "model sf::distributed::communicator (sf::distributed::local, sf::distributed::mpi, ...)");
  return is_comm;
}

/// Inside a traced function, a communicator of device buffers must manage them (allocate,
/// deallocate, copy: device_memory_communicator), as one report per communicator type.
template <class Comm>
constexpr bool check_traced_communicator() {
  constexpr bool ok = !device_buffers<Comm> || device_memory_communicator<Comm>;
  static_assert(ok, "staticflow: a collective inside a traced function over a communicator of device buffers needs "
                    "its allocate(bytes), deallocate(p) and copy(to, from, bytes) (sf::distributed::nccl has them): "
                    "the operands and results live in its device memory");
  return ok;
}

/// The dtypes of the operand type X, a std::tuple of them (none for a value outside a trace,
/// checked when combined).
template <class X>
struct operand_dtypes {
  using type = std::tuple<>;
};
template <class X>
  requires staticflow::detail::tensor_operand<X>
struct operand_dtypes<X> {
  using type = std::tuple<typename X::value_type>;
};
template <class... E>
struct operand_dtypes<std::tuple<E...>> {
  using type = decltype(std::tuple_cat(std::declval<typename operand_dtypes<E>::type>()...));
};

/// The dtype check, a template of the dtypes alone (one report, as check_communicator).
template <class... T>
constexpr bool check_carried(std::type_identity<std::tuple<T...>>) {
  constexpr bool carried = (collective_dtype<T> && ...);
  static_assert(carried, "staticflow: a collective (sf::all_reduce, sf::broadcast, sf::all_gather) carries float32, "
                         "float64, int32 and int64 tensors; cast a bool tensor with sf::cast<int>(x) first");
  return carried;
}

/// The static checks every collective makes of its operand type X and communicator Comm.
template <class Comm, class X>
constexpr bool check_operands() {
  constexpr bool is_comm = check_communicator<Comm>();
  constexpr bool carried = check_carried(std::type_identity<typename operand_dtypes<X>::type>{});
  return is_comm && carried;
}

/// Records the collective over the symbolic tensors xs... and returns the external leaves of
/// its results, in a std::tuple.
template <collective_kind Kind, class Comm, class... X>
auto record_collective(Comm& comm, reduce_op op, int root, const X&... xs) {
  using effect_type = collective_effect<Comm, Kind, X...>;
  if (device_buffers<Comm> && !staticflow::detail::trace_local().for_device)
    throw trace_error(std::string(collective_name(Kind)) + ": this communicator combines device memory (sf::distributed::nccl): "
                      "trace the function for sf::backend::thrust, whose kernels write there");
  constexpr const char* label =
      Kind == collective_kind::all_reduce ? "all_reduce" : Kind == collective_kind::broadcast ? "broadcast" : "all_gather";
  auto results = std::make_shared<typename effect_type::results_type>(((void)sizeof(X), label)...);
  auto& program = staticflow::detail::traced_program(collective_name(Kind));
  program.resources.push_back(results);  // an eager call drops the effect once it has run
  auto effect = std::make_unique<effect_type>(comm, op, root, results, xs...);
  staticflow::detail::record_effect(std::move(effect), collective_name(Kind));
  return [&]<std::size_t... K>(std::index_sequence<K...>) {
    return std::tuple{graph::external<typename X::value_type, typename collective_shape<Kind, typename X::shape_type>::type>(
        &staticflow::detail::get<K>(*results).source)...};
  }(std::index_sequence_for<X...>{});
}

/// The traced collective of one operand (a tensor or a variable) or a std::tuple of them.
template <collective_kind Kind, class Comm, class X>
auto traced_collective(Comm& comm, reduce_op op, int root, const X& x) {
  if constexpr (!check_traced_communicator<Comm>()) {
    return x;  // (the static_assert said why; nothing else follows from it)
  } else if constexpr (staticflow::detail::is_tuple<X>::value) {
    return staticflow::detail::apply([&](const auto&... xs) {
      return record_collective<Kind>(comm, op, root, staticflow::detail::as_node<void>(xs)...);
    }, x);
  } else {
    return staticflow::detail::get<0>(record_collective<Kind>(comm, op, root, staticflow::detail::as_node<void>(x)));
  }
}

/// A value outside a traced function: the collective now, into a new value of the same kind (a
/// number, an xtensor container, an sf::tensor; an xtensor expression becomes an xt::xarray).
template <collective_kind Kind, class Comm, class T>
void combine_now(Comm& comm, reduce_op op, int root, const T* in, std::size_t count, T* out) {
  if constexpr (Kind == collective_kind::all_reduce) {
    comm.all_reduce(in, out, count, op);
  } else if constexpr (Kind == collective_kind::broadcast) {
    if (in != out) std::copy_n(in, count, out);
    comm.broadcast(out, count, root);
  } else {
    comm.all_gather(in, count, out);
  }
}

template <collective_kind Kind, class Comm, class X>
auto collective_now(Comm& comm, reduce_op op, int root, const X& x) {
  if constexpr (std::is_arithmetic<X>::value) {
    using T = canonical_dtype_t<X>;
    static_assert(collective_dtype<T>, "staticflow: a collective carries float32, float64, int32 and int64 values");
    T in = static_cast<T>(x);
    if constexpr (Kind == collective_kind::all_gather) {
      xt::xtensor<T, 1> out = xt::xtensor<T, 1>::from_shape({static_cast<std::size_t>(comm.size())});
      combine_now<Kind>(comm, op, root, &in, 1, out.data());
      return out;
    } else {
      T out{};
      combine_now<Kind>(comm, op, root, &in, 1, &out);
      return out;
    }
  } else if constexpr (std::is_same<X, tensor>::value) {
    return x.visit([&]<class T>(const T* data) -> tensor {
      if constexpr (!collective_dtype<T>) {
        throw distributed_error(std::string(collective_name(Kind)) + ": a " + x.spec_string() +
                                " cannot be carried; cast it to int32 first");
      } else {
        std::vector<std::size_t> shape(x.shape().begin(), x.shape().end());
        if (Kind == collective_kind::all_gather) {
          if (shape.empty()) shape.push_back(1);
          shape[0] *= static_cast<std::size_t>(comm.size());
        }
        auto out = xt::xarray<T>::from_shape(shape);
        combine_now<Kind>(comm, op, root, data, x.size(), out.data());
        return tensor(std::move(out));
      }
    });
  } else {
    using T = std::remove_cv_t<typename X::value_type>;
    static_assert(collective_dtype<T>, "staticflow: a collective carries float32, float64, int32 and int64 values");
    const auto& in = xt::eval(x);  // x itself when it is a container; else x evaluated into one
    if constexpr (Kind == collective_kind::all_gather) {
      std::vector<std::size_t> shape(in.shape().begin(), in.shape().end());
      if (shape.empty()) shape.push_back(1);
      shape[0] *= static_cast<std::size_t>(comm.size());
      xt::xarray<T> out = xt::xarray<T>::from_shape(shape);
      combine_now<Kind>(comm, op, root, in.data(), in.size(), out.data());
      return out;
    } else {
      auto out = std::decay_t<decltype(in)>::from_shape(in.shape());
      combine_now<Kind>(comm, op, root, in.data(), in.size(), out.data());
      return out;
    }
  }
}

/// "(2, 3)", "(4,)", "()" (Python's tuple, as shape errors write shapes).
template <class Shape>
std::string shape_text(const Shape& shape) {
  std::string text = "(";
  std::size_t d = 0;
  for (auto extent : shape) text += (d++ ? ", " : "") + std::to_string(extent);
  return text + (d == 1 ? ",)" : ")");
}

template <collective_kind Kind, class Comm, class X>
auto collective(Comm& comm, reduce_op op, int root, const X& x) {
  if constexpr (!check_operands<Comm, X>()) {
    // the static_assert said why; its operand goes on unchanged, so no error follows from it
    if constexpr (staticflow::detail::tensor_operand<X>) return staticflow::detail::as_node<void>(x);
    else return x;
  } else if constexpr (staticflow::detail::tensor_operand<X> || staticflow::detail::is_tuple<X>::value) {
    // a variable is read at this point of the trace (outside one, pass its value())
    return traced_collective<Kind>(comm, op, root, x);
  } else {
    return collective_now<Kind>(comm, op, root, x);
  }
}
}  // namespace distributed::detail

/// The element-wise reduction (op: sum by default, mean, min, max) of x over the processes of
/// comm: every process gets the result. x is a symbolic tensor, an sf::variable (read at this
/// point of a trace) or a std::tuple of them inside a traced function (one collective per dtype);
/// outside one, a number, an xtensor expression or an sf::tensor.
template <class X, class Comm>
auto all_reduce(const X& x, Comm& comm, reduce_op op = reduce_op::sum) {
  return distributed::detail::collective<distributed::detail::collective_kind::all_reduce>(comm, op, 0, x);
}

/// Outside traced functions: the reduction of container x over the processes written into the
/// container out (x's dtype and shape; out may be x itself), which the caller keeps between
/// calls: no allocation (what call_into is to a function call).
template <class Out, class X, class Comm>
void all_reduce_into(Out& out, const X& x, Comm& comm, reduce_op op = reduce_op::sum) {
  static_assert(distributed::communicator<Comm>,
                "staticflow: sf::all_reduce_into(out, x, comm): comm must model sf::distributed::communicator");
  using T = std::remove_cv_t<typename X::value_type>;
  static_assert(std::is_same<typename Out::value_type, T>::value && distributed::detail::collective_dtype<T>,
                "staticflow: sf::all_reduce_into(out, x, comm): out and x need one dtype of float32, float64, int32, int64");
  const auto& in = xt::eval(x);
  if (!std::equal(in.shape().begin(), in.shape().end(), out.shape().begin(), out.shape().end()))
    throw shape_error("sf::all_reduce_into: out has shape " + distributed::detail::shape_text(out.shape()) + ", x has shape " +
                      distributed::detail::shape_text(in.shape()));
  comm.all_reduce(in.data(), out.data(), in.size(), op);
}

/// Process `root`'s x, on every process (x has the same shape everywhere).
template <class X, class Comm>
auto broadcast(const X& x, Comm& comm, int root = 0) {
  if constexpr (distributed::communicator<Comm>) distributed::detail::check_root("sf::broadcast", root, comm.size());
  return distributed::detail::collective<distributed::detail::collective_kind::broadcast>(comm, reduce_op::sum, root, x);
}

/// The processes' x stacked along axis 0 by rank (a scalar: a vector of size() elements).
template <class X, class Comm>
auto all_gather(const X& x, Comm& comm) {
  return distributed::detail::collective<distributed::detail::collective_kind::all_gather>(comm, reduce_op::sum, 0, x);
}

}  // namespace staticflow
