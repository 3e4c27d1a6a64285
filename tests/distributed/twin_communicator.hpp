// tests/distributed/twin_communicator.hpp -- `twin`, a communicator of two processes that hold the
// same values (so a sum doubles, a gather repeats), which logs every collective: what the MPI
// tests (tests/distributed/*mpi*) check with real processes, checked in one process without an
// engine. Used by tests/distributed/test_collectives.cpp and the backend suite (tests/thrust).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <staticflow/distributed/communicator.hpp>
#include <staticflow/staticflow.hpp>

namespace sf_test {
namespace sf = staticflow;

struct twin {
  std::vector<std::string> log;  // "all_reduce float32 x6 sum", ...
  int rank() const { return 0; }
  int size() const { return 2; }
  template <class T>
  static std::string dtype() {
    return std::string(sf::dtype_name<T>);
  }
  template <class T>
  void all_reduce(const T* in, T* out, std::size_t n, sf::reduce_op op) {
    log.push_back("all_reduce " + dtype<T>() + " x" + std::to_string(n) + " " + sf::reduce_op_name(op));
    for (std::size_t i = 0; i < n; ++i) out[i] = op == sf::reduce_op::sum ? T(in[i] + in[i]) : in[i];
  }
  template <class T>
  void broadcast(T*, std::size_t n, int root) {
    log.push_back("broadcast " + dtype<T>() + " x" + std::to_string(n) + " from " + std::to_string(root));
  }
  template <class T>
  void all_gather(const T* in, std::size_t n, T* out) {
    log.push_back("all_gather " + dtype<T>() + " x" + std::to_string(n));
    for (std::size_t i = 0; i < n; ++i) out[i] = out[n + i] = in[i];
  }
  void barrier() { log.push_back("barrier"); }
};

}  // namespace sf_test
