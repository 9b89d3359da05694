// TVM's tvm/runtime/container/base.h: the object system the containers build on.
#pragma once

#include <tvm/runtime/logging.h>
#include <tvm/runtime/object.h>
