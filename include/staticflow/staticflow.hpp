// staticflow/staticflow.hpp -- the umbrella header: everything a user needs.
//
//   #include <staticflow/staticflow.hpp>
//   namespace sf = staticflow;
//   auto f = sf::function([](auto x, auto y) { return x * x + y; });
#pragma once

#include "staticflow/autodiff/adjoint_shape.hpp"
#include "staticflow/autodiff/backprop.hpp"
#include "staticflow/autodiff/custom_gradient.hpp"
#include "staticflow/autodiff/grad.hpp"
#include "staticflow/autodiff/gradient_tape.hpp"
#include "staticflow/autodiff/gradients.hpp"
#include "staticflow/autodiff/rules.hpp"
#include "staticflow/core/axes.hpp"
#include "staticflow/core/broadcast.hpp"
#include "staticflow/core/config.hpp"
#include "staticflow/core/dtype.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/core/static_value.hpp"
#include "staticflow/control/binding.hpp"
#include "staticflow/control/cond.hpp"
#include "staticflow/control/fori_loop.hpp"
#include "staticflow/control/index.hpp"
#include "staticflow/control/scan.hpp"
#include "staticflow/control/structure.hpp"
#include "staticflow/control/tensor_array.hpp"
#include "staticflow/control/while_loop.hpp"
#include "staticflow/effects/capture.hpp"
#include "staticflow/effects/cond_statement.hpp"
#include "staticflow/effects/eager.hpp"
#include "staticflow/effects/for_range.hpp"
#include "staticflow/effects/print.hpp"
#include "staticflow/effects/recorder.hpp"
#include "staticflow/effects/variable.hpp"
#include "staticflow/graph/activations.hpp"
#include "staticflow/graph/composites.hpp"
#include "staticflow/graph/conv.hpp"
#include "staticflow/graph/cumulative.hpp"
#include "staticflow/graph/pool.hpp"
#include "staticflow/graph/creation.hpp"
#include "staticflow/graph/external.hpp"
#include "staticflow/graph/elementwise.hpp"
#include "staticflow/graph/leaf.hpp"
#include "staticflow/graph/node.hpp"
#include "staticflow/graph/operators.hpp"
#include "staticflow/graph/math.hpp"
#include "staticflow/graph/math_ops.hpp"
#include "staticflow/graph/matmul.hpp"
#include "staticflow/graph/print.hpp"
#include "staticflow/graph/reduce.hpp"
#include "staticflow/graph/scalar_ops.hpp"
#include "staticflow/graph/shape_ops.hpp"
#include "staticflow/graph/traversal.hpp"
#include "staticflow/backend/backend.hpp"
#include "staticflow/backend/cpu/control.hpp"
#include "staticflow/backend/cpu/conv.hpp"
#include "staticflow/backend/cpu/cumulative.hpp"
#include "staticflow/backend/cpu/pool.hpp"
#include "staticflow/backend/cpu/effect_graph.hpp"
#include "staticflow/backend/cpu/index.hpp"
#include "staticflow/backend/cpu/kernel.hpp"
#include "staticflow/backend/cpu/linalg.hpp"
#include "staticflow/backend/cpu/reduce.hpp"
#include "staticflow/backend/cpu/sequence.hpp"
#include "staticflow/backend/cpu/run_plan.hpp"
#include "staticflow/backend/cpu/shape_ops.hpp"
#include "staticflow/backend/cpu/simd_ops.hpp"
#include "staticflow/backend/eager/evaluate.hpp"
#include "staticflow/interop/xtensor.hpp"
#include "staticflow/optimizers/adam.hpp"
#include "staticflow/optimizers/optimizer.hpp"
#include "staticflow/optimizers/sgd.hpp"
#include "staticflow/plan/arena.hpp"
#include "staticflow/plan/plan.hpp"
#include "staticflow/trace/cache.hpp"
#include "staticflow/trace/concrete_function.hpp"
#include "staticflow/trace/eager_mode.hpp"
#include "staticflow/trace/function.hpp"
#include "staticflow/trace/signature.hpp"

// The Thrust backend, when the build has Thrust (the staticflow::thrust CMake targets define
// STATICFLOW_HAS_THRUST; CUDA builds have it anyway).
#if defined(STATICFLOW_HAS_THRUST) || defined(__CUDACC__)
#include "staticflow/backend/thrust/thrust.hpp"
#endif

namespace staticflow {
/// Which loop a graph compiles to on the CPU backend (see backend/cpu/kernel.hpp).
using cpu::kernel_kind;
using cpu::kernel_kind_v;
}  // namespace staticflow
