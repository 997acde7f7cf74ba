// Verifier of the property produced by the atomic-accumulator pass: every
// atomic of a device function accumulates into a VMEM scratch that names the
// ref parameter it stands for,
//
//   out_acc: ref<f32[64, 128]> = scratch() {shape = ..., dtype = f32,
//                                           accumulates = "out"}
//   atomic {op = "add"} out_acc[:, :] = ...
//
// whose dtype is f32 for a bf16 / f16 ref and the ref's own dtype otherwise,
// and whose rank is the ref's.
#include <map>
#include <string>

#include "atomic_accumulator.h"
#include "fmt/format.h"
#include "tessera/ir/verifier.h"

namespace tessera {
namespace {

struct ScratchDef {
  Type type;
  const std::string* accumulates = nullptr;  // null: a plain scratch
};

void CheckDevice(const Function& device, VerificationReporter& reporter) {
  std::map<std::string, const Value*> ref_params;
  for (const Value& param : device.params) {
    if (param.type.is_ref()) ref_params[param.name] = &param;
  }
  std::map<std::string, ScratchDef> scratches;
  WalkStmts(device.body, [&](const Stmt& stmt) {
    if (stmt.kind != StmtKind::kAssign || stmt.results.size() != 1 ||
        !stmt.value || stmt.value->op != OpKind::kScratch) {
      return;
    }
    scratches[stmt.results[0].name] =
        ScratchDef{stmt.results[0].type,
                   GetAttr<std::string>(stmt.value->attrs, "accumulates")};
  });
  WalkStmts(device.body, [&](const Stmt& stmt) {
    if (stmt.kind != StmtKind::kAtomic || !stmt.target) return;
    if (stmt.target->op != OpKind::kVar) {
      reporter.StmtError(stmt, "atomic target is not a named ref");
      return;
    }
    const std::string& name = stmt.target->name;
    auto scratch = scratches.find(name);
    if (scratch == scratches.end() || scratch->second.accumulates == nullptr) {
      reporter.StmtError(
          stmt, fmt::format("atomic target '{}' is not an accumulator (a "
                            "`scratch` with an `accumulates` attribute)",
                            name));
      return;
    }
    const std::string& accumulated = *scratch->second.accumulates;
    auto param = ref_params.find(accumulated);
    if (param == ref_params.end()) {
      reporter.StmtError(
          stmt, fmt::format("accumulator '{}' accumulates '{}', which is not "
                            "a ref parameter of @{}",
                            name, accumulated, device.name));
      return;
    }
    const Type& acc_type = scratch->second.type;
    const Type& ref_type = param->second->type;
    const DType expected = AccumulatorDType(ref_type.dtype);
    if (acc_type.dtype != expected) {
      reporter.StmtError(
          stmt, fmt::format("accumulator '{}' of {} ref '{}' must be {}, is {}",
                            name, DTypeName(ref_type.dtype), accumulated,
                            DTypeName(expected), DTypeName(acc_type.dtype)));
    }
    if (acc_type.rank() != ref_type.rank()) {
      reporter.StmtError(
          stmt,
          fmt::format("accumulator '{}' has rank {}, ref '{}' has rank {}",
                      name, acc_type.rank(), accumulated, ref_type.rank()));
    }
  });
}

void CheckAtomicAccumulated(const Module& module,
                            VerificationReporter& reporter) {
  for (const Function& function : module.functions) {
    if (function.kind == FunctionKind::kDevice) CheckDevice(function, reporter);
  }
}

}  // namespace

PropertyInfo AtomicAccumulatedPropertyInfo() {
  return PropertyInfo{"atomic_accumulated",
                      "every atomic of a device function accumulates into a "
                      "VMEM scratch of its block (f32 for bf16 / f16 targets)",
                      &CheckAtomicAccumulated};
}

Property AtomicAccumulatedProperty() {
  return RegisterProperty(AtomicAccumulatedPropertyInfo()).value_or(Property());
}

}  // namespace tessera
