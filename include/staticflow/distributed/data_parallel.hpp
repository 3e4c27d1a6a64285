// staticflow/distributed/data_parallel.hpp -- data-parallel training over a communicator (Horovod's
// recipe; tf.distribute.MultiWorkerMirroredStrategy; JAX's pmean of the gradients): every process
// holds the whole model, trains on its shard of each batch, and applies the same averaged
// gradients, so the replicas stay bit-for-bit identical.
//
//   sf::distributed::mpi comm;
//   sf::distributed::data_parallel dp{comm};
//   dp.broadcast_variables(w1, b1, w2, b2);            // rank 0's initial weights everywhere
//   auto x_shard = dp.shard(x), y_shard = dp.shard(y); // rows rank * n / size ... of the batch
//   auto step = sf::function([&](auto x, auto y) {
//     return dp.minimize(opt, loss_of(x, y), w1, b1, w2, b2);  // gradients + loss: one all-reduce
//   });
//
// minimize(opt, loss, vars...) computes the gradients and the loss from one plan, averages all of
// them across the processes in one collective per dtype (one flat buffer: tensor fusion), applies
// the averaged gradients with opt, and returns the averaged loss. With shards of equal size, the
// average of the shards' mean losses and of their gradients is the global batch's: the run
// follows the single-process run on the whole batch, up to the order of float additions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#include "staticflow/core/value_pack.hpp"
#include "staticflow/autodiff/backprop.hpp"
#include "staticflow/autodiff/gradients.hpp"
#include "staticflow/distributed/collectives.hpp"
#include "staticflow/distributed/communicator.hpp"
#include "staticflow/effects/variable.hpp"

namespace staticflow::distributed {
namespace detail {
template <class G> struct as_tuple_of {
  using type = std::tuple<G>;
  static std::tuple<G> make(const G& g) { return std::tuple<G>{g}; }
};
template <class... G> struct as_tuple_of<std::tuple<G...>> {
  using type = std::tuple<G...>;
  static const std::tuple<G...>& make(const std::tuple<G...>& g) { return g; }
};

/// Calls f with the storage of variable v as T* (T from its dtype name), under v's lock.
template <class F>
void with_variable_data(staticflow::detail::variable_base& v, F&& f) {
  std::lock_guard<std::mutex> hold(v.mutex());
  void* data = const_cast<void*>(v.raw_data());
  const std::string_view dtype = v.dtype_name();
  if (dtype == "float32") f(static_cast<float*>(data), v.size());
  else if (dtype == "float64") f(static_cast<double*>(data), v.size());
  else if (dtype == "int32") f(static_cast<std::int32_t*>(data), v.size());
  else if (dtype == "int64") f(static_cast<std::int64_t*>(data), v.size());
  else throw distributed_error("a " + v.spec_string() + " variable cannot be carried by a collective (float32, float64, int32, int64)");
}
}  // namespace detail

template <communicator Comm>
class data_parallel {
 public:
  explicit data_parallel(Comm& comm) : comm_(&comm) {}

  Comm& comm() const { return *comm_; }
  int rank() const { return comm_->rank(); }
  int size() const { return comm_->size(); }

  /// Outside a traced function: every variable gets process `root`'s contents (Horovod's
  /// broadcast_variables), one broadcast per variable. Call it once all processes have made their
  /// variables, before the first step.
  template <class... Var>
  void broadcast_variables(Var&... vars) {
    broadcast_variables_from(0, vars...);
  }
  template <class... Var>
  void broadcast_variables_from(int root, Var&... vars) {
    static_assert((std::is_base_of<staticflow::detail::variable_base, Var>::value && ...),
                  "staticflow: data_parallel::broadcast_variables(vars...): each argument must be an sf::variable");
    detail::check_root("sf::distributed::data_parallel::broadcast_variables", root, comm_->size());
    if (staticflow::detail::tracing())
      throw trace_error("data_parallel::broadcast_variables runs outside traced functions (call it once, before the first step)");
    (broadcast_one(vars, root), ...);
  }

  /// Outside a traced function: the optimizer's state (step count, learning rate, slots) from
  /// process `root`, for a run that resumes from rank 0's checkpoint. The slots must exist on every
  /// process (opt.build(vars...) makes them).
  template <class Opt>
  void broadcast_optimizer(Opt& opt, int root = 0) {
    detail::check_root("sf::distributed::data_parallel::broadcast_optimizer", root, comm_->size());
    broadcast_one(opt.iterations, root);
    broadcast_one(opt.learning_rate, root);
    opt.for_each_slot([&](const staticflow::detail::variable_base&, std::string_view, staticflow::detail::variable_base& slot) {
      broadcast_one(slot, root);
    });
  }

  /// Inside a traced function: the gradients (one tensor or a std::tuple, as a gradient tape
  /// returns them) averaged over the processes, in one collective per dtype.
  template <class Grads>
  auto average_gradients(const Grads& grads) {
    auto averaged = all_reduce(detail::as_tuple_of<Grads>::make(grads), *comm_, reduce_op::mean);
    if constexpr (is_tuple_v<Grads>) return averaged;
    else return staticflow::detail::get<0>(averaged);
  }

  /// Inside a traced function: opt.apply_gradients with the gradients averaged over the processes.
  template <class Opt, class Grads, class... Var>
  void apply_gradients(Opt& opt, const Grads& grads, Var&... vars) {
    opt.apply_gradients(average_gradients(grads), vars...);
  }

  /// Inside a traced function: the gradients of loss with respect to vars and the loss itself,
  /// computed from one plan and averaged over the processes in one collective per dtype; applies
  /// the averaged gradients with opt and returns the averaged loss (what the step returns).
  template <class Opt, class Loss, class... Var>
  auto minimize(Opt& opt, const Loss& loss, Var&... vars) {
    static_assert(symbolic<Loss>, "staticflow: data_parallel::minimize(opt, loss, vars...): loss must be a symbolic tensor");
    static_assert(sizeof...(Var) >= 1, "staticflow: data_parallel::minimize(opt, loss, vars...) needs at least one variable");
    if constexpr (symbolic<Loss>) {
      // the loss's materialized nodes tagged as the gradients' are (graph/shared.hpp): planned once
      const auto value = autodiff::detail::share_materialized<Loss, std::index_sequence<>>(loss);
      auto grads = detail::as_tuple_of<std::remove_cvref_t<decltype(gradients(loss, vars...))>>::make(gradients(loss, vars...));
      auto averaged = all_reduce(std::tuple_cat(grads, std::tuple{value}), *comm_, reduce_op::mean);
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        opt.apply_gradients(std::tuple{staticflow::detail::get<K>(averaged)...}, vars...);
      }(std::index_sequence_for<Var...>{});
      return staticflow::detail::get<sizeof...(Var)>(averaged);
    }
  }

  /// This process's share of a data set: the rows [rank * n / size, (rank + 1) * n / size) of x
  /// along axis 0 (np.array_split's split: shares differ by at most one row), as an
  /// xt::xtensor of x's rank. Shares of equal size (n divisible by size) keep minimize's averages
  /// equal to the whole batch's.
  template <class E>
  auto shard(const E& x) const {
    using T = std::remove_cv_t<typename E::value_type>;
    constexpr std::size_t R = std::tuple_size<std::remove_cvref_t<decltype(x.shape())>>::value;
    static_assert(R >= 1, "staticflow: data_parallel::shard(x): x needs an axis 0 to split");
    const std::size_t rows = static_cast<std::size_t>(x.shape()[0]);
    const std::size_t r = static_cast<std::size_t>(rank()), s = static_cast<std::size_t>(size());
    const std::size_t lo = r * rows / s, hi = (r + 1) * rows / s;
    xt::xtensor<T, R> share = xt::view(x, xt::range(lo, hi));
    return share;
  }

  /// Whether every process holds the same bits in every variable (checked on all of them by
  /// gathering each variable's contents; every process gets the same answer). Outside traced
  /// functions; a test of data-parallel training, not something a step needs.
  template <class... Var>
  bool replicas_identical(Var&... vars) {
    std::int32_t same = 1;
    (check_identical(vars, same), ...);
    in_engine_memory(&same, 1, true, [&](std::int32_t* p) { comm_->all_reduce(p, p, 1, reduce_op::min); });
    return same == 1;
  }

 private:
  template <class G> static constexpr bool is_tuple_v = staticflow::detail::is_tuple<G>::value;

  /// f(p) with p the `count` elements of host memory at `host` where the engine reads them: the
  /// same memory, or on a communicator of device buffers a device copy of them (copied back after
  /// f when write_back).
  template <class T, class F>
  void in_engine_memory(T* host, std::size_t count, bool write_back, F&& f) {
    if constexpr (device_buffers<Comm>) {
      static_assert(device_memory_communicator<Comm>,
                    "staticflow: data_parallel over a communicator of device buffers needs its allocate(bytes), "
                    "deallocate(p) and copy(to, from, bytes) (sf::distributed::nccl has them): variables live in host memory");
      if constexpr (device_memory_communicator<Comm>) {
        const auto staged = detail::collective_memory<T>(*comm_, count);
        comm_->copy(staged.get(), host, count * sizeof(T));
        f(staged.get());
        if (write_back) comm_->copy(host, staged.get(), count * sizeof(T));
      }
    } else {
      f(host);
    }
  }

  void broadcast_one(staticflow::detail::variable_base& v, int root) {
    detail::with_variable_data(v, [&](auto* data, std::size_t count) {
      in_engine_memory(data, count, true, [&](auto* p) { comm_->broadcast(p, count, root); });
    });
  }

  void check_identical(staticflow::detail::variable_base& v, std::int32_t& same) {
    detail::with_variable_data(v, [&](auto* data, std::size_t count) {
      using T = std::remove_pointer_t<decltype(data)>;
      std::vector<T> all(count * static_cast<std::size_t>(comm_->size()));
      in_engine_memory(data, count, false, [&](T* p) {
        in_engine_memory(all.data(), all.size(), true, [&](T* q) { comm_->all_gather(p, count, q); });
      });
      for (int p = 0; p < comm_->size(); ++p)
        if (count > 0 && std::memcmp(all.data() + static_cast<std::size_t>(p) * count, data, count * sizeof(T)) != 0) same = 0;
    });
  }

  Comm* comm_;
};

}  // namespace staticflow::distributed
