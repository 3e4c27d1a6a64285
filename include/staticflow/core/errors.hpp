// staticflow/core/errors.hpp -- the exceptions that run-time misuse throws.
#pragma once

#include <stdexcept>
#include <string>

namespace staticflow {

/// Shapes that do not fit together, found only at run time (TensorFlow's ValueError on shapes).
struct shape_error : std::invalid_argument {
  explicit shape_error(const std::string& what) : std::invalid_argument("staticflow: " + what) {}
};

/// A call whose signature no concrete function accepts (TensorFlow's TypeError on signatures).
struct signature_error : std::invalid_argument {
  explicit signature_error(const std::string& what) : std::invalid_argument("staticflow: " + what) {}
};

/// Misuse of tracing that only run time can see: a variable created while tracing, a variable
/// read as a symbolic tensor outside a traced function, an effect where none may be recorded.
struct trace_error : std::logic_error {
  explicit trace_error(const std::string& what) : std::logic_error("staticflow: " + what) {}
};

/// A value an op cannot take, found while computing (TensorFlow's InvalidArgumentError): a string
/// that is no number for sf::strings::to_number, a substr position out of range, an invalid regex.
struct invalid_argument_error : std::invalid_argument {
  explicit invalid_argument_error(const std::string& what) : std::invalid_argument("staticflow: " + what) {}
};

/// A checkpoint that cannot be written or read, or does not match what it is restored into
/// (names, dtypes, shapes): thrown before any variable is changed.
struct checkpoint_error : std::runtime_error {
  explicit checkpoint_error(const std::string& what) : std::runtime_error("staticflow: " + what) {}
};

}  // namespace staticflow
