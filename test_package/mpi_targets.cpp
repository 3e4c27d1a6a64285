// staticflow::mpi carries MPI's include path and libraries with staticflow's: a program that
// includes distributed/mpi.hpp builds and links (run in the tree's tests under mpirun).
#include <staticflow/distributed/mpi.hpp>

int main(int argc, char** argv) {
  staticflow::distributed::mpi_environment env(argc, argv);
  return env.run([] {
    staticflow::distributed::mpi comm;
    float x = 1.f;
    comm.all_reduce(&x, &x, 1, staticflow::reduce_op::sum);
    return x == float(comm.size()) ? 0 : 1;
  });
}
