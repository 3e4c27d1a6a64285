// staticflow/autodiff/rules.hpp -- the adjoint of each op: given a node n and the adjoint g of its
// value, `child_adjoint<K>(n, g)` is the adjoint of n's K-th child (before it is brought back to
// the child's shape), built as a graph over n's own operands and n itself. Only float values carry
// adjoints (autodiff/backprop.hpp skips integer and bool children).
//
// Conventions (TensorFlow's, where JAX differs it is said):
//  * maximum(a, b) sends the adjoint to a where a >= b, minimum(a, b) where a <= b (JAX splits a
//    tie in halves);
//  * abs and relu have slope 0 at 0; reduce_max / reduce_min split the adjoint equally among the
//    elements that tie for the maximum (TF's rule);
//  * floor, ceil, round, sign and floordiv have gradient zero (TF's); fmod (`%`) and floormod
//    pass g to the dividend and -g * trunc(a / b) / -g * floor(a / b) to the divisor; pow's
//    exponent gets g * a^b * log(a) where a > 0, else 0;
//  * the math functions' derivatives are the textbook ones at every point where they exist
//    (acosh at 1, asin / acos at +-1, atanh at +-1 give +-inf, as in TF).
//
// The rules are in two headers: autodiff/rules_arithmetic.hpp (elementwise ops, reductions,
// products, convolutions, cumulative ops, pooling, and the fallback: a node without a rule is a
// compile error) and autodiff/rules_data_movement.hpp (shape ops, gathers and scatters, diagonals,
// sorting, segments, masks, random values, softmax, and the gradient nodes' own rules for second
// derivatives), which includes the first: every overload is declared in the order the calls
// inside the rules rely on.
#pragma once

#include "staticflow/autodiff/rules_arithmetic.hpp"
#include "staticflow/autodiff/rules_data_movement.hpp"
