// staticflow/core/config.hpp -- compile-time limits a user may override before including staticflow.
#pragma once

#include <cstddef>

/// The largest static tensor (in bytes) that staticflow places on the stack: static outputs are
/// `xt::xtensor_fixed` values, so a larger one would risk a stack overflow; it is a compile error
/// instead (use `sf::dyn` dimensions or `xt::xtensor` for big tensors).
#ifndef STATICFLOW_MAX_STATIC_BYTES
#define STATICFLOW_MAX_STATIC_BYTES (std::size_t{64} * 1024)
#endif

/// Marks functions that run on the host and, under nvcc, on the device (the Thrust backend).
#if defined(__CUDACC__)
#define STATICFLOW_HD __host__ __device__
#else
#define STATICFLOW_HD
#endif

/// Whether the hot path's inlining is forced (1, the default). 0 leaves every inlining decision to
/// the compiler's heuristics: the same results, a tenth to a third less compiler time per
/// translation unit (a gradient test TU at -O1: 44 s against 29 s), slower small calls and
/// transcendental loops. For builds that check values rather than speed (the test suite compiles
/// its unit tests with 0); the same value in every translation unit of a program.
#ifndef STATICFLOW_FORCE_INLINE
#define STATICFLOW_FORCE_INLINE 1
#endif

/// Forces inlining of the thin layers between a call and its fused loop (as Eigen's
/// EIGEN_STRONG_INLINE does): without it GCC leaves calls to small helpers in the path of a
/// 4-element static call, which then costs many times the loop itself.
#if STATICFLOW_FORCE_INLINE && (defined(__GNUC__) || defined(__clang__))
#define STATICFLOW_INLINE [[gnu::always_inline]] inline
#else
#define STATICFLOW_INLINE inline
#endif

/// Around the CPU backend's code that calls xsimd: GCC 12's AVX-512 intrinsics make their
/// "undefined" operands as `__m512 __Y = __Y;`, which -Wuninitialized / -Wmaybe-uninitialized
/// report wherever a masked form such as _mm512_min_ps is inlined at -O2 / -O3 (113 warnings in
/// examples/11_data_parallel.cpp; GCC bug 105593, fixed in GCC 13). The reports are about GCC's
/// own header, not this code or the user's: those two warnings are off in these regions only.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#define STATICFLOW_DETAIL_INTRINSICS_BEGIN                                                      \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")         \
      _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define STATICFLOW_DETAIL_INTRINSICS_END _Pragma("GCC diagnostic pop")
#else
#define STATICFLOW_DETAIL_INTRINSICS_BEGIN
#define STATICFLOW_DETAIL_INTRINSICS_END
#endif

/// The same for the lambdas that expand index packs on the hot path (placed after the lambda's
/// parameter list).
#if STATICFLOW_FORCE_INLINE && (defined(__GNUC__) || defined(__clang__))
#define STATICFLOW_LAMBDA_INLINE __attribute__((always_inline))
#else
#define STATICFLOW_LAMBDA_INLINE
#endif

/// Inlines every call in a function's body, recursively (a loop over a costly batch function:
/// backend/cpu/kernel.hpp).
#if STATICFLOW_FORCE_INLINE && (defined(__GNUC__) || defined(__clang__))
#define STATICFLOW_FLATTEN [[gnu::flatten]]
#else
#define STATICFLOW_FLATTEN
#endif

/// Whether sf::run_functions_eagerly can switch calls to eager mode (1, the default). Each call
/// site of an sf::function then also compiles the eager path: the lambda run over eager values and
/// its op-by-op evaluation, about a third of the compile time of a typical translation unit.
/// 0 compiles that path out: calls always run traced, and sf::run_functions_eagerly(true) throws
/// sf::trace_error. Like NDEBUG, define it the same way in every translation unit of a program.
#ifndef STATICFLOW_EAGER_MODE
#define STATICFLOW_EAGER_MODE 1
#endif

/// Whether the CPU backend's fused loops compile their speed variants (1, the default): a body of
/// four batches per iteration for long loops, and a half- and a quarter-width batch before the
/// last elements (so that a call on 4 or 8 floats is one short vector, not a scalar loop). 0 keeps
/// one batch per step and single elements after it: the same values wherever the op's SIMD and
/// scalar forms agree, fewer loop bodies for the compiler. For builds that check values rather
/// than speed (the test suite compiles most of its tests with 0).
#ifndef STATICFLOW_LOOP_VARIANTS
#define STATICFLOW_LOOP_VARIANTS 1
#endif

/// How deeply a graph may nest (graph::nesting_depth_v of its deepest output) for the compiler to
/// trace and plan it in a constant expression (trace/constant_trace.hpp); a deeper graph is traced
/// and planned at run time, its first call, with the same plan. The walks over a graph recurse
/// once per level, a few calls each, and a constant expression stops at the compiler's
/// -fconstexpr-depth (512 in g++ and clang): past it g++ 12 does not always fail quietly but can
/// stop the build, with the error it gives at that depth. The default leaves room for that.
#ifndef STATICFLOW_CONSTANT_TRACE_DEPTH
#define STATICFLOW_CONSTANT_TRACE_DEPTH 128
#endif

/// Whether effects (variable assignments, sf::print, collectives) may stand in sf::while_loop /
/// fori_loop / scan / map_fn bodies (1, the default: TensorFlow's behaviour). Whether a body
/// records effects is a fact of the trace, not of the types, so every traced loop then compiles a
/// second evaluation of itself for that case (effects/loop_statement.hpp): about +35 % compile
/// time and +350 MB of compiler memory on a translation unit of 14 loops (docs/architecture.md).
/// 0 compiles it out: an effect in a loop body is then an sf::trace_error that says so (the test
/// suite builds most of its tests that way). The same value in every translation unit of a program.
#ifndef STATICFLOW_LOOP_EFFECTS
#define STATICFLOW_LOOP_EFFECTS 1
#endif
