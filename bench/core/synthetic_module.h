// Large synthetic .tir modules for compile-speed benchmarks: kernels whose
// grid loop holds a repeating mix of statements -- assignments with nested
// expressions, loads, reductions, stores, inner tile loops with a nested
// range loop and a loop-carried dot, and if/else -- until a requested
// number of statements is reached.
#pragma once

#include <string>

namespace tessera::bench {

struct SyntheticModule {
  std::string text;
  int statements = 0;  // every statement, nested ones included
  int functions = 0;
};

// A valid structured module (verifies without properties) with at least
// `min_statements` statements.
SyntheticModule GenerateSyntheticModule(int min_statements);

}  // namespace tessera::bench
