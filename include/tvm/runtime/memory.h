// TVM's tvm/runtime/memory.h: make_object (defined with the object system).
#pragma once

#include <tvm/runtime/object.h>
