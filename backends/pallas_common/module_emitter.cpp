#include <algorithm>
#include <cctype>
#include <numeric>
#include <utility>

#include "empty_grid.h"
#include "fmt/format.h"
#include "host_contract.h"
#include "host_reads.h"
#include "launch_call.h"
#include "pallas_module.h"
#include "py_text.h"
#include "scalar_prefetch.h"
#include "tessera/python_literal.h"

namespace tessera::pallas {

namespace {

void AddTypeNames(const Type& type, NameTable& names) {
  for (const Dim& dim : type.shape) {
    if (!dim.is_static()) names.AddSourceName(dim.symbol);
  }
}

// Every IR name of a function becomes a taken Python identifier first, so
// generated names never collide with them.
void RegisterNames(const Function& function, NameTable& names) {
  for (const Value& param : function.params) {
    names.AddSourceName(param.name);
    AddTypeNames(param.type, names);
  }
  WalkStmts(function.body, [&](const Stmt& stmt) {
    for (const auto* values : {&stmt.results, &stmt.vars, &stmt.iter_args}) {
      for (const Value& value : *values) {
        names.AddSourceName(value.name);
        AddTypeNames(value.type, names);
      }
    }
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op == OpKind::kVar) names.AddSourceName(expr.name);
      });
    });
  });
}

struct HostAlloc {
  OpKind kind = OpKind::kVar;  // kEmpty, kAllocFull, kReshape, ...; kVar: param
  Shape shape;
  DType dtype = DType::kF32;
};

class HostEmitter : public ExprEmitter {
 public:
  HostEmitter(const Module& module, const Function& host,
              const PallasTarget& target, const PallasModuleOptions& options,
              DiagnosticEngine& diagnostics)
      : module_(module),
        host_(host),
        target_(target),
        options_(options),
        diagnostics_(diagnostics) {}

  absl::StatusOr<EmittedFile> Run();
  const KernelCost& cost() const { return cost_; }

 private:
  // "add.py:17": the kernel's line, as the frontend's checks name it.
  std::string KernelLine() const {
    const std::string& file = module_.source_file;
    const size_t slash = file.find_last_of('/');
    return fmt::format(
        "{}:{}", slash == std::string::npos ? file : file.substr(slash + 1),
        host_.loc.line);
  }
  std::string Var(const Expr& expr) override { return Name(expr.name); }
  std::string DimSymbol(const std::string& symbol) override {
    return Name(symbol);
  }
  // Host scalars computed from sizes and constants only are Python numbers
  // when the host function is traced (sizes are static under jax.jit): they
  // use `math`, so a device kernel may close over them.
  bool IsStaticScalar(const Expr& expr) const {
    if (!expr.type.is_scalar()) return false;
    switch (expr.op) {
      case OpKind::kConst:
      case OpKind::kSize:
        return true;
      case OpKind::kVar:
        return expr.type.dtype == DType::kI64 ||
               static_scalars_.count(expr.name) != 0;
      default:
        return std::all_of(
            expr.operands.begin(), expr.operands.end(),
            [&](const ExprPtr& operand) { return IsStaticScalar(*operand); });
    }
  }
  std::string MathFunction(std::string_view jnp_name,
                           const Expr& expr) override {
    static const std::map<std::string_view, std::string_view> kMath = {
        {"jnp.sqrt", "math.sqrt"}, {"jnp.exp", "math.exp"},
        {"jnp.log", "math.log"},   {"jnp.log2", "math.log2"},
        {"jnp.tanh", "math.tanh"}, {"jax.lax.erf", "math.erf"}};
    auto it = kMath.find(jnp_name);
    if (it == kMath.end() || !IsStaticScalar(expr)) {
      return std::string(jnp_name);
    }
    return std::string(it->second);
  }
  // Host code after the kernel reads arrays whole (`x.sum(0)` on a result).
  std::string Load(const Expr& expr) override {
    for (const Index& index : expr.indices) {
      if (index.kind != IndexKind::kSlice) return ExprEmitter::Load(expr);
    }
    return Sub(*expr.operands[0]);
  }
  std::string Name(const std::string& ir_name) {
    std::string name = SanitizeIdentifier(ir_name);
    if (!defined_.count(ir_name)) {
      // A shape symbol bound by a parameter's type.
      auto it = implicit_.find(ir_name);
      if (it != implicit_.end() && prelude_defined_.insert(ir_name).second) {
        prelude_.Line(fmt::format("{} = {}", name, it->second));
      }
    }
    return name;
  }
  bool Fail(SourceLoc loc, std::string message) {
    diagnostics_.Error(module_.source_file, loc, std::move(message));
    return false;
  }
  bool FlushErrors(SourceLoc loc) {
    bool ok = true;
    for (; reported_ < errors().size(); ++reported_) {
      Fail(loc, errors()[reported_]);
      ok = false;
    }
    return ok;
  }
  std::string HostDim(const std::string& host_ref, size_t d);
  std::string PadMultiple(const RefPlan& ref, size_t d,
                          const std::string& host_name);
  bool EmitStmt(const Stmt& stmt);
  bool EmitLaunch(const Stmt& launch);
  void RebindViewedArrays(const std::string& output);
  bool EmitHostStore(const Stmt& store);
  void SourceComment(const Stmt& stmt) {
    if (!stmt.loc.known() || stmt.loc.line == last_line_) return;
    last_line_ = stmt.loc.line;
    body_.Line(fmt::format("# src: line {}", stmt.loc.line));
  }

  const Module& module_;
  const Function& host_;
  const PallasTarget& target_;
  const PallasModuleOptions& options_;
  DiagnosticEngine& diagnostics_;
  ModuleState state_;
  KernelPlan plan_;
  std::map<std::string, std::string> implicit_;
  std::set<std::string> defined_;
  std::set<std::string> prelude_defined_;
  std::map<std::string, HostAlloc> allocs_;
  std::set<std::string> static_scalars_;
  // Rank-generic parameter -> the name holding its shape as passed.
  std::map<std::string, std::string> caller_shapes_;
  std::map<std::string, int> host_uses_;
  // `out_flat = out.view(-1)` of a fresh `out`: the launch produces the
  // view, and `out` is the view reshaped back (RebindViewedArrays).
  std::map<std::string, std::string> fresh_view_of_;  // view -> viewed
  std::map<std::string, int> view_uses_;  // uses of an array by such views
  std::vector<HostRead> host_reads_;
  PyLines static_lines_;  // host scalars from sizes: what a read may index by
  PyLines prelude_;
  PyLines body_;
  PyLines kernel_;
  uint32_t last_line_ = 0;
  size_t reported_ = 0;
  bool launched_ = false;
  KernelCost cost_;
};

std::string HostEmitter::HostDim(const std::string& host_ref, size_t d) {
  // The dims of the host value's type (host names), so that the value can
  // be rebound (by the pallas_call) without losing its original shape.
  auto it = allocs_.find(host_ref);
  if (it != allocs_.end() && d < it->second.shape.size()) {
    const Dim& dim = it->second.shape[d];
    return dim.is_static() ? fmt::format("{}", dim.size)
                           : DimSymbol(dim.symbol);
  }
  return fmt::format("{}.shape[{}]", Name(host_ref), d);
}

// `grad[:, -1, :] = 0` after the kernel: the result array is updated
// functionally (`grad = grad.at[:, s - 1, :].set(...)`). Before the launch
// the kernel would have to take the stored values as its output's initial
// contents, which the plan does not know about: an error there.
bool HostEmitter::EmitHostStore(const Stmt& store) {
  if (!launched_ || store.target == nullptr ||
      store.target->op != OpKind::kVar) {
    return Fail(store.loc,
                "a store to a tensor outside an hl.tile loop is supported "
                "only after the kernel's loops (on its results)");
  }
  SourceComment(store);
  // The region spelled as a host slice of the target (`grad[:, s - 1, :]`).
  Expr region;
  region.op = OpKind::kSliceView;
  region.type = store.target->type;
  region.operands.push_back(CloneExpr(*store.target));
  for (const Index& item : store.indices) {
    region.indices.push_back(CloneIndex(item));
  }
  const std::string sliced = Emit(region);
  const std::string index = sliced.substr(sliced.find('[') + 1);
  const std::string name = Name(store.target->name);
  const std::string value = Emit(*store.value);
  if (!FlushErrors(store.loc)) return false;
  body_.Line(fmt::format("{} = {}.at[{}.set({})", name, name, index, value));
  return true;
}

bool HostEmitter::EmitStmt(const Stmt& stmt) {
  switch (stmt.kind) {
    case StmtKind::kAssign: {
      const Value& target = stmt.results[0];
      const Expr& value = *stmt.value;
      defined_.insert(target.name);
      std::string name = SanitizeIdentifier(target.name);
      if (ContainsHostRead(value)) {  // host_reads.h
        auto read = HostReadValue(value, host_, launched_,
                                  [&](const Expr& e) { return Emit(e); });
        if (!read.ok())
          return Fail(stmt.loc, std::string(read.status().message()));
        static_scalars_.insert(target.name);
        host_reads_.push_back(HostRead{name, *read});
        return FlushErrors(stmt.loc);
      }
      HostAlloc alloc;
      alloc.kind = value.op;
      alloc.shape = target.type.shape;
      alloc.dtype = target.type.dtype;
      // A view of a fresh array (lane_rows.h) is as fresh: the pallas_call
      // creates it, the host only states its shape.
      const bool fresh_view =
          value.op == OpKind::kReshape && !value.operands.empty() &&
          value.operands[0]->op == OpKind::kVar &&
          allocs_.count(value.operands[0]->name) &&
          allocs_[value.operands[0]->name].kind == OpKind::kEmpty;
      if (value.op == OpKind::kEmpty || fresh_view) {
        alloc.kind = OpKind::kEmpty;
        allocs_[target.name] = alloc;
        if (fresh_view) {
          fresh_view_of_[target.name] = value.operands[0]->name;
          ++view_uses_[value.operands[0]->name];
        }
        return true;
      }
      if (target.type.is_ref()) allocs_[target.name] = alloc;
      if (IsStaticScalar(value)) static_scalars_.insert(target.name);
      if (value.op != OpKind::kAllocFull && value.op != OpKind::kReshape &&
          value.op != OpKind::kTranspose && value.op != OpKind::kSliceView &&
          host_uses_[target.name] == 0) {
        return true;
      }
      SourceComment(stmt);
      std::string text;
      if (value.op == OpKind::kAllocFull) {
        const DType* dtype = GetAttr<DType>(value.attrs, "dtype");
        DType dt = dtype ? *dtype : target.type.dtype;
        const Attr* fill = value.attr("value");
        std::string literal = "0";
        if (fill) {
          if (const double* d = std::get_if<double>(&fill->value)) {
            literal = PythonFloatLiteral(*d);
          } else if (const int64_t* i = std::get_if<int64_t>(&fill->value)) {
            literal = IsFloat(dt) ? PythonFloatLiteral(double(*i))
                                  : fmt::format("{}", *i);
          } else if (const bool* b = std::get_if<bool>(&fill->value)) {
            literal = *b ? "True" : "False";
          }
        }
        text =
            fmt::format("jnp.full({}, {}, {})", ShapeTuple(target.type.shape),
                        literal, JnpDType(dt));
      } else if (value.op == OpKind::kReshape) {
        text = fmt::format("jnp.reshape({}, {})", Emit(*value.operands[0]),
                           ShapeTuple(target.type.shape));
      } else if (value.op == OpKind::kTranspose) {
        const auto* perm = GetAttr<std::vector<int64_t>>(value.attrs, "perm");
        std::string perm_text = "(";
        if (perm) {
          for (size_t i = 0; i < perm->size(); ++i) {
            perm_text += fmt::format("{}{}", i ? ", " : "", (*perm)[i]);
          }
          if (perm->size() == 1) perm_text += ",";
        }
        text = fmt::format("jnp.transpose({}, {})", Emit(*value.operands[0]),
                           perm_text + ")");
      } else {
        text = Emit(value);
      }
      if (!FlushErrors(stmt.loc)) return false;
      body_.Line(fmt::format("{} = {}", name, text));
      if (static_scalars_.count(target.name)) {
        static_lines_.Line(fmt::format("{} = {}", name, text));
      }
      return true;
    }
    case StmtKind::kLaunch:
      SourceComment(stmt);
      launched_ = true;
      return EmitLaunch(stmt);
    case StmtKind::kStore:
      return EmitHostStore(stmt);
    case StmtKind::kReturn: {
      // A result that is `x.view(p.size())` of a rank-generic parameter
      // takes p's shape as the caller passed it (`result_shapes`).
      const auto* shapes =
          GetAttr<std::vector<std::string>>(host_.attrs, "result_shapes");
      std::string text;
      for (size_t i = 0; i < stmt.operands.size(); ++i) {
        std::string value = Emit(*stmt.operands[i]);
        if (shapes && i < shapes->size()) {
          auto it = caller_shapes_.find((*shapes)[i]);
          if (it != caller_shapes_.end()) {
            value = fmt::format("jnp.reshape({}, {})", value, it->second);
          }
        }
        text += (i ? ", " : "") + value;
      }
      if (!FlushErrors(stmt.loc)) return false;
      body_.Line(text.empty() ? "return None" : "return " + text);
      return true;
    }
    default:
      return Fail(stmt.loc,
                  "only sizes, allocations, views, scalar math and the "
                  "launch are supported in host code");
  }
}

bool HostEmitter::EmitLaunch(const Stmt& launch) {
  const Function& device = *plan_.device;
  const size_t grid_rank = launch.dims.size();
  HostBindings bindings;
  std::map<std::string, std::string> host_ref_of;  // device ref -> host name
  for (size_t i = grid_rank; i < device.params.size(); ++i) {
    const Value& param = device.params[i];
    const Expr& operand = *launch.operands[i - grid_rank];
    if (param.type.is_ref()) {
      if (operand.op != OpKind::kVar) {
        return Fail(launch.loc, "launch arguments of ref type must be names");
      }
      host_ref_of[param.name] = operand.name;
    } else {
      bindings.symbol_values[param.name] = Emit(operand);
    }
  }
  // Shape symbols bound by the device parameters' types.
  for (size_t i = grid_rank; i < device.params.size(); ++i) {
    const Value& param = device.params[i];
    if (!param.type.is_ref()) continue;
    for (size_t d = 0; d < param.type.shape.size(); ++d) {
      const Dim& dim = param.type.shape[d];
      if (!dim.is_static() && !bindings.symbol_values.count(dim.symbol)) {
        bindings.symbol_values[dim.symbol] =
            HostDim(host_ref_of[param.name], d);
      }
    }
  }
  for (const LoopDim& dim : launch.dims) {
    bindings.grid_begin.push_back(Emit(*dim.begin));
    bindings.grid_end.push_back(Emit(*dim.end));
  }
  for (const RefPlan& ref : plan_.refs) {
    auto alloc = allocs_.find(host_ref_of[ref.name]);
    bool fresh = alloc != allocs_.end() && alloc->second.kind == OpKind::kEmpty;
    if (ref.written() && !fresh) bindings.outputs_with_init.insert(ref.name);
    if (ref.atomic && fresh && target_.NativeAtomics()) {
      // Hardware atomics add into memory: the output starts as zeros.
      const std::string name = SanitizeIdentifier(host_ref_of[ref.name]);
      body_.Line(fmt::format("{} = jnp.zeros({}, {})", name,
                             ShapeTuple(alloc->second.shape),
                             JnpDType(ref.type.dtype)));
      alloc->second.kind = OpKind::kVar;
      bindings.outputs_with_init.insert(ref.name);
    }
  }
  // An aliased output is padded to whole blocks too: the TPU interpreter
  // pads aliased buffers itself and then rejects the unpadded result.
  for (RefPlan& ref : plan_.refs) {
    if (!bindings.outputs_with_init.count(ref.name)) continue;
    for (SpecDim& dim : ref.dims) {
      if (dim.kind == SpecKind::kBlocked) {
        dim.pad_multiple = std::lcm(dim.pad_multiple, dim.block);
      }
    }
  }
  const std::vector<LaunchOutput> outputs =
      LaunchOutputs(plan_, bindings, [&](const RefPlan& ref, int d) {
        return d < 0 ? SanitizeIdentifier(host_ref_of[ref.name])
                     : HostDim(host_ref_of[ref.name], d);
      });
  const EmptyLaunchGuard guard = EmptyLaunchCondition(bindings, outputs);
  PyLines before_launch = std::exchange(body_, {});  // the rest is guarded
  // Zero-pad the arrays the kernel slices or streams, and those with a dim
  // that may be zero when the kernel runs (empty_grid.h).
  std::map<std::string, std::string> padded;  // device ref -> host array
  for (const RefPlan& ref : plan_.refs) {
    const std::string& host_name = host_ref_of[ref.name];
    bool fresh_output =
        ref.written() && !bindings.outputs_with_init.count(ref.name);
    if (fresh_output) continue;
    std::string multiples;
    bool any_multiple = false;
    for (size_t d = 0; d < ref.dims.size(); ++d) {
      multiples += (d ? ", " : "") + PadMultiple(ref, d, host_name);
      any_multiple = any_multiple || ref.dims[d].pad_multiple > 1 ||
                     ref.dims[d].pad_to_kernel_block ||
                     MayReadEmpty(guard, ref, d, HostDim(host_name, d));
    }
    if (ref.dims.size() == 1) multiples += ",";
    const bool any_extra =
        std::any_of(ref.dims.begin(), ref.dims.end(), [](const SpecDim& dim) {
          return dim.pad_extra > 0 || dim.pad_low > 0;
        });
    if (!any_multiple && !any_extra) {
      padded[ref.name] = Name(host_name);
      continue;
    }
    std::string name = state_.names.Fresh(host_name + "_padded");
    std::string source = Name(host_name);
    if (any_multiple) {
      body_.Line(fmt::format("{} = {}({}, ({}))", name, state_.Pad(), source,
                             multiples));
      source = name;
    }
    std::string extra;
    for (const SpecDim& dim : ref.dims) {
      extra += fmt::format("{}({}, {})", extra.empty() ? "" : ", ", dim.pad_low,
                           dim.pad_extra);
    }
    if (ref.dims.size() == 1) extra += ",";
    if (any_extra) {
      // A jagged block may start anywhere below the end, a shifted tile's
      // block one block outside the dim on either side: one more block.
      body_.Line(fmt::format("{} = jnp.pad({}, ({}))", name, source, extra));
    }
    padded[ref.name] = name;
  }
  bindings.ref_arrays = padded;
  if (!FlushErrors(launch.loc)) return false;

  std::unique_ptr<DeviceEmitter> device_emitter = target_.MakeDeviceEmitter(
      module_, plan_, state_, bindings, options_.emit, diagnostics_);
  if (!device_emitter->EmitKernel(kernel_)) return false;

  // Outer BlockSpecs.
  LaunchCall call;
  call.kernel_name = plan_.kernel_name;
  for (int g : plan_.grid_order) {
    call.grid_names.push_back(SanitizeIdentifier(plan_.grid_tiles[g]));
  }
  std::vector<std::string> lambda_params = call.grid_names;
  const std::vector<const RefPlan*> prefetched = ScalarPrefetchRefs(plan_);
  for (const RefPlan* ref : prefetched) {
    lambda_params.push_back(SanitizeIdentifier(ref->name));
  }
  std::string& lambda_head = call.lambda_head;
  lambda_head = "lambda";
  for (size_t i = 0; i < lambda_params.size(); ++i) {
    lambda_head += (i ? ", " : " ") + lambda_params[i];
  }
  auto padded_dim = [&](const RefPlan& ref, size_t d) {
    const std::string& host_name = host_ref_of[ref.name];
    const Dim& static_dim = ref.type.shape[d];
    if (static_dim.is_static()) {
      return fmt::format(
          "{}", PaddedStaticSize(static_dim.size, ref.dims[d], !ref.written()));
    }
    auto it = padded.find(ref.name);
    if (it != padded.end()) return fmt::format("{}.shape[{}]", it->second, d);
    std::string dim = HostDim(host_name, d);
    int64_t multiple = ref.dims[d].pad_multiple;
    if (ref.dims[d].pad_to_kernel_block) dim = target_.KernelBlockSizeText(dim);
    std::string rounded =
        multiple > 1
            ? fmt::format("{}({}, {})", state_.RoundUp(), dim, multiple)
            : dim;
    const int64_t extra = ref.dims[d].pad_extra + ref.dims[d].pad_low;
    return extra > 0 ? fmt::format("{} + {}", rounded, extra) : rounded;
  };
  std::vector<VmemBuffer> vmem;
  auto spec_of = [&](const RefPlan& ref) -> LaunchSpec {
    if (ref.stream_loop != nullptr ||
        (ref.atomic && target_.AtomicTargetsInMemory(plan_))) {
      return LaunchSpec{target_.InMemorySpec(), "", ""};
    }
    std::string block = "(", index = "(";
    // " * n" for each whole dim of symbolic size: the block's bytes then
    // depend on the call's shapes.
    std::string call_time_factors;
    std::vector<int64_t> sizes;
    for (size_t d = 0; d < ref.dims.size(); ++d) {
      const SpecDim& spec = ref.dims[d];
      std::string sep = d ? ", " : "";
      if (spec.kind == SpecKind::kBlocked) {
        const TileInfo& tile = *plan_.FindTile(spec.grid_tile);
        block += sep + fmt::format("{}", spec.block);
        const std::string& begin = bindings.grid_begin[tile.grid_index];
        int64_t offset = 0;
        if (!begin.empty() &&
            std::isdigit(static_cast<unsigned char>(begin[0]))) {
          offset = std::stoll(begin) / tile.block;
        }
        index += sep + SanitizeIdentifier(spec.grid_tile) +
                 (offset ? fmt::format(" + {}", offset) : "");
        sizes.push_back(spec.block);
      } else {
        const std::string whole = padded_dim(ref, d);
        block += sep + whole;
        index += sep + "0";
        const Dim& dim = ref.type.shape[d];
        if (!dim.is_static()) call_time_factors += " * " + Paren(whole);
        sizes.push_back(dim.is_static()
                            ? PaddedStaticSize(dim.size, spec, !ref.written())
                            : -1);
      }
    }
    if (ref.dims.size() == 1) {
      block += ",";
      index += ",";
    }
    block += ")";
    index += ")";
    int64_t static_bytes = DTypeBytes(ref.type.dtype);
    for (int64_t size : sizes) static_bytes *= size < 0 ? 1 : size;
    const std::string call_time_bytes =
        call_time_factors.empty()
            ? ""
            : fmt::format("{}{}", static_bytes, call_time_factors);
    vmem.push_back(VmemBuffer{
        fmt::format("block {} of {}{}", block, ref.name,
                    ref.lane_selected ? " (whole rows: an element gather picks "
                                        "one lane per row from them)"
                                      : ""),
        call_time_bytes.empty() ? static_bytes : 0, 2, call_time_bytes});
    if (auto problem =
            options_.check_legality
                ? target_.CheckBlock(RefBlockDims(ref), ref.type.dtype)
                : std::nullopt) {
      Fail(launch.loc,
           fmt::format("block {} of '{}' is not {}-legal: {}", block, ref.name,
                       target_.hardware_name(), *problem));
    }
    return LaunchSpec{
        fmt::format("pl.BlockSpec({}, {}: {})", block, lambda_head, index),
        block, index};
  };

  for (const RefPlan* ref : device_emitter->inputs()) {
    if (ref->scalar_prefetch) {
      call.args.push_back(ScalarPrefetchArg(state_, *ref, padded[ref->name]));
      continue;
    }
    call.in_specs.push_back(spec_of(*ref));
    call.args.push_back(padded[ref->name]);
  }
  for (size_t i = 0; i < device_emitter->init_refs().size(); ++i) {
    const RefPlan* ref = device_emitter->init_refs()[i];
    call.in_specs.push_back(spec_of(*ref));
    call.args.push_back(padded[ref->name]);
    size_t out_index = 0;
    for (size_t o = 0; o < device_emitter->outputs().size(); ++o) {
      if (device_emitter->outputs()[o] == ref) out_index = o;
    }
    call.aliases.emplace_back(prefetched.size() + call.in_specs.size() - 1,
                              out_index);
  }
  for (const RefPlan* ref : device_emitter->outputs()) {
    call.out_specs.push_back(spec_of(*ref));
    std::string shape = "(";
    for (size_t d = 0; d < ref->dims.size(); ++d) {
      shape += (d ? ", " : "") + padded_dim(*ref, d);
    }
    if (ref->dims.size() == 1) shape += ",";
    shape += ")";
    call.out_shapes.push_back(fmt::format("jax.ShapeDtypeStruct({}, {})", shape,
                                          JnpDType(ref->type.dtype)));
    call.out_names.push_back(SanitizeIdentifier(host_ref_of[ref->name]));
  }
  if (!FlushErrors(launch.loc) || diagnostics_.has_errors()) return false;
  for (const VmemBuffer& buffer : device_emitter->vmem_buffers()) {
    vmem.push_back(buffer);
  }
  if (std::optional<std::string> error = target_.CallParams(
          plan_, bindings, vmem, state_, call.call_params, cost_)) {
    return Fail(launch.loc, *error);
  }

  // The launch.
  call.kernel_fn = device_emitter->kernel_fn();
  call.kernel_params = device_emitter->kernel_params();
  call.kwargs = device_emitter->kwargs();
  call.scratch_shapes = device_emitter->scratch_shapes();
  call.num_prefetched = prefetched.size();
  if (!prefetched.empty()) call.grid_spec = target_.ScalarPrefetchGridSpec();
  std::string& grid = call.grid;
  grid = "(";
  for (size_t i = 0; i < plan_.grid_order.size(); ++i) {
    int g = plan_.grid_order[i];
    const TileInfo& tile = *plan_.FindTile(plan_.grid_tiles[g]);
    const std::string& begin = bindings.grid_begin[g];
    const std::string& end = bindings.grid_end[g];
    std::string extent =
        begin == "0" ? end : fmt::format("{} - ({})", end, begin);
    grid += fmt::format("{}pl.cdiv({}, {})", i ? ", " : "", extent, tile.block);
  }
  if (plan_.grid_order.size() == 1) grid += ",";
  grid += ")";
  // A launch known to be empty writes none (its helpers would go unused).
  if (guard.when != LaunchEmptiness::kAlways)
    target_.WriteLaunch(call, state_, body_);
  // The outputs now hold the kernel's results: no longer fresh arrays.
  for (const RefPlan* ref : device_emitter->outputs()) {
    auto alloc = allocs_.find(host_ref_of[ref->name]);
    if (alloc != allocs_.end()) alloc->second.kind = OpKind::kVar;
  }
  // Crop the padded outputs back to their shapes.
  for (const RefPlan* ref : device_emitter->outputs()) {
    bool any = false;
    std::string slices;
    for (size_t d = 0; d < ref->dims.size(); ++d) {
      const SpecDim& dim = ref->dims[d];
      if (dim.pad_multiple > 1 || dim.pad_extra > 0 || dim.pad_low > 0 ||
          dim.pad_to_kernel_block) {
        any = true;
        const std::string size = HostDim(host_ref_of[ref->name], d);
        slices += fmt::format(
            "{}{}:{}", d ? ", " : "",
            dim.pad_low > 0 ? fmt::format("{}", dim.pad_low) : "",
            dim.pad_low > 0 ? fmt::format("{} + {}", dim.pad_low, size) : size);
      } else {
        slices += d ? ", :" : ":";
      }
    }
    if (!any) continue;
    std::string name = SanitizeIdentifier(host_ref_of[ref->name]);
    body_.Line(fmt::format("{} = {}[{}]", name, name, slices));
  }
  PyLines launch_lines = std::exchange(body_, std::move(before_launch));
  WriteGuardedLaunch(guard, outputs, launch_lines, body_);
  for (const RefPlan* ref : device_emitter->outputs()) {
    RebindViewedArrays(host_ref_of[ref->name]);
  }
  return true;
}

// The arrays a produced output is a view of hold its values too: each one
// read other than through such a view is the output reshaped to its shape.
void HostEmitter::RebindViewedArrays(const std::string& output) {
  std::string viewed = output;
  for (auto it = fresh_view_of_.find(viewed); it != fresh_view_of_.end();
       it = fresh_view_of_.find(viewed)) {
    viewed = it->second;
    auto alloc = allocs_.find(viewed);
    if (alloc == allocs_.end() || alloc->second.kind != OpKind::kEmpty) break;
    if (host_uses_[viewed] <= view_uses_[viewed]) continue;
    alloc->second.kind = OpKind::kVar;
    body_.Line(fmt::format(
        "{} = jnp.reshape({}, {})", SanitizeIdentifier(viewed),
        SanitizeIdentifier(output), ShapeTuple(alloc->second.shape)));
  }
}

// The multiple dim `d` of `ref` is zero-padded to: a number, or, for a
// symbolic whole dim rounded up to the kernel's block, that block.
std::string HostEmitter::PadMultiple(const RefPlan& ref, size_t d,
                                     const std::string& host_name) {
  const SpecDim& dim = ref.dims[d];
  if (!dim.pad_to_kernel_block) return fmt::format("{}", dim.pad_multiple);
  const std::string block = target_.KernelBlockSizeText(HostDim(host_name, d));
  return dim.pad_multiple > 1 ? fmt::format("{}({}, {})", state_.RoundUp(),
                                            block, dim.pad_multiple)
                              : block;
}

absl::StatusOr<EmittedFile> HostEmitter::Run() {
  auto plan = PlanKernel(module_, host_, options_.launcher, target_,
                         diagnostics_, !options_.check_legality);
  if (!plan.ok()) return plan.status();
  plan_ = *std::move(plan);
  PlanInnerLoops(plan_, options_.emit.prefetch);
  RegisterNames(host_, state_.names);
  RegisterNames(*plan_.device, state_.names);
  target_.ReserveNames(state_);
  for (const Value& param : host_.params) {
    defined_.insert(param.name);
    if (param.type.is_ref()) {
      allocs_[param.name] =
          HostAlloc{OpKind::kVar, param.type.shape, param.type.dtype};
    }
    for (size_t d = 0; d < param.type.shape.size(); ++d) {
      const Dim& dim = param.type.shape[d];
      if (!dim.is_static() && !implicit_.count(dim.symbol)) {
        implicit_[dim.symbol] =
            fmt::format("{}.shape[{}]", SanitizeIdentifier(param.name), d);
      }
    }
  }
  WalkStmts(host_.body, [&](const Stmt& stmt) {
    ForEachRootExpr(stmt, [&](const Expr& root) {
      WalkExpr(root, [&](const Expr& expr) {
        if (expr.op == OpKind::kVar) ++host_uses_[expr.name];
      });
    });
  });
  // A host scalar EmitStmt drops (nothing uses it) does not use its
  // operands: `a = m * 2 + n; b = a * 2` with `b` unused drops both
  // (pyflakes flags an unused local). Last to first, so chains go.
  const std::vector<Stmt>& top = host_.body.stmts;
  for (auto it = top.rbegin(); it != top.rend(); ++it) {
    if (it->kind != StmtKind::kAssign || it->results.size() != 1) continue;
    const Expr& value = *it->value;
    if (value.op == OpKind::kAllocFull || value.op == OpKind::kReshape ||
        value.op == OpKind::kTranspose || value.op == OpKind::kSliceView ||
        value.op == OpKind::kEmpty || it->results[0].type.is_ref() ||
        ContainsHostRead(value) || host_uses_[it->results[0].name] != 0) {
      continue;
    }
    WalkExpr(value, [&](const Expr& expr) {
      if (expr.op == OpKind::kVar) --host_uses_[expr.name];
    });
  }
  PyLines rank_collapse;
  EmitRankCollapse(host_, state_.names, rank_collapse, caller_shapes_);
  for (const Stmt& stmt : host_.body.stmts) {
    if (!EmitStmt(stmt)) {
      return absl::InvalidArgumentError(
          fmt::format("cannot emit kernel '{}'", host_.name));
    }
  }
  PyLines static_checks;
  const std::string params = HostParameters(host_, static_checks);
  PyLines host_body;
  const std::string context = target_.HostContext(state_);
  if (!context.empty()) {
    host_body.Line(context);
    host_body.Indent();
  }
  host_body.Append(static_checks);
  const std::string guard_helper = EmitParamGuards(
      host_, KernelLine(), options_.emit.typed_params, state_.names, host_body);
  host_body.Append(rank_collapse);
  EmitShapeChecks(host_, host_body);
  host_body.Append(prelude_);
  host_body.Append(body_);
  const std::string host_text = HostFunctions(
      {&host_, SanitizeIdentifier(host_.name), params, target_.HostKeywords(),
       prelude_, static_lines_, host_reads_, host_body});

  std::string code =
      FillEmptyBlocks(target_.ModuleHelpers(state_) + guard_helper + "\n\n" +
                      kernel_.Text() + "\n\n" + host_text);
  const std::string imports = ModuleImports(code, target_.Imports());
  std::string header = fmt::format(
      "# Generated by tessera ({} backend) from {}: kernel {}, {}.\n# Do not "
      "edit; regenerate with `tessera compile`.\n",
      target_.backend_name(), module_.source_file, host_.name,
      target_.HeaderDetails(plan_));
  EmittedFile file;
  file.name = host_.name + "_pallas.py";
  file.contents = header + imports + code;
  return file;
}

}  // namespace

absl::StatusOr<EmittedFile> EmitPallasModule(const Module& module,
                                             const Function& host,
                                             const PallasTarget& target,
                                             const PallasModuleOptions& options,
                                             DiagnosticEngine& diagnostics,
                                             KernelCost* cost) {
  HostEmitter emitter(module, host, target, options, diagnostics);
  absl::StatusOr<EmittedFile> file = emitter.Run();
  if (cost != nullptr) *cost = emitter.cost();
  return file;
}

}  // namespace tessera::pallas
