#include "python_emitter.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <variant>

#include "absl/status/status.h"
#include "python_syntax.h"
#include "runtime_prelude.inc"  // kRuntimePrelude, generated from runtime_prelude.py

namespace numpy_reference {
namespace {

using tessera::Attr;
using tessera::Dim;
using tessera::Expr;
using tessera::Function;
using tessera::FunctionKind;
using tessera::Index;
using tessera::IndexKind;
using tessera::Module;
using tessera::OpKind;
using tessera::SourceLoc;
using tessera::Stmt;
using tessera::StmtKind;
using tessera::Type;

class FunctionEmitter {
 public:
  FunctionEmitter(const Module& module, const EmitOptions& options,
                  tessera::DiagnosticEngine& diagnostics, std::string& out)
      : module_(module),
        options_(options),
        diagnostics_(diagnostics),
        out_(out) {}

  // Appends `def ...` for `function`; false after an error was reported.
  bool Emit(const Function& function) {
    stmt_loc_ = function.loc;
    // Names read anywhere in the function: a loop result nobody reads is
    // not copied out of its iter_arg (pyflakes would flag the dead copy).
    tessera::WalkStmts(function.body, [&](const Stmt& stmt) {
      tessera::ForEachRootExpr(stmt, [&](const Expr& root) {
        tessera::WalkExpr(root, [&](const Expr& expr) {
          if (expr.op == OpKind::kVar) read_names_.insert(expr.name);
        });
      });
    });
    std::vector<std::string> params;
    std::set<std::string> bound;
    for (const tessera::Value& param : function.params) {
      params.push_back(PyName(param.name));
      bound.insert(param.name);
    }
    if (function.kind == FunctionKind::kDevice) {
      // Grid position of the current cell, for program_id / num_programs.
      params.push_back("*");
      params.push_back("_pid=()");
      params.push_back("_nprog=()");
    }
    Line("def " + PyName(function.name) + "(" + Join(params, ", ") + "):");
    ++indent_;
    Line("\"\"\"" + std::string(tessera::FunctionKindName(function.kind)) +
         " @" + function.name + " of " + module_.source_file +
         (function.loc.known() ? ":" + std::to_string(function.loc.line)
                               : std::string()) +
         ".\"\"\"");
    // Shape symbols in parameter types are bound by the parameter, unless
    // the body defines them itself (e.g. `m: i64 = size(x)`).
    tessera::WalkStmts(function.body, [&](const Stmt& stmt) {
      if (stmt.kind == StmtKind::kAssign) {
        for (const tessera::Value& result : stmt.results)
          bound.insert(result.name);
      }
    });
    for (const tessera::Value& param : function.params) {
      const Type& type = param.type;
      for (size_t d = 0; d < type.shape.size(); ++d) {
        const Dim& dim = type.shape[d];
        if (dim.is_static() || bound.count(dim.symbol) != 0) continue;
        bound.insert(dim.symbol);
        if (type.is_tile()) {
          Line(PyName(dim.symbol) + " = " + PyName(param.name) + ".block");
        } else {
          Line(PyName(dim.symbol) + " = " + PyName(param.name) + ".shape[" +
               std::to_string(d) + "]");
        }
      }
    }
    EmitBlock(function.body, nullptr);
    --indent_;
    Line("");
    return ok_;
  }

 private:
  void Line(std::string_view text) {
    if (!text.empty()) out_.append(static_cast<size_t>(indent_) * 4, ' ');
    out_ += text;
    out_ += '\n';
  }

  void Fail(std::string message) {
    if (ok_) {
      diagnostics_.Error(module_.source_file, stmt_loc_,
                         "numpy-reference: " + std::move(message));
    }
    ok_ = false;
  }

  std::string DType(tessera::DType dtype) const {
    switch (dtype) {
      case tessera::DType::kBool:
        return "np.bool_";
      case tessera::DType::kI8:
        return "np.int8";
      case tessera::DType::kI16:
        return "np.int16";
      case tessera::DType::kI32:
        return "np.int32";
      case tessera::DType::kI64:
        return "np.int64";
      case tessera::DType::kF16:
        return options_.float64 ? "np.float64" : "np.float16";
      // NumPy has no bfloat16; f32 holds every bf16 value exactly.
      case tessera::DType::kBF16:
      case tessera::DType::kF32:
      case tessera::DType::kF8E4M3:
      case tessera::DType::kF8E5M2:
        return options_.float64 ? "np.float64" : "np.float32";
    }
    return "np.float32";
  }

  // The dtype a value of `type` is rounded to, or nullopt for refs, tiles
  // and untyped expressions (left as computed).
  std::optional<std::string> ValueDType(const Type& type) const {
    if (type.is_scalar() || type.is_tensor()) return DType(type.dtype);
    return std::nullopt;
  }

  std::string ShapeTuple(const tessera::Shape& dims) const {
    std::vector<std::string> items;
    for (const Dim& dim : dims) items.push_back(DimValue(dim));
    return Tuple(items);
  }

  // A shape attribute, written as dims[...] or as an integer list.
  std::optional<std::string> ShapeAttr(const Expr& expr,
                                       std::string_view name) const {
    if (const auto* dims = tessera::GetAttr<tessera::Shape>(expr.attrs, name)) {
      return ShapeTuple(*dims);
    }
    if (const auto* ints =
            tessera::GetAttr<std::vector<int64_t>>(expr.attrs, name)) {
      std::vector<std::string> items;
      for (int64_t v : *ints) items.push_back(IntLiteral(v));
      return Tuple(items);
    }
    if (expr.type.is_ref() || expr.type.is_tensor())
      return ShapeTuple(expr.type.shape);
    return std::nullopt;
  }

  std::string DTypeAttr(const Expr& expr) const {
    if (const auto* dtype =
            tessera::GetAttr<tessera::DType>(expr.attrs, "dtype")) {
      return DType(*dtype);
    }
    return DType(expr.type.dtype);
  }

  std::optional<int64_t> IntAttr(const Expr& expr, std::string_view name) {
    if (const auto* v = tessera::GetAttr<int64_t>(expr.attrs, name)) return *v;
    return std::nullopt;
  }

  std::string ScalarAttr(const Expr& expr, std::string_view name) {
    const Attr* attr = expr.attr(name);
    if (attr == nullptr) {
      Fail(std::string(tessera::OpInfoOf(expr.op).name) + " without '" +
           std::string(name) + "'");
      return "None";
    }
    if (const auto* b = std::get_if<bool>(&attr->value))
      return *b ? "True" : "False";
    if (const auto* i = std::get_if<int64_t>(&attr->value))
      return IntLiteral(*i);
    if (const auto* d = std::get_if<double>(&attr->value))
      return FloatLiteral(*d);
    Fail("'" + std::string(name) + "' of " +
         std::string(tessera::OpInfoOf(expr.op).name) + " is not a number");
    return "None";
  }

  std::string Operand(const Expr& expr, size_t i) {
    if (i >= expr.operands.size() || expr.operands[i] == nullptr) {
      Fail(std::string(tessera::OpInfoOf(expr.op).name) +
           " is missing operand " + std::to_string(i));
      return "None";
    }
    return Ex(*expr.operands[i]);
  }

  std::string Indices(const tessera::IndexList& indices) {
    if (indices.empty()) return "...";
    std::vector<std::string> items;
    for (const Index& index : indices) {
      switch (index.kind) {
        case IndexKind::kSlice:
          items.push_back(":");
          break;
        case IndexKind::kNewAxis:
          items.push_back("None");
          break;
        case IndexKind::kTile:
          items.push_back(index.expr ? Ex(*index.expr) + ".s" : "None");
          break;
        case IndexKind::kScalar:
          items.push_back("int(" + (index.expr ? Ex(*index.expr) : "None") +
                          ")");
          break;
        case IndexKind::kGather:
          items.push_back("np.asarray(" +
                          (index.expr ? Ex(*index.expr) : "None") +
                          ").astype(np.int64)");
          break;
        case IndexKind::kRange: {
          std::string begin = index.expr ? Ex(*index.expr) : "None";
          items.push_back("int(" + begin + "):int(" + begin + ") + " +
                          DimValue(index.size));
          break;
        }
      }
    }
    return Join(items, ", ");
  }

  std::string Rounded(std::string value, const Expr& expr) {
    std::optional<std::string> dtype = ValueDType(expr.type);
    if (!dtype) return value;
    return "_as(" + value + ", " + *dtype + ")";
  }

  std::string Ex(const Expr& expr) {
    const OpKind op = expr.op;
    const std::string_view op_name = tessera::OpInfoOf(op).name;
    if (!UnaryFunction(op).empty()) {
      std::string fn(UnaryFunction(op));
      std::optional<std::string> dtype = ValueDType(expr.type);
      if (!dtype) return fn + "(" + Operand(expr, 0) + ")";
      return "_ew(" + fn + ", " + *dtype + ", " + Operand(expr, 0) + ")";
    }
    if (!BinaryFunction(op).empty()) {
      std::string lhs = Operand(expr, 0), rhs = Operand(expr, 1);
      if (expr.type.is_scalar() && expr.type.dtype == tessera::DType::kI64) {
        if (!PythonIntOperator(op).empty()) {
          return "(" + lhs + std::string(PythonIntOperator(op)) + rhs + ")";
        }
        if (op == OpKind::kCdiv) return "_cdiv(" + lhs + ", " + rhs + ")";
      }
      std::optional<std::string> dtype = ValueDType(expr.type);
      return "_ew(" + std::string(BinaryFunction(op)) + ", " +
             dtype.value_or("None") + ", " + lhs + ", " + rhs + ")";
    }
    if (!ReductionFunction(op).empty()) {
      std::string axis = "None";
      if (auto dim = IntAttr(expr, "dim")) {
        axis = IntLiteral(*dim);
      } else if (const auto* dims = tessera::GetAttr<std::vector<int64_t>>(
                     expr.attrs, "dim")) {
        std::vector<std::string> items;
        for (int64_t d : *dims) items.push_back(IntLiteral(d));
        axis = Tuple(items);
      }
      const bool* keepdim = tessera::GetAttr<bool>(expr.attrs, "keepdim");
      return Rounded(std::string(ReductionFunction(op)) + "(" +
                         Operand(expr, 0) + ", axis=" + axis + ", keepdims=" +
                         (keepdim && *keepdim ? "True" : "False") + ")",
                     expr);
    }
    switch (op) {
      case OpKind::kVar:
        return PyName(expr.name);
      case OpKind::kConst: {
        std::string literal = ScalarAttr(expr, "value");
        if (expr.type.is_scalar() && expr.type.dtype == tessera::DType::kI64 &&
            tessera::GetAttr<int64_t>(expr.attrs, "value") != nullptr) {
          return literal;
        }
        if (expr.type.is_scalar() && expr.type.dtype == tessera::DType::kBool) {
          return literal;
        }
        return DType(expr.type.dtype) + "(" + literal + ")";
      }
      case OpKind::kSize:
        return Operand(expr, 0) + ".shape[" +
               IntLiteral(IntAttr(expr, "dim").value_or(0)) + "]";
      case OpKind::kEmpty:
        return "_empty(" + ShapeAttr(expr, "shape").value_or("()") + ", " +
               DTypeAttr(expr) + ")";
      case OpKind::kAllocFull:
      case OpKind::kFull:
        return "np.full(" + ShapeAttr(expr, "shape").value_or("()") + ", " +
               ScalarAttr(expr, "value") + ", dtype=" + DTypeAttr(expr) + ")";
      case OpKind::kReshape:
        return "np.reshape(" + Operand(expr, 0) + ", " +
               ShapeAttr(expr, "shape").value_or("()") + ")";
      case OpKind::kTranspose: {
        std::string perm = "None";
        if (const auto* p =
                tessera::GetAttr<std::vector<int64_t>>(expr.attrs, "perm")) {
          std::vector<std::string> items;
          for (int64_t v : *p) items.push_back(IntLiteral(v));
          perm = Tuple(items);
        }
        return "np.transpose(" + Operand(expr, 0) + ", " + perm + ")";
      }
      case OpKind::kLoad:
        return "_load(" + Operand(expr, 0) + ", np.s_[" +
               Indices(expr.indices) + "])";
      case OpKind::kSubscript:
        return "np.asarray(" + Operand(expr, 0) + ")[" + Indices(expr.indices) +
               "]";
      case OpKind::kTileBegin:
        return Operand(expr, 0) + ".begin";
      case OpKind::kTileEnd:
        return Operand(expr, 0) + ".end";
      case OpKind::kTileSize:
        return Operand(expr, 0) + ".block";
      case OpKind::kTileIndex: {
        std::string tile = Operand(expr, 0);
        return "np.arange(" + tile + ".begin, " + tile + ".end, dtype=" +
               DType(expr.type.is_none() ? tessera::DType::kI32
                                         : expr.type.dtype) +
               ")";
      }
      case OpKind::kGelu: {
        const std::string* approximate =
            tessera::GetAttr<std::string>(expr.attrs, "approximate");
        return Rounded("_gelu(" + Operand(expr, 0) + ", \"" +
                           (approximate ? *approximate : std::string("none")) +
                           "\")",
                       expr);
      }
      case OpKind::kWhere: {
        std::optional<std::string> dtype = ValueDType(expr.type);
        return "_ew(np.where, " + dtype.value_or("None") + ", " +
               Operand(expr, 0) + ", " + Operand(expr, 1) + ", " +
               Operand(expr, 2) + ")";
      }
      case OpKind::kDot: {
        std::string acc = expr.operands.size() > 2 ? Operand(expr, 2) : "None";
        std::string dtype = DType(expr.type.dtype);
        if (const auto* acc_dtype =
                tessera::GetAttr<tessera::DType>(expr.attrs, "acc_dtype")) {
          dtype = DType(*acc_dtype);
        }
        std::string dot = "_dot(" + Operand(expr, 0) + ", " + Operand(expr, 1) +
                          ", " + acc + ", " + dtype + ")";
        std::optional<std::string> result_dtype = ValueDType(expr.type);
        return result_dtype && *result_dtype != dtype
                   ? "_as(" + dot + ", " + *result_dtype + ")"
                   : dot;
      }
      case OpKind::kCast:
        return "_as(" + Operand(expr, 0) + ", " + DTypeAttr(expr) + ")";
      case OpKind::kBroadcastTo:
        return "_broadcast_to(" + Operand(expr, 0) + ", " +
               ShapeAttr(expr, "shape").value_or("()") + ")";
      case OpKind::kRepeatLanes:
        return "_repeat_lanes(" + Operand(expr, 0) + ", " +
               IntLiteral(IntAttr(expr, "reps").value_or(1)) + ")";
      case OpKind::kProgramId:
        return "_pid[" + IntLiteral(IntAttr(expr, "axis").value_or(0)) + "]";
      case OpKind::kNumPrograms:
        return "_nprog[" + IntLiteral(IntAttr(expr, "axis").value_or(0)) + "]";
      case OpKind::kScratch:
        return "np.zeros(" + ShapeAttr(expr, "shape").value_or("()") +
               ", dtype=" + DTypeAttr(expr) + ")";
      default:
        break;
    }
    Fail("op '" + std::string(op_name) + "' is not supported");
    return "None";
  }

  // `for` headers of a tile loop or launch grid, leaving indent_ inside the
  // innermost loop. With `with_pid` the loops count grid cells and the
  // counters are returned (for _pid); with `with_nprog` the grid extents are
  // assigned to _nprog first.
  std::vector<std::string> OpenTileNest(
      const std::vector<tessera::LoopDim>& dims,
      const std::vector<std::string>& vars, bool with_pid, bool with_nprog) {
    const bool grid = with_pid;
    std::vector<std::string> counters;
    if (with_nprog) {
      std::vector<std::string> extents;
      for (const tessera::LoopDim& dim : dims) {
        std::string begin = Bound(dim.begin);
        std::string extent =
            begin == "0" ? Bound(dim.end) : Bound(dim.end) + " - " + begin;
        extents.push_back("_cdiv(" + extent + ", " + DimValue(dim.block) + ")");
      }
      Line("_nprog = " + Tuple(extents));
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      const tessera::LoopDim& dim = dims[i];
      std::string tiles = "_tiles(" + Bound(dim.begin) + ", " + Bound(dim.end) +
                          ", " + DimValue(dim.block) + ")";
      if (grid) {
        std::string counter = "_g" + std::to_string(next_counter_++);
        counters.push_back(counter);
        Line("for " + counter + ", " + vars[i] + " in enumerate(" + tiles +
             "):");
      } else {
        Line("for " + vars[i] + " in " + tiles + ":");
      }
      ++indent_;
    }
    return counters;
  }

  std::string Bound(const tessera::ExprPtr& expr) {
    if (expr == nullptr) {
      Fail("loop bound is missing");
      return "0";
    }
    return Ex(*expr);
  }

  void InitIterArgs(const Stmt& stmt) {
    if (stmt.inits.size() != stmt.iter_args.size()) {
      Fail("loop has " + std::to_string(stmt.iter_args.size()) +
           " iter_args but " + std::to_string(stmt.inits.size()) + " inits");
      return;
    }
    for (size_t i = 0; i < stmt.iter_args.size(); ++i) {
      Line(PyName(stmt.iter_args[i].name) + " = " + Ex(*stmt.inits[i]));
    }
  }

  void CloseLoopWithResults(const Stmt& stmt, size_t depth) {
    indent_ -= static_cast<int>(depth);
    if (stmt.results.empty()) return;
    if (stmt.results.size() != stmt.iter_args.size()) {
      Fail("loop has " + std::to_string(stmt.results.size()) + " results but " +
           std::to_string(stmt.iter_args.size()) + " iter_args");
      return;
    }
    for (size_t i = 0; i < stmt.results.size(); ++i) {
      if (read_names_.count(stmt.results[i].name) == 0) continue;
      Line(PyName(stmt.results[i].name) + " = " +
           PyName(stmt.iter_args[i].name));
    }
  }

  std::vector<std::string> Names(const tessera::ValueList& values) {
    std::vector<std::string> names;
    for (const tessera::Value& value : values)
      names.push_back(PyName(value.name));
    return names;
  }

  // Emits a region; `yield_targets` are the names a `yield` in it assigns
  // (loop iter_args, if results), null where no yield may appear.
  void EmitBlock(const tessera::Block& block,
                 const std::vector<std::string>* yield_targets) {
    const size_t before = out_.size();
    for (const Stmt& stmt : block.stmts) EmitStmt(stmt, yield_targets);
    if (out_.size() == before) Line("pass");
  }

  void EmitStmt(const Stmt& stmt,
                const std::vector<std::string>* yield_targets) {
    stmt_loc_ = stmt.loc;
    switch (stmt.kind) {
      case StmtKind::kAssign:
        if (stmt.results.size() != 1 || stmt.value == nullptr) {
          Fail("malformed assignment");
          return;
        }
        Line(PyName(stmt.results[0].name) + " = " + Ex(*stmt.value));
        return;
      case StmtKind::kStore:
      case StmtKind::kAtomic: {
        if (stmt.target == nullptr || stmt.value == nullptr) {
          Fail("malformed " + std::string(StmtKindName(stmt.kind)));
          return;
        }
        std::string args = Ex(*stmt.target) + ", np.s_[" +
                           Indices(stmt.indices) + "], " + Ex(*stmt.value);
        if (stmt.kind == StmtKind::kStore) {
          Line("_store(" + args + ")");
          return;
        }
        const std::string* op = tessera::GetAttr<std::string>(stmt.attrs, "op");
        std::string fn = !op || *op == "add" ? "np.add"
                         : *op == "max"      ? "np.maximum"
                         : *op == "min"      ? "np.minimum"
                                             : "";
        if (fn.empty()) {
          Fail("atomic op '" + *op + "' is not supported");
          return;
        }
        Line("_atomic(" + args + ", " + fn + ")");
        return;
      }
      case StmtKind::kTileLoop: {
        if (stmt.vars.size() != stmt.dims.size() || stmt.regions.size() != 1) {
          Fail("malformed tile loop");
          return;
        }
        InitIterArgs(stmt);
        // A grid loop tracks its position only when the body asks for it.
        const bool* grid = tessera::GetAttr<bool>(stmt.attrs, "grid");
        std::vector<std::string> counters = OpenTileNest(
            stmt.dims, Names(stmt.vars),
            grid && *grid && UsesOp(stmt.regions[0], OpKind::kProgramId),
            grid && *grid && UsesOp(stmt.regions[0], OpKind::kNumPrograms));
        if (!counters.empty()) Line("_pid = " + Tuple(counters));
        std::vector<std::string> targets = Names(stmt.iter_args);
        EmitBlock(stmt.regions[0], targets.empty() ? nullptr : &targets);
        CloseLoopWithResults(stmt, stmt.dims.size());
        return;
      }
      case StmtKind::kRangeLoop: {
        if (stmt.vars.size() != 1 || stmt.dims.size() != 1 ||
            stmt.regions.size() != 1) {
          Fail("malformed range loop");
          return;
        }
        InitIterArgs(stmt);
        const tessera::LoopDim& dim = stmt.dims[0];
        Line("for " + PyName(stmt.vars[0].name) + " in range(int(" +
             Bound(dim.begin) + "), int(" + Bound(dim.end) + "), int(" +
             DimValue(dim.block) + ")):");
        ++indent_;
        std::vector<std::string> targets = Names(stmt.iter_args);
        EmitBlock(stmt.regions[0], targets.empty() ? nullptr : &targets);
        CloseLoopWithResults(stmt, 1);
        return;
      }
      case StmtKind::kIf: {
        if (stmt.value == nullptr || stmt.regions.empty()) {
          Fail("malformed if");
          return;
        }
        std::vector<std::string> targets = Names(stmt.results);
        const std::vector<std::string>* region_targets =
            targets.empty() ? nullptr : &targets;
        Line("if " + Ex(*stmt.value) + ":");
        ++indent_;
        EmitBlock(stmt.regions[0], region_targets);
        --indent_;
        if (stmt.regions.size() > 1 &&
            (!stmt.regions[1].stmts.empty() || !targets.empty())) {
          Line("else:");
          ++indent_;
          EmitBlock(stmt.regions[1], region_targets);
          --indent_;
        }
        return;
      }
      case StmtKind::kYield: {
        if (stmt.operands.empty()) return;
        if (yield_targets == nullptr ||
            yield_targets->size() != stmt.operands.size()) {
          Fail("yield of " + std::to_string(stmt.operands.size()) +
               " values where " +
               std::to_string(yield_targets ? yield_targets->size() : 0) +
               " are expected");
          return;
        }
        std::vector<std::string> values;
        for (const tessera::ExprPtr& operand : stmt.operands)
          values.push_back(Ex(*operand));
        Line(Join(*yield_targets, ", ") + " = " + Join(values, ", "));
        return;
      }
      case StmtKind::kReturn: {
        std::vector<std::string> values;
        for (const tessera::ExprPtr& operand : stmt.operands)
          values.push_back(Ex(*operand));
        Line(values.empty() ? "return" : "return " + Join(values, ", "));
        return;
      }
      case StmtKind::kLaunch: {
        const std::string* callee =
            tessera::GetAttr<std::string>(stmt.attrs, "callee");
        if (callee == nullptr) {
          Fail("launch without a callee");
          return;
        }
        std::vector<std::string> tiles;
        for (size_t i = 0; i < stmt.dims.size(); ++i) {
          tiles.push_back("_l" + std::to_string(next_counter_++));
        }
        std::vector<std::string> counters =
            OpenTileNest(stmt.dims, tiles, true, true);
        std::vector<std::string> args = tiles;
        for (const tessera::ExprPtr& operand : stmt.operands)
          args.push_back(Ex(*operand));
        args.push_back("_pid=" + Tuple(counters));
        args.push_back("_nprog=_nprog");
        std::string call = PyName(*callee) + "(" + Join(args, ", ") + ")";
        Line(stmt.results.empty()
                 ? call
                 : Join(Names(stmt.results), ", ") + " = " + call);
        indent_ -= static_cast<int>(stmt.dims.size());
        return;
      }
    }
    Fail("unknown statement kind");
  }

  const Module& module_;
  const EmitOptions& options_;
  tessera::DiagnosticEngine& diagnostics_;
  std::string& out_;
  int indent_ = 0;
  int next_counter_ = 0;
  bool ok_ = true;
  SourceLoc stmt_loc_;
  std::set<std::string> read_names_;
};

// The device functions `host` launches, directly or through other launches.
void CollectCallees(const Module& module, const Function& function,
                    std::vector<const Function*>& callees) {
  tessera::WalkStmts(function.body, [&](const Stmt& stmt) {
    if (stmt.kind != StmtKind::kLaunch) return;
    const std::string* callee =
        tessera::GetAttr<std::string>(stmt.attrs, "callee");
    if (callee == nullptr) return;
    const Function* target = module.FindFunction(*callee);
    if (target == nullptr ||
        std::find(callees.begin(), callees.end(), target) != callees.end()) {
      return;
    }
    callees.push_back(target);
    CollectCallees(module, *target, callees);
  });
}

}  // namespace

absl::StatusOr<std::vector<tessera::EmittedFile>> EmitNumpyModules(
    const Module& module, const EmitOptions& options,
    tessera::DiagnosticEngine& diagnostics) {
  std::vector<tessera::EmittedFile> files;
  bool ok = true;
  for (const Function& function : module.functions) {
    if (function.kind == FunctionKind::kDevice) continue;  // with its host
    std::vector<const Function*> group;
    CollectCallees(module, function, group);
    group.push_back(&function);  // callees first, the entry point last

    std::string text =
        "# Generated by Tessera's numpy-reference backend (an SDK example) "
        "from\n"
        "# " +
        module.source_file + ": a plain NumPy emulation of kernel '" +
        function.name + "',\n# for checking other backends' output.\n";
    if (options.float64)
      text += "# Floating-point values are computed in float64.\n";
    text += kRuntimePrelude;
    text += "\n\n";
    for (const Function* member : group) {
      FunctionEmitter emitter(module, options, diagnostics, text);
      ok = emitter.Emit(*member) && ok;
      text += "\n";
    }
    // Exactly one blank line at the end.
    while (text.size() > 1 && text[text.size() - 1] == '\n' &&
           text[text.size() - 2] == '\n') {
      text.pop_back();
    }
    files.push_back(
        {function.name + options.file_suffix + ".py", std::move(text)});
  }
  if (!ok)
    return absl::InvalidArgumentError("numpy-reference: emission failed");
  if (files.empty()) {
    diagnostics.Error(module.source_file, {},
                      "numpy-reference: the module has no kernel or host "
                      "function to emit");
    return absl::InvalidArgumentError("numpy-reference: nothing to emit");
  }
  return files;
}

}  // namespace numpy_reference
