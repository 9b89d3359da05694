#include "expect.h"

#include <aotrt/error.h>

#include "npz.h"
#include "table.h"
#include "model_io.h"

namespace aotrt_cli {
namespace {

std::string OutputNames(const aotrt::Executor& ex) {
  std::string s;
  for (size_t i = 0; i < ex.NumOutputs(); ++i) s += (i ? ", " : "") + ex.Output(i).name;
  return s;
}

size_t OutputOfKey(const std::string& key, const aotrt::Executor& ex) {
  for (size_t i = 0; i < ex.NumOutputs(); ++i) {
    if (ex.Output(i).name == key) return i;
  }
  if (key.compare(0, 4, "arr_") == 0 && key.size() > 4 && key.size() < 12 &&
      key.find_first_not_of("0123456789", 4) == std::string::npos) {
    size_t i = std::stoul(key.substr(4));
    if (i < ex.NumOutputs()) return i;
  }
  throw aotrt::Error(aotrt::ErrorCode::kNotFound, "--expect: '" + key + "' is not an output; outputs: " +
                                                      OutputNames(ex) + " (or arr_0.. arr_" +
                                                      std::to_string(ex.NumOutputs() - 1) + ")");
}

}  // namespace

std::vector<ExpectedOutput> ReadExpected(const std::string& path, const aotrt::Executor& ex) {
  std::vector<ExpectedOutput> out;
  std::vector<bool> seen(ex.NumOutputs(), false);
  for (NamedTensor& t : ReadNpz(path)) {
    size_t i = OutputOfKey(t.name, ex);
    if (seen[i]) {
      throw aotrt::Error(aotrt::ErrorCode::kInvalidArgument,
                         "--expect " + path + ": output '" + ex.Output(i).name + "' is given twice");
    }
    seen[i] = true;
    out.push_back({i, t.name, t.array});
  }
  if (out.empty()) throw aotrt::Error(aotrt::ErrorCode::kInvalidArgument, "--expect " + path + ": no arrays");
  return out;
}

bool ReportComparison(const aotrt::Executor& ex, const std::vector<ExpectedOutput>& expected, const Tolerance& tol,
                      std::ostream& os) {
  Table t({"expect", "result", "max |diff|", "at", "got", "expected", "outside tolerance"},
          {false, false, true, false, true, true, true});
  bool all = true;
  for (const ExpectedOutput& e : expected) {
    aotrt::NDArray got = HostOutput(ex, e.index);
    std::vector<int64_t> want = e.array.Shape();
    if (!ex.Output(e.index).shape_known &&
        aotrt::ShapeElements(want.data(), static_cast<int>(want.size())) == ex.Output(e.index).shape[0]) {
      got = got.CreateView(want, got.dtype());  // the model states no shape: compared in the expected one
    }
    Comparison c = Compare(got, e.array, tol);
    all = all && c.equal;
    std::string label = ex.Output(e.index).name + (e.key != ex.Output(e.index).name ? " (" + e.key + ")" : "");
    if (!c.problem.empty()) {
      t.AddRow({label, "DIFFERS", "-", "-", "-", "-", c.problem});
      continue;
    }
    bool any = c.max_index >= 0;
    t.AddRow({label, c.equal ? "ok" : "DIFFERS", any ? Number(c.max_abs_diff) : "-", any ? c.max_position : "-",
              any ? Number(c.got) : "-", any ? Number(c.want) : "-",
              std::to_string(c.mismatches) + " of " + std::to_string(c.elements)});
  }
  if (tol.exact) {
    os << "\ncompared bit for bit (--exact)\n";
  } else {
    os << "\ncompared with rtol " << Number(tol.rtol) << ", atol " << Number(tol.atol) << "\n";
  }
  t.Print(os);
  os << (all ? "outputs match\n" : "outputs differ\n");
  return all;
}

}  // namespace aotrt_cli
