// Identifier hygiene of the generated Python.
#include <gtest/gtest.h>

#include "python_writer.h"

namespace tessera::pallas {
namespace {

TEST(Names, SanitizeKeepsValidIdentifiers) {
  EXPECT_EQ(SanitizeIdentifier("acc_1"), "acc_1");
  EXPECT_EQ(SanitizeIdentifier("tile_m"), "tile_m");
}

TEST(Names, SanitizeFixesInvalidCharactersAndDigits) {
  EXPECT_EQ(SanitizeIdentifier("acc.1"), "acc_1");
  EXPECT_EQ(SanitizeIdentifier("1x"), "_1x");
  EXPECT_EQ(SanitizeIdentifier(""), "_");
}

TEST(Names, SanitizeAvoidsKeywordsAndModuleNames) {
  EXPECT_EQ(SanitizeIdentifier("lambda"), "lambda_");
  EXPECT_EQ(SanitizeIdentifier("jnp"), "jnp_");
  EXPECT_EQ(SanitizeIdentifier("pl"), "pl_");
  EXPECT_EQ(SanitizeIdentifier("range"), "range_");
  EXPECT_EQ(SanitizeIdentifier("interpret"), "interpret_");
}

TEST(Names, FreshNamesNeverCollideWithSourceNames) {
  NameTable names;
  names.AddSourceName("acc_scratch");
  names.AddSourceName("acc_scratch_1");
  std::string fresh = names.Fresh("acc_scratch");
  EXPECT_NE(fresh, "acc_scratch");
  EXPECT_NE(fresh, "acc_scratch_1");
  EXPECT_TRUE(names.Contains(fresh));
  EXPECT_NE(names.Fresh("acc_scratch"), fresh);
}

TEST(PyLines, IndentsNestedBlocks) {
  PyLines inner;
  inner.Line("x = 1");
  PyLines outer;
  outer.Line("def f():");
  outer.Indent();
  outer.Append(inner);
  outer.Dedent();
  EXPECT_EQ(outer.Text(), "def f():\n    x = 1\n");
}

}  // namespace
}  // namespace tessera::pallas
