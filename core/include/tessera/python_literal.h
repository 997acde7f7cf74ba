// Spelling values as Python source, for every plugin that generates Python
// (the frontend's parameter defaults, the backends' constants). One
// spelling everywhere keeps generated modules byte-identical whichever part
// wrote a number.
#pragma once

#include <string>

namespace tessera {

// What `repr(value)` prints in Python for a float: the shortest digits that
// round-trip, fixed notation for exponents in [-4, 16), else scientific
// with a signed two-digit exponent (1e-05, 0.0001, 1e+16, 2.5, 1.0);
// float("inf"), float("-inf") and float("nan") for the rest.
std::string PythonFloatLiteral(double value);

}  // namespace tessera
