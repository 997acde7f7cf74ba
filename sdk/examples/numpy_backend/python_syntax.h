// Python spelling of Tessera IR pieces for the numpy-reference backend:
// identifiers, literals, and the NumPy / runtime function of each op.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/ir/ir.h"

namespace numpy_reference {

// A Python identifier for an IR name: invalid characters become '_', and
// keywords, names of the globals generated code uses and names starting
// with '_' (the runtime's) are changed so they cannot clash.
std::string PyName(std::string_view name);

std::string IntLiteral(int64_t value);
// Shortest round-trip spelling, always a Python float ("1.0", "math.inf").
std::string FloatLiteral(double value);
std::string Join(const std::vector<std::string>& items, std::string_view sep);
// A Python tuple display: "()", "(a,)", "(a, b)".
std::string Tuple(const std::vector<std::string>& items);
// A static size or the (Python) name of the symbol.
std::string DimValue(const tessera::Dim& dim);

// The NumPy or runtime function computing `op`, or "" when `op` is not of
// that family.
std::string_view UnaryFunction(tessera::OpKind op);
std::string_view BinaryFunction(tessera::OpKind op);  // incl. comparisons
std::string_view ReductionFunction(tessera::OpKind op);
// " + " etc. for host integer arithmetic written as plain Python, or "".
std::string_view PythonIntOperator(tessera::OpKind op);

std::string_view StmtKindName(tessera::StmtKind kind);

// Whether an expression of `block` (or of a nested region) applies `op`.
bool UsesOp(const tessera::Block& block, tessera::OpKind op);

}  // namespace numpy_reference
