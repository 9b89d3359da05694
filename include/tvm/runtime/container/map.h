// TVM's Map<K, V> (tvm/runtime/container/map.h) over aotrt::MapObj: immutable, in insertion order,
// keys compared as TVM does (Strings by content, other objects by identity). Set() and erase() copy
// it into a new object; at() and operator[] throw kNotFound on a missing key.
#pragma once

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tvm/runtime/container/optional.h>
#include <tvm/runtime/container/string.h>
#include <tvm/runtime/object.h>

namespace tvm {
namespace runtime {

using MapNode = aotrt::MapObj;

template <typename K, typename V>
class Map : public ObjectRef {
  using Items = std::vector<MapNode::Item>;

 public:
  using ContainerType = MapNode;
  using key_type = K;
  using mapped_type = V;
  static constexpr bool _type_is_nullable = false;

  using iterator = detail::ItemIterator<typename Items::const_iterator, std::pair<K, V>>;

  Map() : ObjectRef(aotrt::MakeObject<MapNode>(Items())) {}
  explicit Map(ObjectPtr<Object> n) : ObjectRef(std::move(n)) {}
  Map(std::initializer_list<std::pair<K, V>> init) : Map(init.begin(), init.end()) {}
  Map(const std::unordered_map<K, V>& init) : Map(init.begin(), init.end()) {}  // NOLINT(*)
  template <typename IterType>
  Map(IterType first, IterType last) : Map() { for (; first != last; ++first) Set(first->first, first->second); }

  size_t size() const { return node()->items().size(); }
  bool empty() const { return size() == 0; }
  size_t count(const K& key) const { return Find(key) ? 1 : 0; }
  V at(const K& key) const {
    const ObjectPtr<Object>* v = Find(key);
    if (!v) throw Error(aotrt::ErrorCode::kNotFound, "IndexError: key is not in Map");
    return V(*v);
  }
  V operator[](const K& key) const { return at(key); }
  Optional<V> Get(const K& key) const {
    const ObjectPtr<Object>* v = Find(key);
    return v ? Optional<V>(V(*v)) : Optional<V>();
  }
  iterator begin() const { return iterator(node()->items().begin()); }
  iterator end() const { return iterator(node()->items().end()); }
  iterator find(const K& key) const {
    auto same = [&](const MapNode::Item& kv) { return aotrt::ObjectKeyEqual(kv.first.get(), detail::PtrOf(key).get()); };
    return iterator(std::find_if(node()->items().begin(), node()->items().end(), same));
  }

  void Set(const K& key, const V& value) {
    Items items = node()->items();
    items.emplace_back(detail::PtrOf(key), detail::PtrOf(value));  // a key met again keeps its place
    data_ = aotrt::MakeObject<MapNode>(std::move(items));
  }
  void erase(const K& key) {
    Items items;
    for (const auto& item : node()->items()) {
      if (!aotrt::ObjectKeyEqual(item.first.get(), detail::PtrOf(key).get())) items.push_back(item);
    }
    data_ = aotrt::MakeObject<MapNode>(std::move(items));
  }

 private:
  const MapNode* node() const { return static_cast<const MapNode*>(get()); }
  const ObjectPtr<Object>* Find(const K& key) const { return node()->Find(detail::PtrOf(key).get()); }
};

}  // namespace runtime
using runtime::Map;
}  // namespace tvm
