// Tensor names to their indices (a model's inputs or outputs), for lookups by name outside run():
// a sorted vector searched by bisection (a model has a handful of inputs). Not thread-safe to
// modify; const lookups are.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aotrt {

class NameIndex {
 public:
  // Files `index` under `name` and returns nullptr; when `name` is filed already, adds nothing and
  // returns the index filed under it.
  const size_t* Insert(std::string name, size_t index) {
    auto it = entries_.begin() + (LowerBound(name) - entries_.cbegin());
    if (it != entries_.end() && it->first == name) return &it->second;
    entries_.emplace(it, std::move(name), index);
    return nullptr;
  }

  // The index filed under `name`, or nullptr.
  const size_t* Find(std::string_view name) const {
    auto it = LowerBound(name);
    return it != entries_.end() && it->first == name ? &it->second : nullptr;
  }

  size_t size() const { return entries_.size(); }
  void reserve(size_t n) { entries_.reserve(n); }

 private:
  using Entry = std::pair<std::string, size_t>;
  std::vector<Entry>::const_iterator LowerBound(std::string_view name) const {
    return std::lower_bound(entries_.begin(), entries_.end(), name,
                            [](const Entry& e, std::string_view n) { return std::string_view(e.first) < n; });
  }

  std::vector<Entry> entries_;  // sorted by name, names unique
};

// TVM's SanitizeName: every character that is not alphanumeric becomes '_'.
inline std::string SanitizeName(std::string name) {
  for (char& c : name) {
    // ASCII letters and digits, as TVM's sanitizer keeps them, whatever the locale
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!keep) c = '_';
  }
  return name;
}

}  // namespace aotrt
