// staticflow/interop/device.hpp -- tensors in the memory of the Thrust backend's device system.
//
//   sf::device_tensor<T, R>  owns a thrust::device_vector<T> and its extents (what a call on the
//                            Thrust backend returns)
//   sf::device_view<T, R>    a non-owning view of device memory (a thrust::device_vector, a
//                            device_tensor, or a raw device pointer with extents)
//   sf::to_device(x)         copies a host xtensor container to a new device_tensor
//   t.to_host()              copies back to an xt::xtensor<T, R> (waiting for the device first)
//
// Copies between host and device happen only where the user writes them: a function on the
// Thrust backend takes device tensors and C++ scalars, never host containers.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <xtensor/xtensor.hpp>

#include "staticflow/backend/thrust/system.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/interop/xtensor.hpp"

namespace staticflow {

namespace detail {
template <class T, std::size_t R>
xt::xtensor<std::remove_cv_t<T>, R> copy_to_host(const T* device_data, const extents<R>& ext) {
  thrust_backend::synchronize();  // results are read on the host only once they are ready
  std::array<std::size_t, R> shape{};
  for (std::size_t d = 0; d < R; ++d) shape[d] = ext[d];
  auto host = xt::xtensor<std::remove_cv_t<T>, R>::from_shape(shape);
  const std::size_t n = detail::product(ext);
  if (n) ::thrust::copy(::thrust::device_pointer_cast(device_data), ::thrust::device_pointer_cast(device_data) + n, host.data());
  return host;
}
}  // namespace detail

/// A tensor that owns device memory: row-major, extents known at run time, rank R.
template <class T, std::size_t R>
class device_tensor {
  static_assert(dtype<T>, "staticflow: sf::device_tensor<T, R> needs a dtype: bool, int32_t, int64_t, float or double");

 public:
  using value_type = T;
  static constexpr std::size_t rank = R;

  device_tensor() = default;
  /// Uninitialized contents (value-initialized by thrust::device_vector) of the given extents.
  explicit device_tensor(const extents<R>& ext) : storage_(detail::product(ext)), ext_(ext) {}
  /// Takes over a device vector holding detail::product(ext) elements.
  device_tensor(::thrust::device_vector<T> storage, const extents<R>& ext) : storage_(std::move(storage)), ext_(ext) {
    if (storage_.size() != detail::product(ext))
      throw shape_error("device_tensor: " + std::to_string(storage_.size()) + " elements cannot have shape " +
                        detail::extents_string(ext));
  }

  T* data() { return ::thrust::raw_pointer_cast(storage_.data()); }
  const T* data() const { return ::thrust::raw_pointer_cast(storage_.data()); }
  const extents<R>& shape() const { return ext_; }
  std::size_t size() const { return storage_.size(); }
  ::thrust::device_vector<T>& vector() { return storage_; }
  const ::thrust::device_vector<T>& vector() const { return storage_; }

  /// Waits until every call this thread made (the one computing this tensor included) is done.
  void block_until_ready() const { thrust_backend::synchronize(); }
  /// A host copy (an explicit transfer; waits for the device first).
  xt::xtensor<T, R> to_host() const { return detail::copy_to_host(data(), ext_); }

 private:
  ::thrust::device_vector<T> storage_;
  extents<R> ext_{};
};

/// A non-owning view of row-major device memory. `T` may be const (a read-only view).
template <class T, std::size_t R>
class device_view {
  static_assert(dtype<std::remove_const_t<T>>,
                "staticflow: sf::device_view<T, R> needs a dtype: bool, int32_t, int64_t, float or double");

 public:
  using value_type = std::remove_const_t<T>;
  static constexpr std::size_t rank = R;

  /// `data` is a device pointer to detail::product(ext) elements.
  device_view(T* data, const extents<R>& ext) : data_(data), ext_(ext) {}
  device_view(::thrust::device_ptr<T> data, const extents<R>& ext) : data_(::thrust::raw_pointer_cast(data)), ext_(ext) {}
  /// A whole device vector as a rank-1 tensor.
  template <class U = T>
    requires(R == 1 && !std::is_const<U>::value)
  explicit device_view(::thrust::device_vector<U>& v) : data_(::thrust::raw_pointer_cast(v.data())), ext_{v.size()} {}
  template <class U = T>
    requires(R == 1 && std::is_const<U>::value)
  explicit device_view(const ::thrust::device_vector<std::remove_const_t<U>>& v)
      : data_(::thrust::raw_pointer_cast(v.data())), ext_{v.size()} {}
  /// A device vector seen with extents ext (its size must be their product).
  template <class Vec>
    requires std::is_same<std::remove_const_t<Vec>, ::thrust::device_vector<value_type>>::value
  device_view(Vec& v, const extents<R>& ext) : data_(::thrust::raw_pointer_cast(v.data())), ext_(ext) {
    if (v.size() != detail::product(ext))
      throw shape_error("device_view: " + std::to_string(v.size()) + " elements cannot have shape " +
                        detail::extents_string(ext));
  }
  template <class U = T>
    requires(!std::is_const<U>::value)
  explicit device_view(device_tensor<U, R>& t) : data_(t.data()), ext_(t.shape()) {}
  template <class U = T>
    requires std::is_const<U>::value
  explicit device_view(const device_tensor<std::remove_const_t<U>, R>& t) : data_(t.data()), ext_(t.shape()) {}

  T* data() const { return data_; }
  const extents<R>& shape() const { return ext_; }
  std::size_t size() const { return detail::product(ext_); }

  void block_until_ready() const { thrust_backend::synchronize(); }
  xt::xtensor<value_type, R> to_host() const { return detail::copy_to_host(data_, ext_); }

 private:
  T* data_;
  extents<R> ext_;
};

template <class T>
device_view(::thrust::device_vector<T>&) -> device_view<T, 1>;
template <class T>
device_view(const ::thrust::device_vector<T>&) -> device_view<const T, 1>;
template <class T, std::size_t R>
device_view(::thrust::device_vector<T>&, const extents<R>&) -> device_view<T, R>;
template <class T, std::size_t R>
device_view(const ::thrust::device_vector<T>&, const extents<R>&) -> device_view<const T, R>;
template <class T, std::size_t R>
device_view(device_tensor<T, R>&) -> device_view<T, R>;
template <class T, std::size_t R>
device_view(const device_tensor<T, R>&) -> device_view<const T, R>;

/// A device copy of a row-major host xtensor container (an explicit transfer).
template <detail::xtensor_like X>
auto to_device(const X& x) {
  using T = std::remove_cv_t<typename X::value_type>;
  constexpr std::size_t R = X::rank;
  static_assert(X::static_layout == xt::layout_type::row_major, "staticflow: sf::to_device needs a row-major container");
  extents<R> ext{};
  for (std::size_t d = 0; d < R; ++d) ext[d] = static_cast<std::size_t>(x.shape()[d]);
  ::thrust::device_vector<T> v(x.data(), x.data() + detail::product(ext));
  return device_tensor<T, R>(std::move(v), ext);
}

namespace detail {
template <class A> struct is_device_tensor : std::false_type {};
template <class T, std::size_t R> struct is_device_tensor<device_tensor<T, R>> : std::true_type {};
template <class T, std::size_t R> struct is_device_tensor<device_view<T, R>> : std::true_type {};
template <class T, std::size_t... D>
auto device_spec(std::index_sequence<D...>) -> spec<T, ((void)D, dyn)...>;
}  // namespace detail

/// Device tensors are arguments with run-time extents of their static rank, like xt::xtensor;
/// only the Thrust backend reads them (`on_device`).
template <class A>
  requires detail::is_device_tensor<A>::value
struct argument_traits<A> {
  static constexpr bool supported = true;
  static constexpr bool on_device = true;
  using value_type = typename A::value_type;
  using signature_type = decltype(detail::device_spec<value_type>(std::make_index_sequence<A::rank>{}));
};

}  // namespace staticflow
