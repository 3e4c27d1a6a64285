# Data-parallel training over MPI (include/staticflow/distributed/mpi.hpp): the MPI C++ target
# from CMake's FindMPI (Debian's openmpi-bin + libopenmpi-dev). Opt-in: the core library does
# not depend on MPI.
#
#   staticflow_mpi_found   TRUE when an MPI with a C++ binding was found
#   staticflow::mpi        staticflow with MPI (link it to use distributed/mpi.hpp)
#
# Included from the top-level CMakeLists.txt and, installed as staticflowMpi.cmake, from the
# package's config file: the variable is per directory, the target global.

find_package(MPI QUIET COMPONENTS CXX)
set(staticflow_mpi_found FALSE)
if(TARGET MPI::MPI_CXX)
  set(staticflow_mpi_found TRUE)
  if(NOT TARGET staticflow::mpi)
    add_library(staticflow_distributed_mpi INTERFACE IMPORTED GLOBAL)
    add_library(staticflow::mpi ALIAS staticflow_distributed_mpi)
    target_link_libraries(staticflow_distributed_mpi INTERFACE staticflow::staticflow MPI::MPI_CXX)
  endif()
endif()
