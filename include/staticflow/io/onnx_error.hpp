// staticflow/io/onnx_error.hpp -- sf::onnx::export_error, what the ONNX exporter (io/onnx.hpp)
// throws for a function it cannot write.
#pragma once

#include <stdexcept>
#include <string>

namespace staticflow::onnx {

/// What cannot be exported, found at run time (a function with effects, a growing tensor array,
/// a file that cannot be written).
struct export_error : std::runtime_error {
  explicit export_error(const std::string& what) : std::runtime_error("staticflow: " + what) {}
};

}  // namespace staticflow::onnx
