// staticflow/distributed/mpi.hpp -- the MPI communicator (opt-in: include this header and link the
// CMake target staticflow::mpi, which adds MPI::MPI_CXX). Data-parallel training across the
// processes of one machine or many, launched by `mpirun` / `srun` (docs/distributed.md).
//
//   int main(int argc, char** argv) {
//     sf::distributed::mpi_environment env(argc, argv);   // MPI_Init_thread ... MPI_Finalize
//     return env.run([&] {                                // an exception on any rank stops every rank
//       sf::distributed::mpi comm;                        // MPI_COMM_WORLD, duplicated
//       ...
//       return 0;
//     });
//   }
//
// The communicator works on its own duplicate of the given MPI communicator (so staticflow's
// collectives never match the program's own messages) with MPI_ERRORS_RETURN: a failed call
// throws sf::distributed_error with MPI's message instead of aborting. Calls are serialized by
// one process-wide lock (staticflow asks MPI for MPI_THREAD_SERIALIZED), so functions called
// from several threads may hold collectives; their order must still be the same on every rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

// only MPI's C interface: Open MPI's deprecated C++ bindings (which mpi.h includes by default)
// warn under -Wextra, and MPICH's need a library of their own
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include "staticflow/distributed/communicator.hpp"

namespace staticflow::distributed {
namespace detail {
/// One lock for every MPI call staticflow makes (MPI_THREAD_SERIALIZED).
inline std::mutex& mpi_lock() {
  static std::mutex m;
  return m;
}

/// Throws distributed_error naming the call and MPI's error class and message unless rc is
/// MPI_SUCCESS.
inline void mpi_check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(rc, text, &length);
  int error_class = 0;
  MPI_Error_class(rc, &error_class);
  char class_text[MPI_MAX_ERROR_STRING] = {};
  int class_length = 0;
  MPI_Error_string(error_class, class_text, &class_length);
  std::string what = std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length));
  if (error_class != rc) what += " (" + std::string(class_text, static_cast<std::size_t>(class_length)) + ")";
  throw distributed_error(what);
}

template <class T>
MPI_Datatype mpi_datatype() {
  if constexpr (std::is_same<T, float>::value) return MPI_FLOAT;
  else if constexpr (std::is_same<T, double>::value) return MPI_DOUBLE;
  else if constexpr (std::is_same<T, std::int32_t>::value) return MPI_INT32_T;
  else return MPI_INT64_T;
}

inline MPI_Op mpi_op(reduce_op op) {
  switch (op) {
    case reduce_op::min: return MPI_MIN;
    case reduce_op::max: return MPI_MAX;
    default: return MPI_SUM;  // mean: the sum, divided afterwards
  }
}

/// MPI counts are int: longer buffers go in pieces of at most this many elements.
inline constexpr std::size_t mpi_max_count = std::size_t{1} << 30;
}  // namespace detail

/// Initializes MPI for the life of the object (unless something else did) and finalizes it after.
/// Destroyed while an exception unwinds, or when run() catches one, it aborts every process of
/// MPI_COMM_WORLD (MPI_Abort): the other ranks would otherwise wait forever in their next
/// collective for a process that is gone.
class mpi_environment {
 public:
  mpi_environment(int& argc, char**& argv) { initialize(&argc, &argv); }
  mpi_environment() { initialize(nullptr, nullptr); }
  mpi_environment(const mpi_environment&) = delete;
  mpi_environment& operator=(const mpi_environment&) = delete;
  ~mpi_environment() {
    if (std::uncaught_exceptions() > uncaught_) abort_all("an exception is leaving the scope of sf::distributed::mpi_environment");
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (owns_ && !finalized) MPI_Finalize();
  }

  /// This process's rank in MPI_COMM_WORLD and the number of processes.
  static int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
  }
  static int world_size() {
    int s = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
  }

  /// Returns body(); when it throws, prints "staticflow: rank R of N: <what>" to std::cerr and
  /// aborts every process with exit code 1 (mpirun then ends the job with that error).
  template <class F>
  int run(F&& body) {
    try {
      if constexpr (std::is_void<std::invoke_result_t<F>>::value) {
        std::forward<F>(body)();
        return 0;
      } else {
        return static_cast<int>(std::forward<F>(body)());
      }
    } catch (const std::exception& e) {
      abort_all(e.what());
    } catch (...) {
      abort_all("an exception that is not a std::exception");
    }
    return 1;
  }

  /// Prints why and aborts every process of MPI_COMM_WORLD.
  [[noreturn]] static void abort_all(const char* why) {
    std::fprintf(stderr, "staticflow: rank %d of %d: %s; aborting every rank\n", world_rank(), world_size(), why);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();  // MPI_Abort does not return
  }

 private:
  void initialize(int* argc, char*** argv) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) return;  // someone else's: they finalize it
    int provided = 0;
    detail::mpi_check(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    owns_ = true;
  }

  bool owns_ = false;
  int uncaught_ = std::uncaught_exceptions();
};

/// The processes of an MPI communicator (MPI_COMM_WORLD by default) as an
/// sf::distributed::communicator. MPI must be initialized (sf::distributed::mpi_environment).
class mpi {
 public:
  explicit mpi(MPI_Comm base = MPI_COMM_WORLD) {
    std::lock_guard<std::mutex> hold(detail::mpi_lock());
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
      throw distributed_error("sf::distributed::mpi: MPI is not initialized (make an sf::distributed::mpi_environment first)");
    detail::mpi_check(MPI_Comm_dup(base, &comm_), "MPI_Comm_dup");
    detail::mpi_check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  mpi(const mpi&) = delete;
  mpi& operator=(const mpi&) = delete;
  ~mpi() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// The duplicate communicator staticflow's collectives run on.
  MPI_Comm native() const { return comm_; }

  template <class T>
    requires detail::collective_dtype<T>
  void all_reduce(const T* in, T* out, std::size_t count, reduce_op op) {
    {
      std::lock_guard<std::mutex> hold(detail::mpi_lock());
      std::size_t at = 0;
      do {  // every process makes the same calls, a size-0 one included
        const int piece = static_cast<int>(std::min(count - at, detail::mpi_max_count));
        const void* send = in == out ? MPI_IN_PLACE : static_cast<const void*>(in + at);
        detail::mpi_check(MPI_Allreduce(send, out + at, piece, detail::mpi_datatype<T>(), detail::mpi_op(op), comm_),
                          "MPI_Allreduce");
        at += static_cast<std::size_t>(piece);
      } while (at < count);
    }
    if (op == reduce_op::mean)
      for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<T>(out[i] / static_cast<T>(size_));
  }

  template <class T>
    requires detail::collective_dtype<T>
  void broadcast(T* data, std::size_t count, int root) {
    std::lock_guard<std::mutex> hold(detail::mpi_lock());
    std::size_t at = 0;
    do {
      const int piece = static_cast<int>(std::min(count - at, detail::mpi_max_count));
      detail::mpi_check(MPI_Bcast(data + at, piece, detail::mpi_datatype<T>(), root, comm_), "MPI_Bcast");
      at += static_cast<std::size_t>(piece);
    } while (at < count);
  }

  template <class T>
    requires detail::collective_dtype<T>
  void all_gather(const T* in, std::size_t count, T* out) {
    std::lock_guard<std::mutex> hold(detail::mpi_lock());
    if (count > detail::mpi_max_count)
      throw distributed_error("sf::distributed::mpi::all_gather: " + std::to_string(count) +
                              " elements per process is more than one MPI call carries");
    detail::mpi_check(MPI_Allgather(in, static_cast<int>(count), detail::mpi_datatype<T>(), out, static_cast<int>(count),
                                    detail::mpi_datatype<T>(), comm_),
                      "MPI_Allgather");
  }

  void barrier() {
    std::lock_guard<std::mutex> hold(detail::mpi_lock());
    detail::mpi_check(MPI_Barrier(comm_), "MPI_Barrier");
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

static_assert(communicator<mpi>);

}  // namespace staticflow::distributed
