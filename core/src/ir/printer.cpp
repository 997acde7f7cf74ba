// The IR printer (docs/ir.md). Types are elided exactly where the parser
// can reconstruct them: op types that InferType reproduces, and value
// references whose type equals that of the name's most recent definition in
// program order. The parser applies the same rules.
#include <charconv>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "ir/name_hash.h"
#include "ir/text_common.h"
#include "tessera/ir/text.h"
#include "tessera/ir/type_inference.h"

namespace tessera {
namespace {

using text::AppendDim;
using text::AppendDouble;
using text::AppendName;
using text::AppendQuoted;
using text::AppendType;

void AppendAttrValue(std::string& out, const AttrValue& value) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          out += v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          text::AppendInt(out, v);
        } else if constexpr (std::is_same_v<T, double>) {
          AppendDouble(out, v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          AppendQuoted(out, v);
        } else if constexpr (std::is_same_v<T, DType>) {
          out += DTypeName(v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          out += '[';
          for (size_t i = 0; i < v.size(); ++i) {
            if (i != 0) out += ", ";
            text::AppendInt(out, v[i]);
          }
          out += ']';
        } else if constexpr (std::is_same_v<T, Shape>) {
          out += "dims[";
          for (size_t i = 0; i < v.size(); ++i) {
            if (i != 0) out += ", ";
            AppendDim(out, v[i]);
          }
          out += ']';
        } else {
          out += "strs[";
          for (size_t i = 0; i < v.size(); ++i) {
            if (i != 0) out += ", ";
            AppendQuoted(out, v[i]);
          }
          out += ']';
        }
      },
      value);
}

void AppendAttrs(std::string& out, std::span<const Attr> attrs) {
  if (attrs.empty()) return;
  out += '{';
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i != 0) out += ", ";
    // Attribute names stand only before '=', so keywords need no quotes.
    if (text::IsIdentifier(attrs[i].name)) {
      out += attrs[i].name;
    } else {
      AppendQuoted(out, attrs[i].name);
    }
    out += " = ";
    AppendAttrValue(out, attrs[i].value);
  }
  out += '}';
}

void AppendUnsigned(std::string& out, uint64_t value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

void AppendLoc(std::string& out, const SourceLoc& loc) {
  if (!loc.known()) return;
  out += " @";
  AppendUnsigned(out, loc.line);
  out += ':';
  AppendUnsigned(out, loc.col);
}

// A constant prints as a literal when the literal reads back as the same
// attribute and type: `1`, `2.5`, `true`, `1:i32`, `-inf:bf16`.
bool IsLiteral(const Expr& expr) {
  return expr.op == OpKind::kConst && expr.operands.empty() &&
         expr.indices.empty() && expr.attrs.size() == 1 &&
         expr.attrs[0].name == "value" && expr.type.is_scalar() &&
         (std::holds_alternative<bool>(expr.attrs[0].value) ||
          std::holds_alternative<int64_t>(expr.attrs[0].value) ||
          std::holds_alternative<double>(expr.attrs[0].value));
}

class Printer {
 public:
  std::string Take() { return std::move(out_); }

  void Module(const tessera::Module& module) {
    out_ += "module ";
    AppendQuoted(out_, module.source_file);
    if (!module.properties.empty()) {
      out_ += " properties [";
      out_ += module.properties.ToString();
      out_ += ']';
    }
    if (!module.attrs.empty()) {
      out_ += ' ';
      AppendAttrs(out_, module.attrs);
    }
    out_ += '\n';
    for (const tessera::Function& function : module.functions) {
      out_ += '\n';
      Function(function);
    }
  }

  void Function(const tessera::Function& function) {
    // absl's clear() frees large tables; erasing keeps the capacity, so the
    // table is not regrown once per function.
    symbols_.erase(symbols_.begin(), symbols_.end());
    out_ += "func ";
    out_ += FunctionKindName(function.kind);
    out_ += " @";
    AppendName(out_, function.name);
    out_ += '(';
    for (size_t i = 0; i < function.params.size(); ++i) {
      if (i != 0) out_ += ", ";
      ValueDef(function.params[i]);
    }
    out_ += ')';
    if (!function.result_types.empty()) {
      out_ += " -> (";
      for (size_t i = 0; i < function.result_types.size(); ++i) {
        if (i != 0) out_ += ", ";
        AppendType(out_, function.result_types[i]);
      }
      out_ += ')';
    }
    if (!function.attrs.empty()) {
      out_ += ' ';
      AppendAttrs(out_, function.attrs);
    }
    AppendLoc(out_, function.loc);
    out_ += ' ';
    Block(function.body, 0);
    out_ += '\n';
  }

  void Expr(const tessera::Expr* expr_ptr) {
    if (expr_ptr == nullptr) {
      out_ += '?';
      return;
    }
    const tessera::Expr& expr = *expr_ptr;
    if (expr.op == OpKind::kVar) {
      auto it = symbols_.find(expr.name);
      if (it == symbols_.end()) {
        AppendName(out_, expr.name);
      } else if (it->second.bare) {
        out_ += expr.name;
      } else {
        text::AppendQuoted(out_, expr.name);
      }
      if (it == symbols_.end() || !(*it->second.type == expr.type)) {
        out_ += ": ";
        AppendType(out_, expr.type);
      }
      return;
    }
    if (IsLiteral(expr)) {
      Literal(expr);
      return;
    }
    const OpInfo& info = OpInfoOf(expr.op);
    out_ += info.name;
    out_ += '(';
    for (size_t i = 0; i < expr.operands.size(); ++i) {
      if (i != 0) out_ += ", ";
      Expr(expr.operands[i].get());
    }
    out_ += ')';
    if (info.has_indices) Indices(expr.indices);
    if (!expr.attrs.empty()) {
      out_ += ' ';
      AppendAttrs(out_, expr.attrs);
    }
    auto inferred = InferType(expr);
    if (!inferred.ok() || !(*inferred == expr.type)) {
      out_ += ": ";
      AppendType(out_, expr.type);
    }
  }

  void Block(const tessera::Block& block, int depth) {
    out_ += "{\n";
    for (const Stmt& stmt : block.stmts) Statement(stmt, depth + 1);
    Indent(depth);
    out_ += '}';
  }

 private:
  void Indent(int depth) { out_.append(static_cast<size_t>(depth) * 2, ' '); }

  // The map points into the printed IR, which outlives the printer. A name
  // is referred to more often than defined, so whether it prints bare is
  // decided here, once.
  void Define(const Value& value) {
    symbols_[value.name] = Symbol{&value.type, text::IsBareName(value.name)};
  }

  void ValueDef(const Value& value) {
    AppendName(out_, value.name);
    out_ += ": ";
    AppendType(out_, value.type);
    Define(value);
  }

  void Literal(const tessera::Expr& expr) {
    const AttrValue& value = expr.attrs[0].value;
    DType natural = DType::kF32;
    if (const bool* b = std::get_if<bool>(&value)) {
      out_ += *b ? "true" : "false";
      natural = DType::kBool;
    } else if (const int64_t* i = std::get_if<int64_t>(&value)) {
      text::AppendInt(out_, *i);
      natural = DType::kI64;
    } else {
      AppendDouble(out_, std::get<double>(value));
    }
    if (expr.type.dtype != natural) {
      out_ += ':';
      out_ += DTypeName(expr.type.dtype);
    }
  }

  void Indices(const IndexList& indices) {
    out_ += '[';
    for (size_t i = 0; i < indices.size(); ++i) {
      if (i != 0) out_ += ", ";
      const Index& index = indices[i];
      switch (index.kind) {
        case IndexKind::kSlice:
          out_ += ':';
          break;
        case IndexKind::kNewAxis:
          out_ += "None";
          break;
        case IndexKind::kTile:
          if (index.expr && index.expr->op == OpKind::kVar &&
              index.expr->attrs.empty() && index.expr->operands.empty() &&
              index.expr->indices.empty()) {
            Expr(index.expr.get());
          } else {
            out_ += "tile(";
            Expr(index.expr.get());
            out_ += ')';
          }
          break;
        case IndexKind::kScalar:
          out_ += "scalar(";
          Expr(index.expr.get());
          out_ += ')';
          break;
        case IndexKind::kGather:
          out_ += "gather(";
          Expr(index.expr.get());
          out_ += ')';
          break;
        case IndexKind::kRange:
          out_ += "range(";
          Expr(index.expr.get());
          out_ += ", ";
          AppendDim(out_, index.size);
          out_ += ')';
          break;
        case IndexKind::kShiftedTile:
          out_ += "shifted(";
          Expr(index.expr.get());
          out_ += ')';
          break;
      }
    }
    out_ += ']';
  }

  void Dims(const std::vector<LoopDim>& dims) {
    out_ += '(';
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i != 0) out_ += ", ";
      Expr(dims[i].begin.get());
      out_ += ':';
      Expr(dims[i].end.get());
      out_ += ':';
      AppendDim(out_, dims[i].block);
    }
    out_ += ')';
  }

  void ExprList(const ExprList& exprs) {
    for (size_t i = 0; i < exprs.size(); ++i) {
      out_ += i == 0 ? "" : ", ";
      Expr(exprs[i].get());
    }
  }

  void Results(const ValueList& results) {
    if (results.empty()) return;
    for (size_t i = 0; i < results.size(); ++i) {
      if (i != 0) out_ += ", ";
      AppendName(out_, results[i].name);
      out_ += ": ";
      AppendType(out_, results[i].type);
    }
    out_ += " = ";
  }

  void KeywordAttrs(std::span<const Attr> attrs) {
    if (attrs.empty()) return;
    out_ += ' ';
    AppendAttrs(out_, attrs);
  }

  void Statement(const Stmt& stmt, int depth) {
    Indent(depth);
    switch (stmt.kind) {
      case StmtKind::kAssign: {
        // Exactly one target; anything else prints as a results list the
        // parser rejects, which is what the verifier would say too.
        for (size_t i = 0; i < stmt.results.size(); ++i) {
          if (i != 0) out_ += ", ";
          AppendName(out_, stmt.results[i].name);
          out_ += ": ";
          AppendType(out_, stmt.results[i].type);
        }
        KeywordAttrs(stmt.attrs);
        out_ += " = ";
        Expr(stmt.value.get());
        for (const Value& result : stmt.results) Define(result);
        break;
      }
      case StmtKind::kStore:
      case StmtKind::kAtomic:
        out_ += stmt.kind == StmtKind::kStore ? "store" : "atomic";
        KeywordAttrs(stmt.attrs);
        out_ += ' ';
        Expr(stmt.target.get());
        Indices(stmt.indices);
        out_ += " = ";
        Expr(stmt.value.get());
        break;
      case StmtKind::kYield:
      case StmtKind::kReturn:
        out_ += stmt.kind == StmtKind::kYield ? "yield" : "return";
        KeywordAttrs(stmt.attrs);
        if (!stmt.operands.empty()) out_ += ' ';
        ExprList(stmt.operands);
        break;
      case StmtKind::kTileLoop:
      case StmtKind::kRangeLoop:
        Loop(stmt, depth);
        return;
      case StmtKind::kIf:
        If(stmt, depth);
        return;
      case StmtKind::kLaunch:
        Launch(stmt);
        break;
    }
    AppendLoc(out_, stmt.loc);
    out_ += '\n';
  }

  void Loop(const Stmt& stmt, int depth) {
    Results(stmt.results);
    out_ += "for ";
    // Loop variables and iter_args are in scope in the body only, but the
    // text defines names in program order: dims and inits read the names
    // before the loop, the body sees the loop's own definitions.
    for (size_t i = 0; i < stmt.vars.size(); ++i) {
      if (i != 0) out_ += ", ";
      AppendName(out_, stmt.vars[i].name);
      out_ += ": ";
      AppendType(out_, stmt.vars[i].type);
    }
    out_ += stmt.kind == StmtKind::kTileLoop ? " in tile" : " in range";
    Dims(stmt.dims);
    if (!stmt.iter_args.empty() || !stmt.inits.empty()) {
      out_ += " iter(";
      size_t count = std::max(stmt.iter_args.size(), stmt.inits.size());
      for (size_t i = 0; i < count; ++i) {
        if (i != 0) out_ += ", ";
        if (i < stmt.iter_args.size()) {
          AppendName(out_, stmt.iter_args[i].name);
          out_ += ": ";
          AppendType(out_, stmt.iter_args[i].type);
        }
        out_ += " = ";
        Expr(i < stmt.inits.size() ? stmt.inits[i].get() : nullptr);
      }
      out_ += ')';
    }
    KeywordAttrs(stmt.attrs);
    AppendLoc(out_, stmt.loc);
    for (const Value& var : stmt.vars) Define(var);
    for (const Value& arg : stmt.iter_args) Define(arg);
    out_ += ' ';
    if (stmt.regions.empty()) {
      out_ += "{\n";
      Indent(depth);
      out_ += '}';
    } else {
      Block(stmt.regions[0], depth);
    }
    out_ += '\n';
    for (const Value& result : stmt.results) Define(result);
  }

  void If(const Stmt& stmt, int depth) {
    Results(stmt.results);
    out_ += "if";
    KeywordAttrs(stmt.attrs);
    out_ += ' ';
    Expr(stmt.value.get());
    AppendLoc(out_, stmt.loc);
    out_ += ' ';
    if (stmt.regions.empty()) {
      out_ += "{\n";
      Indent(depth);
      out_ += '}';
    } else {
      Block(stmt.regions[0], depth);
    }
    for (size_t i = 1; i < stmt.regions.size(); ++i) {
      out_ += " else ";
      Block(stmt.regions[i], depth);
    }
    out_ += '\n';
    for (const Value& result : stmt.results) Define(result);
  }

  void Launch(const Stmt& stmt) {
    Results(stmt.results);
    out_ += "launch";
    std::span<const Attr> attrs = stmt.attrs;
    // The callee prints as `@name` when it is the first attribute (as the
    // parser stores it); otherwise it stays in the attribute list.
    if (!attrs.empty() && attrs[0].name == "callee" &&
        std::holds_alternative<std::string>(attrs[0].value)) {
      out_ += " @";
      AppendName(out_, std::get<std::string>(attrs[0].value));
      attrs = attrs.subspan(1);
    }
    out_ += " grid";
    Dims(stmt.dims);
    out_ += " (";
    ExprList(stmt.operands);
    out_ += ')';
    KeywordAttrs(attrs);
    for (const Value& result : stmt.results) Define(result);
  }

  struct Symbol {
    const Type* type;
    bool bare;
  };
  std::string out_;
  absl::flat_hash_map<std::string_view, Symbol, text::NameHash> symbols_;
};

}  // namespace

std::string PrintModule(const Module& module) {
  Printer printer;
  printer.Module(module);
  return printer.Take();
}

std::string PrintFunction(const Function& function) {
  Printer printer;
  printer.Function(function);
  return printer.Take();
}

std::string PrintExpr(const Expr& expr) {
  Printer printer;
  printer.Expr(&expr);
  return printer.Take();
}

std::string PrintType(const Type& type) {
  std::string out;
  AppendType(out, type);
  return out;
}

}  // namespace tessera
