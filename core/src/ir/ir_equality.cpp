// Structural equality of IR nodes and the first difference between two
// modules (what the round-trip checks and tests report).
#include <cmath>

#include "fmt/format.h"
#include "tessera/ir/ir.h"
#include "tessera/ir/types.h"

namespace tessera {

// ---------------------------------------------------------------------------
// Structural equality
// ---------------------------------------------------------------------------
namespace {

// Doubles compare by value, except that NaN equals NaN and -0 differs from
// +0: what matters is that the printed text would be the same.
bool SameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

bool SameAttrValue(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  if (const double* da = std::get_if<double>(&a)) {
    return SameDouble(*da, std::get<double>(b));
  }
  return a == b;
}

std::string_view StmtKindName(StmtKind kind) {
  switch (kind) {
    case StmtKind::kAssign:
      return "assign";
    case StmtKind::kStore:
      return "store";
    case StmtKind::kAtomic:
      return "atomic";
    case StmtKind::kTileLoop:
      return "tile loop";
    case StmtKind::kRangeLoop:
      return "range loop";
    case StmtKind::kIf:
      return "if";
    case StmtKind::kYield:
      return "yield";
    case StmtKind::kReturn:
      return "return";
    case StmtKind::kLaunch:
      return "launch";
  }
  return "statement";
}

// Compares two trees; on the first difference records a description in
// `why` (when non-null) and returns false. The description is only built
// on failure, so plain equality checks stay cheap.
class Comparer {
 public:
  Comparer(bool compare_locations, std::string* why)
      : compare_locations_(compare_locations), why_(why) {}

  bool Fail(std::string message) {
    if (why_ != nullptr && why_->empty()) *why_ = std::move(message);
    return false;
  }

  bool Locs(const SourceLoc& a, const SourceLoc& b, std::string_view what) {
    if (!compare_locations_ || a == b) return true;
    return Fail(fmt::format("{}: location {}:{} vs {}:{}", what, a.line, a.col,
                            b.line, b.col));
  }

  bool Attrs(const AttrList& a, const AttrList& b, std::string_view what) {
    if (a.size() != b.size()) {
      return Fail(
          fmt::format("{}: {} attributes vs {}", what, a.size(), b.size()));
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].name != b[i].name) {
        return Fail(fmt::format("{}: attribute '{}' vs '{}'", what, a[i].name,
                                b[i].name));
      }
      if (!SameAttrValue(a[i].value, b[i].value)) {
        return Fail(fmt::format("{}: attribute '{}' has another value", what,
                                a[i].name));
      }
    }
    return true;
  }

  bool Types(const Type& a, const Type& b, std::string_view what) {
    if (a == b) return true;
    return Fail(fmt::format("{}: type {} vs {}", what, TypeToString(a),
                            TypeToString(b)));
  }

  bool Values(const ValueList& a, const ValueList& b, std::string_view what) {
    if (a.size() != b.size()) {
      return Fail(fmt::format("{}: {} values vs {}", what, a.size(), b.size()));
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].name != b[i].name) {
        return Fail(
            fmt::format("{}: value '{}' vs '{}'", what, a[i].name, b[i].name));
      }
      if (!(a[i].type == b[i].type)) {
        return Fail(fmt::format("{}: value '{}' has type {} vs {}", what,
                                a[i].name, TypeToString(a[i].type),
                                TypeToString(b[i].type)));
      }
    }
    return true;
  }

  bool ExprOrNull(const ExprPtr& a, const ExprPtr& b, std::string_view what) {
    if (!a || !b) {
      if (!a && !b) return true;
      return Fail(fmt::format("{}: expression present on one side only", what));
    }
    return Exprs(*a, *b, what);
  }

  bool ExprList(const ExprList& a, const ExprList& b, std::string_view what) {
    if (a.size() != b.size()) {
      return Fail(
          fmt::format("{}: {} expressions vs {}", what, a.size(), b.size()));
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (!ExprOrNull(a[i], b[i], what)) return false;
    }
    return true;
  }

  bool Indices(const IndexList& a, const IndexList& b, std::string_view what) {
    if (a.size() != b.size()) {
      return Fail(
          fmt::format("{}: {} indices vs {}", what, a.size(), b.size()));
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].kind != b[i].kind) {
        return Fail(fmt::format("{}: index {} has another kind", what, i));
      }
      if (!(a[i].size == b[i].size)) {
        return Fail(fmt::format("{}: index {} has another size", what, i));
      }
      if (!ExprOrNull(a[i].expr, b[i].expr, what)) return false;
    }
    return true;
  }

  bool Exprs(const Expr& a, const Expr& b, std::string_view what) {
    if (a.op != b.op) {
      return Fail(fmt::format("{}: op {} vs {}", what, OpInfoOf(a.op).name,
                              OpInfoOf(b.op).name));
    }
    if (a.name != b.name) {
      return Fail(fmt::format("{}: name '{}' vs '{}'", what, a.name, b.name));
    }
    if (!(a.type == b.type)) {
      return Fail(fmt::format("{}: {} '{}' has type {} vs {}", what,
                              OpInfoOf(a.op).name, a.name, TypeToString(a.type),
                              TypeToString(b.type)));
    }
    return Locs(a.loc, b.loc, what) && Attrs(a.attrs, b.attrs, what) &&
           ExprList(a.operands, b.operands, what) &&
           Indices(a.indices, b.indices, what);
  }

  bool Blocks(const Block& a, const Block& b, std::string_view what) {
    if (a.stmts.size() != b.stmts.size()) {
      return Fail(fmt::format("{}: {} statements vs {}", what, a.stmts.size(),
                              b.stmts.size()));
    }
    for (size_t i = 0; i < a.stmts.size(); ++i) {
      if (!Stmts(a.stmts[i], b.stmts[i],
                 fmt::format("{}, statement {}", what, i + 1))) {
        return false;
      }
    }
    return true;
  }

  bool Stmts(const Stmt& a, const Stmt& b, std::string_view where) {
    std::string what;
    if (why_ != nullptr) {
      what = fmt::format("{} ({} at line {})", where, StmtKindName(a.kind),
                         a.loc.line);
    }
    if (a.kind != b.kind) {
      return Fail(fmt::format("{}: {} vs {}", what, StmtKindName(a.kind),
                              StmtKindName(b.kind)));
    }
    if (a.dims.size() != b.dims.size()) {
      return Fail(fmt::format("{}: {} loop dims vs {}", what, a.dims.size(),
                              b.dims.size()));
    }
    for (size_t i = 0; i < a.dims.size(); ++i) {
      if (!(a.dims[i].block == b.dims[i].block)) {
        return Fail(fmt::format("{}: dim {} block {} vs {}", what, i,
                                DimToString(a.dims[i].block),
                                DimToString(b.dims[i].block)));
      }
      if (!ExprOrNull(a.dims[i].begin, b.dims[i].begin, what) ||
          !ExprOrNull(a.dims[i].end, b.dims[i].end, what)) {
        return false;
      }
    }
    if (a.regions.size() != b.regions.size()) {
      return Fail(fmt::format("{}: {} regions vs {}", what, a.regions.size(),
                              b.regions.size()));
    }
    if (!(Locs(a.loc, b.loc, what) && Values(a.results, b.results, what) &&
          ExprOrNull(a.value, b.value, what) &&
          ExprOrNull(a.target, b.target, what) &&
          Indices(a.indices, b.indices, what) && Values(a.vars, b.vars, what) &&
          Values(a.iter_args, b.iter_args, what) &&
          ExprList(a.inits, b.inits, what) &&
          ExprList(a.operands, b.operands, what) &&
          Attrs(a.attrs, b.attrs, what))) {
      return false;
    }
    for (size_t i = 0; i < a.regions.size(); ++i) {
      if (!Blocks(a.regions[i], b.regions[i],
                  why_ ? fmt::format("{} region {}", where, i) : "")) {
        return false;
      }
    }
    return true;
  }

  bool Functions(const Function& a, const Function& b) {
    std::string what =
        why_ ? fmt::format("function '{}'", a.name) : std::string();
    if (a.name != b.name) {
      return Fail(fmt::format("function '{}' vs '{}'", a.name, b.name));
    }
    if (a.kind != b.kind) {
      return Fail(fmt::format("{}: kind {} vs {}", what,
                              FunctionKindName(a.kind),
                              FunctionKindName(b.kind)));
    }
    if (a.result_types.size() != b.result_types.size()) {
      return Fail(fmt::format("{}: {} results vs {}", what,
                              a.result_types.size(), b.result_types.size()));
    }
    for (size_t i = 0; i < a.result_types.size(); ++i) {
      if (!Types(a.result_types[i], b.result_types[i], what)) return false;
    }
    return Locs(a.loc, b.loc, what) && Values(a.params, b.params, what) &&
           Attrs(a.attrs, b.attrs, what) && Blocks(a.body, b.body, what);
  }

  bool Modules(const Module& a, const Module& b) {
    if (a.source_file != b.source_file) {
      return Fail(fmt::format("module source file '{}' vs '{}'", a.source_file,
                              b.source_file));
    }
    if (!(a.properties == b.properties)) {
      return Fail(fmt::format("module properties [{}] vs [{}]",
                              a.properties.ToString(),
                              b.properties.ToString()));
    }
    if (!Attrs(a.attrs, b.attrs, "module")) return false;
    if (a.functions.size() != b.functions.size()) {
      return Fail(fmt::format("{} functions vs {}", a.functions.size(),
                              b.functions.size()));
    }
    for (size_t i = 0; i < a.functions.size(); ++i) {
      if (!Functions(a.functions[i], b.functions[i])) return false;
    }
    return true;
  }

 private:
  bool compare_locations_;
  std::string* why_;
};

}  // namespace

bool StructurallyEqual(const Expr& a, const Expr& b, bool compare_locations) {
  return Comparer(compare_locations, nullptr).Exprs(a, b, "");
}
bool StructurallyEqual(const Stmt& a, const Stmt& b, bool compare_locations) {
  return Comparer(compare_locations, nullptr).Stmts(a, b, "");
}
bool StructurallyEqual(const Function& a, const Function& b,
                       bool compare_locations) {
  return Comparer(compare_locations, nullptr).Functions(a, b);
}
bool StructurallyEqual(const Module& a, const Module& b,
                       bool compare_locations) {
  return Comparer(compare_locations, nullptr).Modules(a, b);
}

std::string FirstDifference(const Module& a, const Module& b) {
  std::string why;
  if (Comparer(false, &why).Modules(a, b)) return "";
  return why.empty() ? "modules differ" : why;
}

}  // namespace tessera
