// staticflow::thrust_cpp's usage requirements: the CCCL headers on the include path, Thrust's
// device system set to CPP, and the backend's switch (compiled only: the backend is tested by
// tests/thrust).
#include <thrust/version.h>

static_assert(THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CPP, "staticflow::thrust_cpp sets THRUST_DEVICE_SYSTEM_CPP");
#ifndef STATICFLOW_HAS_THRUST
#error "staticflow::thrust_cpp defines STATICFLOW_HAS_THRUST"
#endif

int main() { return THRUST_VERSION > 0 ? 0 : 1; }
