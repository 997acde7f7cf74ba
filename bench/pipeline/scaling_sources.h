// Synthetic kernel files that grow along one axis at a time, for the
// compile-time scaling benchmarks (BM_Scale/<axis>/<n>): issue 33 asks that
// doubling the number of kernels, of a kernel's parameters or of its
// statements at most doubles the compile time (x2.3 allowed).
// scaling_ratios.py runs them and prints t(2n) / t(n).
#pragma once

#include <string>

namespace tessera::bench {

// `n` trivial elementwise kernels in one file.
std::string KernelsSource(int n);
// One kernel with `n` tensor parameters, two of them read.
std::string ParametersSource(int n);
// One kernel whose tile loop is a chain of `n` elementwise statements.
std::string StatementsSource(int n);

}  // namespace tessera::bench
