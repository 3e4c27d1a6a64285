// staticflow/interop/tensor_ref.hpp -- the non-owning views staticflow makes of an argument when
// it hands it to a concrete function of another signature than the argument's own type: an
// xt::xarray seen at its run-time rank, an xt::xtensor seen through an input signature or a
// shape specialization, an sf::tensor seen at its run-time dtype.
#pragma once

#include <cstddef>

#include "staticflow/core/shape.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow {

template <class T, class Shape>
class tensor_ref;

/// Row-major data read as a tensor of spec<T, D...>. Whoever builds one has checked that the
/// run-time extents agree with the static dimensions of D; `dyn` dimensions are free.
template <class T, std::size_t... D>
class tensor_ref<T, shape<D...>> {
 public:
  using value_type = T;
  static constexpr std::size_t rank = sizeof...(D);

  STATICFLOW_INLINE tensor_ref(const T* data, const extents<rank>& ext) : data_(data), ext_(ext) {}

  STATICFLOW_INLINE const T* data() const { return data_; }
  STATICFLOW_INLINE const extents<rank>& shape() const { return ext_; }

 private:
  const T* data_;
  extents<rank> ext_;
};

/// A writable row-major buffer of rank R: what call_into writes through when the caller's output
/// container has a run-time rank or dtype (xt::xarray, sf::tensor).
template <class T, std::size_t R>
class tensor_out_ref {
 public:
  using value_type = T;
  static constexpr std::size_t rank = R;

  STATICFLOW_INLINE tensor_out_ref(T* data, const extents<R>& ext) : data_(data), ext_(ext) {}

  STATICFLOW_INLINE T* data() const { return data_; }
  STATICFLOW_INLINE const extents<R>& shape() const { return ext_; }

 private:
  T* data_;
  extents<R> ext_;
};

/// A tensor_ref's signature entry is the spec it was made for.
template <class T, std::size_t... D>
struct argument_traits<tensor_ref<T, shape<D...>>> {
  static constexpr bool supported = true;
  using value_type = T;
  using signature_type = spec<T, D...>;
};

}  // namespace staticflow
