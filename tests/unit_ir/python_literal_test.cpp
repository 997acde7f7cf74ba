// The one Python float spelling the frontend's parameter defaults and the
// backends' constants share.
#include "tessera/python_literal.h"

#include <gtest/gtest.h>

#include <limits>

namespace tessera {
namespace {

TEST(PythonFloatLiteral, MatchesPythonRepr) {
  EXPECT_EQ(PythonFloatLiteral(1e-5), "1e-05");
  EXPECT_EQ(PythonFloatLiteral(1e-4), "0.0001");
  EXPECT_EQ(PythonFloatLiteral(1.0), "1.0");
  EXPECT_EQ(PythonFloatLiteral(0.0), "0.0");
  EXPECT_EQ(PythonFloatLiteral(-0.0), "-0.0");
  EXPECT_EQ(PythonFloatLiteral(2.5), "2.5");
  EXPECT_EQ(PythonFloatLiteral(-2.5), "-2.5");
  EXPECT_EQ(PythonFloatLiteral(0.1), "0.1");
  EXPECT_EQ(PythonFloatLiteral(0.125), "0.125");
  EXPECT_EQ(PythonFloatLiteral(123456.0), "123456.0");
  EXPECT_EQ(PythonFloatLiteral(1e15), "1000000000000000.0");
  EXPECT_EQ(PythonFloatLiteral(1e16), "1e+16");
  EXPECT_EQ(PythonFloatLiteral(1.5e-7), "1.5e-07");
  EXPECT_EQ(PythonFloatLiteral(-3.25e100), "-3.25e+100");
}

TEST(PythonFloatLiteral, SpellsNonFiniteValuesAsFloatCalls) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(PythonFloatLiteral(inf), "float(\"inf\")");
  EXPECT_EQ(PythonFloatLiteral(-inf), "float(\"-inf\")");
  EXPECT_EQ(PythonFloatLiteral(std::numeric_limits<double>::quiet_NaN()),
            "float(\"nan\")");
}

}  // namespace
}  // namespace tessera
