# ONNX export (include/staticflow/io/onnx.hpp): the ONNX protobuf types from Debian's libonnx-dev
# and libprotobuf-dev. Opt-in: the core library does not depend on protobuf.
#
#   staticflow_onnx_found   TRUE when ONNX's CMake package was found
#   staticflow::onnx        staticflow with the ONNX protobuf types (link it to use io/onnx.hpp)
#
# Included from the top-level CMakeLists.txt and, installed as staticflowOnnx.cmake, from the
# package's config file: the variable is per directory, the target global.

find_package(Protobuf QUIET)
find_package(ONNX QUIET CONFIG)
set(staticflow_onnx_found FALSE)
if(TARGET onnx_proto AND TARGET protobuf::libprotobuf)
  set(staticflow_onnx_found TRUE)
  if(NOT TARGET staticflow::onnx)
    add_library(staticflow_onnx_export INTERFACE IMPORTED GLOBAL)
    add_library(staticflow::onnx ALIAS staticflow_onnx_export)
    target_link_libraries(staticflow_onnx_export INTERFACE staticflow::staticflow onnx_proto)
  endif()
endif()
