// TVM's object types that host bindings build and read (ABI.md 11.3): String, Array, Map,
// ShapeTuple and ADT, with TVM's type indices. All are immutable after construction, so they may be
// read from any thread. None of them is used on an executor's run path.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aotrt/export.h"
#include "aotrt/object.h"

namespace aotrt {

class AOTRT_API StringObj : public Object {
 public:
  explicit StringObj(std::string s) : Object(kTypeString), value(std::move(s)) {}
  const std::string value;
};

class AOTRT_API ArrayObj : public Object {
 public:
  explicit ArrayObj(std::vector<ObjectPtr<Object>> items) : Object(kTypeArray), items(std::move(items)) {}
  const std::vector<ObjectPtr<Object>> items;  // null elements allowed
};

// Keys compare as TVM's ObjectEqual: Strings by content, other objects by identity.
AOTRT_API bool ObjectKeyEqual(const Object* a, const Object* b);

// A map in insertion order; a repeated key keeps its first position and its last value.
class AOTRT_API MapObj : public Object {
 public:
  using Item = std::pair<ObjectPtr<Object>, ObjectPtr<Object>>;
  explicit MapObj(std::vector<Item> items);
  const std::vector<Item>& items() const { return items_; }
  // The value stored under `key`, or nullptr when absent.
  const ObjectPtr<Object>* Find(const Object* key) const;
  const ObjectPtr<Object>* Find(const std::string& key) const;

 private:
  std::vector<Item> items_;
};

class AOTRT_API ShapeTupleObj : public Object {
 public:
  explicit ShapeTupleObj(std::vector<int64_t> dims) : Object(kTypeShapeTuple), dims(std::move(dims)) {}
  const std::vector<int64_t> dims;
};

// Algebraic data type value (relay tuples are tag 0).
class AOTRT_API ADTObj : public Object {
 public:
  ADTObj(int32_t tag, std::vector<ObjectPtr<Object>> fields) : Object(kTypeADT), tag(tag), fields(std::move(fields)) {}
  const int32_t tag;
  std::vector<ObjectPtr<Object>> fields;  // not to change once shared (the VM refills only tuples no one holds)
};

}  // namespace aotrt
