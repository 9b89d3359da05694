// TVM's container objects and their globals (ABI.md 11.3e), with TVM's argument and return codes.
#include "aotrt/container.h"

#include "aotrt/packed_func.h"
#include "base/error_util.h"
#include "ffi/registry.h"

namespace aotrt {

bool ObjectKeyEqual(const Object* a, const Object* b) {
  if (a == b) return true;
  return a && b && a->type_index() == kTypeString && b->type_index() == kTypeString &&
         static_cast<const StringObj*>(a)->value == static_cast<const StringObj*>(b)->value;
}

MapObj::MapObj(std::vector<Item> items) : Object(kTypeMap) {
  items_.reserve(items.size());
  for (Item& kv : items) {
    auto* same = const_cast<ObjectPtr<Object>*>(Find(kv.first.get()));
    if (same) {
      *same = std::move(kv.second);
    } else {
      items_.push_back(std::move(kv));
    }
  }
}

const ObjectPtr<Object>* MapObj::Find(const Object* key) const {
  for (const Item& kv : items_) {
    if (ObjectKeyEqual(kv.first.get(), key)) return &kv.second;
  }
  return nullptr;
}

const ObjectPtr<Object>* MapObj::Find(const std::string& key) const {
  for (const Item& kv : items_) {
    if (kv.first && kv.first->type_index() == kTypeString && static_cast<StringObj*>(kv.first.get())->value == key) {
      return &kv.second;
    }
  }
  return nullptr;
}

namespace {

// Index argument i checked against size (TVM's "out of bound" ICHECKs, as errors).
size_t IndexArg(const char* fn, TVMArgs args, int i, size_t size) {
  int64_t idx = args[i].AsInt();
  AOTRT_REQUIRE(idx >= 0 && static_cast<uint64_t>(idx) < size, kOutOfRange, fn, ": index ", idx,
                " out of bound of size ", size);
  return static_cast<size_t>(idx);
}

// Argument 0 of `fn`, which takes `count` arguments, as a T (type index `type`, `what` in a mismatch).
template <typename T>
const T& Arg0(const char* fn, TVMArgs args, int count, uint32_t type, const char* what) {
  RequireArgCount(fn, args, count);
  return *static_cast<const T*>(args[0].AsObjectOf(type, what));
}

std::vector<ObjectPtr<Object>> ObjectArgs(TVMArgs args, int first) {
  std::vector<ObjectPtr<Object>> items;
  items.reserve(args.size() - first);
  for (int i = first; i < args.size(); ++i) {
    int code = args[i].type_code();
    AOTRT_REQUIRE(code != kTVMStr && code != kTVMBytes, kTypeMismatch, "argument ", i, ": expected Object but got ",
                  TypeCodeName(code));
    items.push_back(args[i].AsObject());
  }
  return items;
}

void String(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.String", args, 1);
  rv->SetObject(MakeObject<StringObj>(args[0].AsString()));
}
void GetFFIString(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.GetFFIString", args, 1);
  rv->SetString(args[0].AsString());
}

void Array(TVMArgs args, TVMRetValue* rv) { rv->SetObject(MakeObject<ArrayObj>(ObjectArgs(args, 0))); }
void ArraySize(TVMArgs args, TVMRetValue* rv) {
  rv->SetInt(static_cast<int64_t>(Arg0<ArrayObj>("runtime.ArraySize", args, 1, kTypeArray, "Array").items.size()));
}
void ArrayGetItem(TVMArgs args, TVMRetValue* rv) {
  const auto& items = Arg0<ArrayObj>("runtime.ArrayGetItem", args, 2, kTypeArray, "Array").items;
  rv->SetObject(items[IndexArg("runtime.ArrayGetItem", args, 1, items.size())]);
}

void Map(TVMArgs args, TVMRetValue* rv) {
  AOTRT_REQUIRE(args.size() % 2 == 0, kInvalidArgument, "runtime.Map takes key/value pairs, got ", args.size(),
                " arguments");
  std::vector<MapObj::Item> items;
  for (int i = 0; i < args.size(); i += 2) items.emplace_back(args[i].AsObject(), args[i + 1].AsObject());
  rv->SetObject(MakeObject<MapObj>(std::move(items)));
}
const MapObj& MapArg(const char* fn, TVMArgs args, int count) { return Arg0<MapObj>(fn, args, count, kTypeMap, "Map"); }
void MapSize(TVMArgs args, TVMRetValue* rv) {
  rv->SetInt(static_cast<int64_t>(MapArg("runtime.MapSize", args, 1).items().size()));
}
void MapGetItem(TVMArgs args, TVMRetValue* rv) {
  const ObjectPtr<Object>* v = MapArg("runtime.MapGetItem", args, 2).Find(args[1].AsObject().get());
  AOTRT_REQUIRE(v, kNotFound, "cannot find the corresponding key in the Map");
  rv->SetObject(*v);
}
void MapCount(TVMArgs args, TVMRetValue* rv) {
  rv->SetInt(MapArg("runtime.MapCount", args, 2).Find(args[1].AsObject().get()) ? 1 : 0);
}
void MapItems(TVMArgs args, TVMRetValue* rv) {
  std::vector<ObjectPtr<Object>> flat;
  for (const auto& kv : MapArg("runtime.MapItems", args, 1).items()) flat.insert(flat.end(), {kv.first, kv.second});
  rv->SetObject(MakeObject<ArrayObj>(std::move(flat)));
}

void ShapeTuple(TVMArgs args, TVMRetValue* rv) {
  std::vector<int64_t> dims;
  for (int i = 0; i < args.size(); ++i) dims.push_back(args[i].AsInt());
  rv->SetObject(MakeObject<ShapeTupleObj>(std::move(dims)));
}
const std::vector<int64_t>& Dims(const char* fn, TVMArgs args, int count) {
  return Arg0<ShapeTupleObj>(fn, args, count, kTypeShapeTuple, "ShapeTuple").dims;
}
void GetShapeTupleSize(TVMArgs args, TVMRetValue* rv) {
  rv->SetInt(static_cast<int64_t>(Dims("runtime.GetShapeTupleSize", args, 1).size()));
}
void GetShapeTupleElem(TVMArgs args, TVMRetValue* rv) {
  const auto& dims = Dims("runtime.GetShapeTupleElem", args, 2);
  rv->SetInt(dims[IndexArg("runtime.GetShapeTupleElem", args, 1, dims.size())]);
}

void ADT(TVMArgs args, TVMRetValue* rv) {
  AOTRT_REQUIRE(args.size() >= 1, kInvalidArgument, "runtime.ADT takes a tag and fields");
  int64_t tag = args[0].AsInt();
  rv->SetObject(MakeObject<ADTObj>(static_cast<int32_t>(tag), ObjectArgs(args, 1)));
}
void Tuple(TVMArgs args, TVMRetValue* rv) { rv->SetObject(MakeObject<ADTObj>(0, ObjectArgs(args, 0))); }
const ADTObj& ADTArg(const char* fn, TVMArgs args, int count) { return Arg0<ADTObj>(fn, args, count, kTypeADT, "ADT"); }
void GetADTTag(TVMArgs args, TVMRetValue* rv) { rv->SetInt(ADTArg("runtime.GetADTTag", args, 1).tag); }
void GetADTSize(TVMArgs args, TVMRetValue* rv) {
  rv->SetInt(static_cast<int64_t>(ADTArg("runtime.GetADTSize", args, 1).fields.size()));
}
void GetADTFields(TVMArgs args, TVMRetValue* rv) {
  const auto& fields = ADTArg("runtime.GetADTFields", args, 2).fields;
  rv->SetObject(fields[IndexArg("runtime.GetADTFields", args, 1, fields.size())]);
}

void ObjectPtrHash(TVMArgs args, TVMRetValue* rv) {
  RequireArgCount("runtime.ObjectPtrHash", args, 1);
  rv->SetInt(static_cast<int64_t>(reinterpret_cast<uintptr_t>(args[0].AsObject().get())));
}

constexpr GlobalDef kDefs[] = {
    {"runtime.String", String},         {"runtime.GetFFIString", GetFFIString},
    {"runtime.Array", Array},           {"runtime.ArraySize", ArraySize},
    {"runtime.ArrayGetItem", ArrayGetItem}, {"runtime.Map", Map},
    {"runtime.MapSize", MapSize},       {"runtime.MapGetItem", MapGetItem},
    {"runtime.MapCount", MapCount},     {"runtime.MapItems", MapItems},
    {"runtime.ShapeTuple", ShapeTuple}, {"runtime.GetShapeTupleSize", GetShapeTupleSize},
    {"runtime.GetShapeTupleElem", GetShapeTupleElem}, {"runtime.ADT", ADT},
    {"runtime.Tuple", Tuple},           {"runtime.GetADTTag", GetADTTag},
    {"runtime.GetADTSize", GetADTSize}, {"runtime.GetADTFields", GetADTFields},
    {"runtime.ObjectPtrHash", ObjectPtrHash},
};

}  // namespace

extern const GlobalTable kContainerGlobals{kDefs};

}  // namespace aotrt
