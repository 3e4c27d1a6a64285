// staticflow/distributed/communicator.hpp -- what a collective engine offers staticflow
// (tf.distribute's cross-device ops, jax.lax's psum / pmean / all_gather): the
// `sf::distributed::communicator` concept, the reduction operators, the error an engine's failure
// becomes, and `local`, the communicator of one process.
//
//   sf::distributed::local comm;                 // size 1: what a single-process program passes
//   sf::distributed::mpi comm;                   // distributed/mpi.hpp: MPI_COMM_WORLD's processes
//   auto y = sf::all_reduce(x, comm);            // distributed/collectives.hpp
//
// A communicator moves elements of the staticflow dtypes that collectives carry (float, double,
// int32, int64) between the processes of a group, each of which calls the same collectives in the
// same order with the same element counts (MPI's rule; a mismatch is the caller's error, which the
// engine may or may not detect). All members are blocking. `in == out` reduces in place.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace staticflow {

/// A collective that the engine (MPI, NCCL) reports as failed, with the engine's message; or a
/// collective called with arguments no engine accepts (a root outside the group).
struct distributed_error : std::runtime_error {
  explicit distributed_error(const std::string& what) : std::runtime_error("staticflow: " + what) {}
};

/// How sf::all_reduce combines the processes' values, element by element (TensorFlow's
/// tf.distribute.ReduceOp SUM / MEAN; JAX's psum, pmean, pmin, pmax).
enum class reduce_op { sum, mean, min, max };

/// "sum", "mean", "min", "max" (in messages and listings).
constexpr const char* reduce_op_name(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return "sum";
    case reduce_op::mean: return "mean";
    case reduce_op::min: return "min";
    case reduce_op::max: return "max";
  }
  return "?";
}

namespace distributed {

/// A group of processes that call collectives together. `rank()` is this process's index in
/// [0, size()). For each element type T of float, double, int32 and int64:
///  * `all_reduce(in, out, n, op)`: out[i] = op over the processes of in[i] (mean: the sum
///    divided by size(), in T's arithmetic); every process gets the same bits;
///  * `broadcast(data, n, root)`: data = root's data;
///  * `all_gather(in, n, out)`: out (size() * n elements) = the processes' `in`, by rank;
///  * `barrier()`: returns once every process has entered it.
template <class C>
concept communicator = requires(C& c, float* f, double* d, std::int32_t* i, std::int64_t* l, std::size_t count, int root) {
  { c.rank() } -> std::convertible_to<int>;
  { c.size() } -> std::convertible_to<int>;
  c.all_reduce(static_cast<const float*>(f), f, count, reduce_op::sum);
  c.all_reduce(static_cast<const double*>(d), d, count, reduce_op::sum);
  c.all_reduce(static_cast<const std::int32_t*>(i), i, count, reduce_op::sum);
  c.all_reduce(static_cast<const std::int64_t*>(l), l, count, reduce_op::sum);
  c.broadcast(f, count, root);
  c.broadcast(d, count, root);
  c.broadcast(i, count, root);
  c.broadcast(l, count, root);
  c.all_gather(static_cast<const float*>(f), count, f);
  c.all_gather(static_cast<const double*>(d), count, d);
  c.all_gather(static_cast<const std::int32_t*>(i), count, i);
  c.all_gather(static_cast<const std::int64_t*>(l), count, l);
  c.barrier();
};

/// Whether communicator C's buffers are device memory (sf::distributed::nccl, which says so with
/// `static constexpr bool device_buffers = true`).
template <class C>
inline constexpr bool device_buffers = requires { requires C::device_buffers; };

/// A communicator of device buffers that also manages them: `allocate(bytes)` / `deallocate(p)`
/// (device memory) and `copy(to, from, bytes)` (either side host or device memory, as
/// cudaMemcpyDefault). What a traced collective (its operands and results live on the device) and
/// data_parallel's variable broadcasts (variables live in host memory) need of it.
template <class C>
concept device_memory_communicator = communicator<C> && device_buffers<C> && requires(C& c, void* p, const void* q, std::size_t n) {
  { c.allocate(n) } -> std::same_as<void*>;
  c.deallocate(p);
  c.copy(p, q, n);
};

namespace detail {
/// The element types collectives carry.
template <class T>
inline constexpr bool collective_dtype = std::is_same<T, float>::value || std::is_same<T, double>::value ||
                                         std::is_same<T, std::int32_t>::value || std::is_same<T, std::int64_t>::value;

/// Throws distributed_error unless root names a process of a group of `size`.
inline void check_root(const char* what, int root, int size) {
  if (root < 0 || root >= size)
    throw distributed_error(std::string(what) + ": root " + std::to_string(root) + " is not a rank of a group of " +
                            std::to_string(size) + " process" + (size == 1 ? "" : "es"));
}
}  // namespace detail

/// The communicator of a single process (rank 0 of 1): every collective returns its input. What a
/// program written for many processes runs with on one, without an engine.
class local {
 public:
  int rank() const { return 0; }
  int size() const { return 1; }

  template <class T>
    requires detail::collective_dtype<T>
  void all_reduce(const T* in, T* out, std::size_t count, reduce_op) {
    if (in != out) std::copy_n(in, count, out);
  }
  template <class T>
    requires detail::collective_dtype<T>
  void broadcast(T*, std::size_t, int root) {
    detail::check_root("sf::distributed::local::broadcast", root, 1);
  }
  template <class T>
    requires detail::collective_dtype<T>
  void all_gather(const T* in, std::size_t count, T* out) {
    if (in != out) std::copy_n(in, count, out);
  }
  void barrier() {}
};

static_assert(communicator<local>);

}  // namespace distributed
}  // namespace staticflow
