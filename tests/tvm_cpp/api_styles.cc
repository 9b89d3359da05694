// The calls deployment programs make of TVM's C++ runtime API (issue 38's list), each checked
// against TVM's behaviour on the real tiny_add_c AOT export (out = a + b, float32 [1]), failure
// paths included: where TVM aborts, a tvm::runtime::Error with TVM's message is thrown.
//   api_styles FIXTURES_DIR     (exit 77 when the folder is absent)
#include <tvm/runtime/container/adt.h>
#include <tvm/runtime/container/array.h>
#include <tvm/runtime/container/map.h>
#include <tvm/runtime/container/shape_tuple.h>
#include <tvm/runtime/container/string.h>
#include <tvm/runtime/data_type.h>
#include <tvm/runtime/device_api.h>
#include <tvm/runtime/logging.h>
#include <tvm/runtime/module.h>
#include <tvm/runtime/ndarray.h>
#include <tvm/runtime/packed_func.h>
#include <tvm/runtime/profiling.h>
#include <tvm/runtime/registry.h>

#include <aotrt/model.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "check.h"

using namespace tvm::runtime;  // NOLINT: as deployment programs write it
using tvm_cpp_test::Expect;

static int checks = 0;
#define EXPECT(cond) (++checks, Expect((cond), #cond))

// `f` throws a tvm::runtime::Error whose what() contains `text`.
static void ExpectError(const std::function<void()>& f, const std::string& text) {
  ++checks;
  try {
    f();
    Expect(false, "no error; expected one containing '" + text + "'");
  } catch (const tvm::Error& e) {
    Expect(std::string(e.what()).find(text) != std::string::npos,
           "error '" + std::string(e.what()) + "' lacks '" + text + "'");
  }
}

TVM_REGISTER_GLOBAL("tvm_cpp_test.add").set_body_typed([](int a, int b) { return a + b; });
TVM_REGISTER_GLOBAL("tvm_cpp_test.type_key").set_body_typed([](Module m, PackedFunc f) {
  return std::string(m->type_key()) + (f != nullptr ? "+f" : "");
});
TVM_REGISTER_GLOBAL("tvm_cpp_test.describe").set_body([](TVMArgs args, TVMRetValue* rv) {
  std::string s = args[0];  // str, bytes or String
  *rv = s + "/" + std::to_string(args.size());
});

static void PackedCalls(const std::string& dir) {
  DLDevice dev{kDLCPU, 0};
  Module factory = Module::LoadFromFile(dir + "/model.so", "so");
  EXPECT(factory->type_key() == std::string("AotExecutorFactory"));
  Module gmod = factory.GetFunction("default")(dev);
  EXPECT(gmod.defined() && gmod != nullptr);
  EXPECT(gmod.GetFunction("no_such_function") == nullptr);
  // A null function from a module remembers what was asked of whom, and says so when called.
  PackedFunc other = factory.GetFunction("other_model");
  EXPECT(other == nullptr);
  ExpectError([&] { other(dev); }, "calling a function a lookup did not find: module 'AotExecutorFactory' has no "
              "function 'other_model': the library's model is 'default': create an executor with "
              "GetFunction(\"default\")(device)");
  ExpectError([&] { gmod.GetFunction("no_such_function").CallPacked(TVMArgs(nullptr, nullptr, 0), nullptr); },
              "module 'AotExecutor' has no function 'no_such_function'");
  EXPECT(!factory.GetFunction("tvmgen_default_fused_add"));
  EXPECT(factory.GetFunction("tvmgen_default_fused_add", true) != nullptr);

  NDArray a = NDArray::Empty({1}, DLDataType{kDLFloat, 32, 1}, dev);
  NDArray b = NDArray::Empty(ShapeTuple({1}), DataType::Float(32), dev);
  NDArray out = NDArray::Empty(std::vector<int64_t>{1}, DataType::Float(32), dev);
  static_cast<float*>(a->data)[0] = 1.5f;
  static_cast<float*>(b->data)[0] = 2.0f;
  gmod.GetFunction("set_input")("a", a);                       // const char*, NDArray
  gmod.GetFunction("set_input")(std::string("b"), b.operator->());  // std::string, DLTensor*
  gmod.GetFunction("run")();
  gmod.GetFunction("get_output")(0, out);
  EXPECT(static_cast<float*>(out->data)[0] == 3.5f);

  int num_outputs = gmod.GetFunction("get_num_outputs")();
  int64_t num_inputs = gmod.GetFunction("get_num_inputs")();
  std::string name = gmod.GetFunction("get_input_name")(1);
  NDArray got = gmod.GetFunction("get_output")(0);
  ObjectRef info_obj = gmod.GetFunction("get_input_info")();
  EXPECT(num_outputs == 1 && num_inputs == 2 && name == "b");
  EXPECT(static_cast<float*>(got->data)[0] == 3.5f && info_obj.defined());
  ExpectError([&] { Module m = gmod.GetFunction("get_num_outputs")(); }, "expected Module, got int");
  PackedFunc run = (*Registry::Get("runtime.ModuleGetFunction"))(gmod, "run", false);  // a PackedFunc result
  std::string key = (*Registry::Get("tvm_cpp_test.type_key"))(gmod, run);            // Module, PackedFunc args
  EXPECT(run != nullptr && key == "AotExecutor+f");
  ExpectError([&] { gmod.GetFunction("set_input")("nope", a); }, "nope");

  // The raw convention: TVMArgsSetter + CallPacked.
  TVMValue values[2];
  int codes[2];
  TVMArgsSetter setter(values, codes);
  setter(0, "a");
  setter(1, b);
  TVMRetValue rv;
  gmod.GetFunction("set_input").CallPacked(TVMArgs(values, codes, 2), &rv);
  gmod.GetFunction("run")();
  EXPECT(static_cast<float*>(gmod.GetFunction("get_output")(0).operator NDArray()->data)[0] == 4.0f);

  // get_input_info: Map<String, ObjectRef> of "shape" and "dtype".
  Map<String, ObjectRef> info = Downcast<Map<String, ObjectRef>>(info_obj);
  Map<String, ShapeTuple> shapes = Downcast<Map<String, ShapeTuple>>(info["shape"]);
  Map<String, String> dtypes = Downcast<Map<String, String>>(info.at("dtype"));
  EXPECT(info.count("shape") == 1 && shapes.size() == 2 && shapes["a"].size() == 1 && shapes["a"][0] == 1);
  EXPECT(dtypes["b"] == "float32" && !dtypes.Get("c").defined());
  int seen = 0;
  for (const auto& kv : shapes) seen += kv.first == "a" || kv.first == "b";
  EXPECT(seen == 2);
  ExpectError([&] { shapes.at("c"); }, "key is not in Map");

  // profiling::Report over aotrt's operator profile.
  aotrt::Executor ex = aotrt::Model::FromModule(factory).CreateExecutor();
  aotrt::OperatorProfileOptions po;
  po.runs = 20;
  profiling::Report report(aotrt::ProfileOperators(ex, po));
  EXPECT(report.AsTable().size() > 0 && report.AsCSV().str().rfind("name,", 0) == 0);

  // The graph debug executor's profile_rpc() returns TVM's report JSON; a Report reads it.
  const std::string json =
      R"j({"calls": [{"Name": {"string": "fused_conv"}, "Argument Shapes": {"string": "float32[1, 3]"}, )j"
      R"j("Device": {"string": "cpu0"}, "Count": {"count": 1}, "Duration (us)": {"microseconds": 12.5}, )j"
      R"j("Percent": {"percent": 80}}], "device_metrics": {"cpu0": {"Name": {"string": "Total"}}}})j";
  Registry::Register("tvm_cpp_test.report").set_body([json](TVMArgs, TVMRetValue* rv) { *rv = json; });
  profiling::Report from_json = (*Registry::Get("tvm_cpp_test.report"))(Array<profiling::MetricCollector>());
  std::string table = from_json->AsTable();
  EXPECT(table.find("fused_conv") != std::string::npos && table.find("12.50") != std::string::npos);
  EXPECT(from_json.AsCSV().str().find("\nfused_conv,12.50,80.00,1,\"float32[1, 3]\"\n") != std::string::npos);
  EXPECT(from_json.AsJSON() == json);
  ExpectError([] { profiling::Report::FromJSON("{}"); }, "no \"calls\"");
}

static void Registry_() {
  const PackedFunc* syslib = Registry::Get("runtime.SystemLib");
  EXPECT(syslib != nullptr && Registry::Get("runtime.SystemLib") == syslib);
  EXPECT(Registry::Get("no.such.global") == nullptr);
  EXPECT(Registry::Get("relay.build_module._BuildModule") == nullptr);  // the compiler: not offered
  const PackedFunc* add = Registry::Get("tvm_cpp_test.add");
  int sum = (*add)(2, 3);
  EXPECT(sum == 5);
  ExpectError([&] { (*add)(1); }, "expects 2 arguments, but 1 were provided");
  ExpectError([&] { (*add)("x", 2); }, "expected int, got str");
  ExpectError([] { Registry::Register("tvm_cpp_test.add").set_body_typed([](int a) { return a; }); },
              "tvm_cpp_test.add");
  Registry::Register("tvm_cpp_test.add", true).set_body_typed([](int a, int b) { return a * b; });
  EXPECT((*add)(2, 3).operator int() == 6);  // the same pointer follows the override
  std::vector<String> names = Registry::ListNames();
  EXPECT(std::find(names.begin(), names.end(), String("tvm_cpp_test.describe")) != names.end());
  EXPECT(Registry::Remove("tvm_cpp_test.add") && !Registry::Remove("tvm_cpp_test.add"));

  PackedFunc describe = *Registry::Get("tvm_cpp_test.describe");
  TVMByteArray bytes{"a\0b", 3};
  std::string d1 = describe(bytes, 1.5);
  std::string d2 = describe(String("s"));
  EXPECT(d1 == std::string("a\0b/2", 5) && d2 == "s/1");
  TypedPackedFunc<std::string(std::string, int)> typed = describe;
  EXPECT(typed("x", 0) == "x/2");
  TypedPackedFunc<int64_t(int64_t)> twice([](int64_t x) { return 2 * x; });
  PackedFunc as_packed = twice;
  int64_t t = as_packed(int64_t{1} << 40);
  EXPECT(t == int64_t{1} << 41 && twice(21) == 42);
}

static void Arrays() {
  DLDevice dev{kDLCPU, 0};
  NDArray x = NDArray::Empty({2, 3}, DataType::Float(32), dev);
  EXPECT(x.Shape().size() == 2 && x.Shape()[1] == 3 && x->shape[0] == 2 && x->ndim == 2);
  EXPECT(x.DataType() == DataType::Float(32) && x.DataType().bits() == 32 && x.DataType().bytes() == 4);
  EXPECT(x.DataType().is_float() && !x.DataType().is_int() && DataType::Int(8).is_int() && DataType::Bool().is_bool());
  EXPECT(x.IsContiguous() && NDArray::IsAligned(*x.operator->()) && GetDataSize(*x.operator->()) == 24);
  EXPECT(DLDataType2String(DataType::UInt(8)) == "uint8" && String2DLDataType("int16").bits == 16);
  float v[6] = {0, 1, 2, 3, 4, 5}, w[6] = {};
  x.CopyFromBytes(v, sizeof(v));
  NDArray y = NDArray::Empty({6}, DataType::Float(32), dev);
  y.CopyFrom(x);
  y.CopyFrom(x.operator->());
  NDArray z = y.CopyTo(dev);
  z.CopyTo(y.operator->());
  Array<NDArray> list{x, y};
  ObjectRef x_obj = x;
  EXPECT(list.size() == 2 && list[1].same_as(y) && Downcast<NDArray>(x_obj).same_as(x) && x_obj.as<NDArray::Container>());
  z.CopyToBytes(w, sizeof(w));
  EXPECT(w[5] == 5 && z->shape[0] == 6);
  NDArray view = x.CreateView({3, 2}, DataType::Float(32));
  NDArray tail = x.CreateView({2}, DataType::Float(32), 16);
  EXPECT(static_cast<float*>(view->data)[5] == 5 && static_cast<float*>(tail->data)[tail->byte_offset / 4] == 4);
  ExpectError([&] { x.CreateView({7}, DataType::Float(32)); }, "exceeds");
  ExpectError([&] { x.CopyFromBytes(v, 4); }, "size");
  ExpectError([&] { NDArray::Empty({1}, DataType::Float(32), DLDevice{kDLROCM, 0}); }, "");
  NDArray back = NDArray::FromDLPack(x.ToDLPack());
  EXPECT(back->data == x->data && x.use_count() >= 2);

  DLTensor* t;
  int64_t shape[1] = {6};
  EXPECT(TVMArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &t) == 0);
  EXPECT(TVMArrayCopyFromBytes(t, v, sizeof(v)) == 0 && TVMSynchronize(kDLCPU, 0, nullptr) == 0);
  NDArray u = NDArray::NewFromDLTensor(t, dev);
  EXPECT(static_cast<float*>(u->data)[4] == 4 && TVMArrayFree(t) == 0);

  DeviceAPI::Get(dev)->SetStream(dev, nullptr);
  DeviceAPI::Get(dev)->StreamSync(dev, nullptr);
  EXPECT(DeviceAPI::Get(DLDevice{kDLROCM, 0}, true) == nullptr);
  ExpectError([] { DeviceAPI::Get(DLDevice{kDLROCM, 0}); }, "rocm");
}

// A program's own object types (TypeIndex::kDynamic), declared as TVM's own tests declare them.
class ShapeNode : public Object {
 public:
  static constexpr const char* _type_key = "tvm_cpp_test.Shape";
  TVM_DECLARE_BASE_OBJECT_INFO(ShapeNode, Object);
};
class CircleNode : public ShapeNode {
 public:
  explicit CircleNode(double r) : radius(r) {}
  double radius;
  static constexpr const char* _type_key = "tvm_cpp_test.Circle";
  TVM_DECLARE_FINAL_OBJECT_INFO(CircleNode, ShapeNode);
};
class Circle : public ObjectRef {
 public:
  TVM_DEFINE_OBJECT_REF_METHODS(Circle, ObjectRef, CircleNode);
};
TVM_REGISTER_OBJECT_TYPE(CircleNode);
static_assert(std::is_same_v<detail::function_signature<TypedPackedFunc<int(float)>>::FType, int(float)>);

// Issue 45's list from TVM's own unit tests: user objects, Optional, ADT, String::compare, "float", Timer.
static void TvmUnitTestSemantics(const String& s) {
  ObjectRef c(make_object<CircleNode>(2.0));
  EXPECT(c.as<ShapeNode>() && c.as<CircleNode>()->radius == 2.0 && !c.as<StringObj>() && !s.as<ShapeNode>());
  PackedFunc echo([](TVMArgs args, TVMRetValue* rv) { *rv = args[0]; });
  Circle circle = echo(c);
  EXPECT(circle->radius == 2.0 && circle.same_as(c) && echo(ObjectRef(c)).operator ObjectRef().same_as(c));
  ExpectError([&] { Downcast<Circle>(s); }, "Downcast from runtime.String to tvm_cpp_test.Circle failed.");
  Optional<String> opt = String("abc");
  EXPECT(opt == "abc" && opt != "abd" && opt == Optional<String>(String("abc")) && Optional<String>() != opt);
  EXPECT(String("a\0b", 3).compare(String("a\0c", 3)) == -1 && String("b").compare("a") == 1);
  EXPECT(ADT::Tuple(std::vector<ObjectRef>{s, s}).size() == 2);
  EXPECT(DataType(String2DLDataType("float")) == DataType::Float(32));
  Timer t = Timer::Start(DLDevice{kDLCPU, 0});
  t->Stop();
  EXPECT(t->SyncAndGetElapsedNanos() >= 0);
}

static void Objects() {
  String s = "abc";
  EXPECT(s == "abc" && s.size() == 3 && std::string(s) == "abc" && s != String("abd"));
  Array<String> arr{"x", "y"};
  arr.push_back("z");
  EXPECT(arr.size() == 3 && arr[2] == "z" && arr.back() == "z");
  ExpectError([&] { arr[5]; }, "IndexError: indexing 5 on an array of size 3");
  std::string joined;
  for (String e : arr) joined += e;
  EXPECT(joined == "xyz");
  ShapeTuple shape{1, 3, 224, 224};
  std::vector<int64_t> dims = shape;
  EXPECT(shape.size() == 4 && shape[3] == 224 && dims[1] == 3);

  NDArray nd = NDArray::Empty({1}, DataType::Int(32), DLDevice{kDLCPU, 0});
  ADT tuple = ADT::Tuple(nd, s);
  EXPECT(tuple.tag() == 0 && tuple.size() == 2 && Downcast<NDArray>(tuple[0]).same_as(nd));
  ObjectRef as_obj = tuple[1];
  EXPECT(as_obj.as<StringObj>() != nullptr && as_obj.as<ADTObj>() == nullptr);
  EXPECT(as_obj.as<String>().value() == "abc" && !as_obj.as<ShapeTuple>());
  EXPECT(GetRef<String>(as_obj.as<StringObj>()) == "abc");
  ExpectError([&] { Downcast<String>(tuple[0]); }, "Downcast from runtime.NDArray to runtime.String failed.");
  TvmUnitTestSemantics(s);
}

static void Logging() {
  LOG(INFO) << "logging from a program written for TVM";
  ExpectError([] { CHECK(1 + 1 == 3) << "arithmetic"; }, "Check failed: (1 + 1 == 3) is false: arithmetic");
  ExpectError([] { ICHECK_EQ(1, 2) << "why"; }, "Check failed: 1 == 2 (1 vs. 2) : why");
  ExpectError([] { LOG(FATAL) << "fatal " << 42; }, "fatal 42");
  ++checks;
  try {
    ICHECK_LT(3, 2);
  } catch (const InternalError& e) {
    Expect(e.lineno() > 0 && e.code() == tvm::runtime::ErrorCode::kInternal, "InternalError carries file and line");
  }
  ExpectError([] { Module::LoadFromFile("/no/such/model.so"); }, "/no/such/model.so");
}

int Main(int argc, char** argv) {
  std::string fixtures = argc > 1 ? argv[1] : "";
  if (fixtures.empty() || !tvm_cpp_test::Exists(fixtures + "/tiny_add_c/model.so")) {
    std::printf("skipped: the real TVM exports (%s) are absent\n", fixtures.c_str());
    return tvm_cpp_test::kSkip;
  }
  PackedCalls(fixtures + "/tiny_add_c");
  Registry_();
  Arrays();
  Objects();
  Logging();
  return tvm_cpp_test::Finish("api_styles", checks);
}

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const tvm::Error& e) {
    std::fprintf(stderr, "api_styles: unexpected error: %s\n", e.what());
    return 1;
  }
}
